package server

import (
	"math"
	"time"

	"github.com/lagkit/lagkit/lagcomp"
	"github.com/lagkit/lagkit/wire"
)

// maxAppeals bounds the appeals awaiting an answer, server-wide. A hit
// that finds no free slot is registered without appeal.
const maxAppeals = 256

// appealState is a provisional hit awaiting the victim's answer (policy
// alc, [alc]).
type appealState struct {
	active   bool
	id       uint32
	hit      hitInfo
	rec      ShotRecord
	deadline time.Duration
}

// startAppeal makes hit h provisional and asks its victim, if the victim
// has appeal budget left and a slot is free. It reports whether it did.
func (s *Server) startAppeal(now time.Duration, h *hitInfo, rec ShotRecord) bool {
	v := s.clients[h.victim]
	if v.appealTokens < 1 {
		return false
	}
	id := s.nextAppeal
	a := &s.appeals[id%maxAppeals]
	if a.active {
		return false
	}
	s.nextAppeal++
	if s.nextAppeal == 0 {
		s.nextAppeal = 1 // 0 means "not appealable" on the wire
	}
	v.appealTokens--
	rec.Appealed = true
	*a = appealState{active: true, id: id, hit: *h, rec: rec, deadline: now + s.policy.Traits().AppealWindow}
	s.activeAppeals++
	s.sendHit(v, h, id, a.deadline)
	return true
}

// appeal handles a victim's answer to a provisional hit. Answers to
// unknown or settled appeals, answers from anyone but the victim, and
// answers after the deadline are ignored.
func (s *Server) appeal(now time.Duration, from *client, m *wire.Appeal) {
	a := &s.appeals[m.ID%maxAppeals]
	if !a.active || a.id != m.ID || a.hit.victim != from.id || now > a.deadline {
		from.appealsIgnored++
		return
	}
	if !m.Deny {
		s.settle(now, a, wire.OutcomeConfirmed)
		return
	}
	// Re-run the victim's SBC detection on the state it sent, but only
	// trust a state near where the server has the victim: its prediction
	// may lead by its round trip, not more.
	lead := s.maxSpeed()*(from.rtt.Smoothed()+4*s.tickDur).Seconds() + 0.25
	st := m.State
	plausible := st.Pos.IsFinite() && st.Pos.Dist(from.state.Pos) <= lead
	if plausible && lagcomp.BehindCover(st, a.hit.part, a.hit.local, a.hit.eye, s.cfg.Map.Grid, s.cfg.Movement) {
		s.settle(now, a, wire.OutcomeDeniedUpheld)
		return
	}
	from.refuted++
	s.settle(now, a, wire.OutcomeDeniedRefuted)
}

// expireAppeals settles appeals whose deadline passed without an answer:
// silence counts as a confirmation.
func (s *Server) expireAppeals(now time.Duration) {
	if s.activeAppeals == 0 {
		return
	}
	for i := range s.appeals {
		if a := &s.appeals[i]; a.active && now > a.deadline {
			s.settle(now, a, wire.OutcomeTimeout)
		}
	}
}

// settle decides an appeal, tells the victim the verdict and applies the
// hit unless the denial was upheld.
func (s *Server) settle(now time.Duration, a *appealState, outcome wire.Outcome) {
	a.active = false
	s.activeAppeals--
	if v := s.clients[a.hit.victim]; v != nil {
		ev := wire.VerdictEvent{Appeal: a.id, Outcome: outcome}
		if data, err := wire.AppendVerdictEvent(nil, &ev); err == nil {
			s.sendEvent(v, wire.EventVerdict, data)
		}
	}
	s.apply(now, &a.hit, &a.rec, outcome, outcome != wire.OutcomeDeniedUpheld)
}

// dropAppeals settles the appeals of a departing player: its hits on
// others stand as they are, hits on it are void.
func (s *Server) dropAppeals(id int) {
	for i := range s.appeals {
		a := &s.appeals[i]
		if a.active && a.hit.victim == id {
			a.active = false
			s.activeAppeals--
		}
	}
}

// maxSpeed is the fastest a player can move by its own will.
func (s *Server) maxSpeed() float64 {
	p := s.cfg.Movement
	v := math.Max(p.WalkSpeed, p.CrouchSpeed)
	if p.Sprint {
		v = math.Max(v, p.SprintSpeed)
	}
	return v
}

// refillAppealBudget adds each client's appeal allowance for one tick.
func (s *Server) refillAppealBudget(c *client) {
	c.appealTokens = math.Min(c.appealTokens+s.cfg.AppealRate*s.tickDur.Seconds(), s.cfg.AppealRate)
}
