package server

import (
	"math"
	"time"

	"github.com/lagkit/lagkit/game"
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
	// answer is the answer that settled it (answered false: none did,
	// it timed out), against which copies are told apart.
	answer   wire.Appeal
	answered bool
}

// startAppeal makes hit h provisional and asks its victim, if the victim
// has appeal budget left, a slot is free and a HitEvent can carry the
// hit (not one whose spot on a game's body lies beyond
// wire.MaxBodyLocal: its victim could not answer it). It reports
// whether it did.
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
	deadline := now + s.policy.Traits().AppealWindow
	data, err := s.hitEvent(h, id, deadline)
	if err != nil {
		return false
	}
	s.nextAppeal++
	if s.nextAppeal == 0 {
		s.nextAppeal = 1 // 0 means "not appealable" on the wire
	}
	v.appealTokens--
	rec.Appealed = true
	*a = appealState{active: true, id: id, hit: *h, rec: rec, deadline: deadline}
	s.activeAppeals++
	s.sendHitEvent(v, h, data)
	return true
}

// appeal handles a victim's answer to a provisional hit. The copies a
// client sends of an answer until its verdict arrives (the appeal id
// names the shot) are counted in Stats.AppealCopies once the first has
// settled it; other answers to unknown or settled appeals, answers from
// anyone but the victim, and answers after the deadline are ignored.
func (s *Server) appeal(now time.Duration, from *client, m *wire.Appeal) {
	a := &s.appeals[m.ID%maxAppeals]
	if !a.active && a.answered && a.id == m.ID && a.hit.victim == from.id && a.answer == *m {
		s.stats.AppealCopies++
		return
	}
	if !a.active || a.id != m.ID || a.hit.victim != from.id || now > a.deadline {
		from.appealsIgnored++
		return
	}
	a.answer, a.answered = *m, true
	if !m.Deny {
		s.settle(now, a, wire.OutcomeConfirmed)
		return
	}
	// Re-run the victim's SBC detection on the state it sent, but only
	// trust a state the server's own record of the victim allows: near
	// where the server has it (its prediction may lead by its round
	// trip, not more) and in a stance it took lately or is about to take.
	window := from.rtt.Smoothed() + 4*s.tickDur
	lead := s.maxSpeed()*window.Seconds() + 0.25
	st := m.State
	plausible := st.Pos.IsFinite() && st.Pos.Dist(from.state.Pos) <= lead &&
		s.stanceSeen(from, st.Has(game.FlagCrouched), now-window)
	if plausible && s.covered(&a.hit, st) {
		s.settle(now, a, wire.OutcomeDeniedUpheld)
		return
	}
	from.refuted++
	s.settle(now, a, wire.OutcomeDeniedRefuted)
}

// covered is SBC detection of hit h on its victim in state st: on the
// humanoid part hit, or on the game's body hit (a game's shot,
// ShotWorld.Hit).
func (s *Server) covered(h *hitInfo, st game.PlayerState) bool {
	if h.onBody {
		return lagcomp.BehindCoverBody(lagcomp.PoseOf(st), h.local, h.eye, s.cfg.Map.Grid)
	}
	return lagcomp.BehindCover(st, h.part, h.local, h.eye, s.cfg.Map.Grid, s.cfg.Movement)
}

// stanceSeen reports whether c was crouched (or standing, as crouched
// says) at a tick of the server's history since from, is so now, or
// will be after a command received and not yet executed. The victim's
// client draws its predicted pose, which leads the server by the
// commands in flight; a stance found in none of these is invented (a
// standing victim claiming to duck behind low cover).
func (s *Server) stanceSeen(c *client, crouched bool, from time.Duration) bool {
	if c.state.Has(game.FlagCrouched) == crouched {
		return true
	}
	for i := range c.qN {
		if c.queue[(c.qHead+i)%len(c.queue)].Buttons.Has(game.BtnCrouch) == crouched {
			return true
		}
	}
	for n := s.tick; n > 0 && s.history.TickTime(n) >= from; n-- {
		if st, ok := s.history.At(c.id, s.history.TickTime(n)); ok && st.Has(game.FlagCrouched) == crouched {
			return true
		}
	}
	return false
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
