package server

import (
	"fmt"
	"math"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/wire"
)

// SBCReport is a player's "I was shot behind cover" report (wire.Report)
// with the server's account of the most recent hit on that player: the
// subjective SBC of [alc]'s questionnaire, beside the objective figures a
// study compares it with.
type SBCReport struct {
	// Time is the server time the report arrived; Reporter who sent it.
	Time     time.Duration
	Reporter int
	// Hit reports whether the server had judged a hit on the reporter
	// since it joined; the fields below describe the newest one (Shooter
	// is -1 without one).
	Hit      bool
	Shooter  int
	ShotTick uint32
	Part     game.PartKind
	// HitTime is the server time that hit was judged.
	HitTime   time.Duration
	Rewound   bool
	RewindMS  float64
	RollbackM float64
	// Appealed and Outcome are what became of the hit (policy alc asks
	// the victim; the others register it).
	Appealed   bool
	Outcome    wire.Outcome
	Registered bool
	// SBCKnown reports whether the reporter's client had judged this very
	// hit (its report names the same shooter and shot tick); ObjectiveSBC
	// is then what its SBC detection found when the hit arrived.
	SBCKnown     bool
	ObjectiveSBC bool
}

// Reports are rate limited per client, as a token bucket that holds
// reportBurst and refills one every reportRefill: a report key is pressed
// after a hit, not held down, and a client that sends more only fills the
// log.
const (
	reportBurst  = 3
	reportRefill = 10 * time.Second
	// maxPendingReports bounds the reports one Ready holds: more than
	// the rate limit lets in from MaxClients between two handovers.
	maxPendingReports = 256
)

// reportState is what the server keeps per client for its reports: the
// newest hit on it and the report bucket's debt (zero: full).
type reportState struct {
	last    ShotRecord
	hasLast bool
	debt    float64
	at      time.Duration
	refused int
	// answered are the newest reports answered (wire.ReportAck), oldest
	// first, against copies of them.
	answered []wire.Report
}

// noteHit remembers rec as the newest hit on its victim, for the
// victim's reports.
func (s *Server) noteHit(rec *ShotRecord) {
	if !rec.Hit || rec.Victim < 0 || rec.Victim >= len(s.clients) {
		return
	}
	if v := s.clients[rec.Victim]; v != nil {
		v.reports.last, v.reports.hasLast = *rec, true
	}
}

// reportDatagram decodes a report datagram from peer and, within the
// client's Limits.Reports, hands it to report.
func (s *Server) reportDatagram(now time.Duration, from Peer, data []byte) error {
	id, ok := s.byPeer[from]
	if !ok {
		return fmt.Errorf("server: report: %w", ErrNoSession)
	}
	var m wire.Report
	if err := wire.DecodeReport(data, &m); err != nil {
		return s.malformed(err)
	}
	c := s.clients[id]
	c.lastHeard = now
	if s.charge(now, c, limitReports, 1) {
		s.report(now, c, &m)
	}
	return nil
}

// report handles a client's SBC report: within the client's rate limit it
// is logged ("sbc_report", Player the reporter, Other the shooter) and
// kept for SBCReports. Either way the client is answered (report_ack.go);
// a copy of a report already answered is ignored.
func (s *Server) report(now time.Duration, c *client, m *wire.Report) {
	if s.answered(c, m) {
		return // a copy of a report already answered
	}
	b := &c.reports
	b.debt = max(0, b.debt-float64(now-b.at)/float64(reportRefill))
	b.at = now
	if b.debt+1 > reportBurst {
		b.refused++
		s.answerReport(c, m, false)
		return
	}
	b.debt++
	r := SBCReport{Time: s.Time(), Reporter: c.id, Shooter: -1}
	if b.hasLast {
		h := &b.last
		r.Hit, r.Shooter, r.ShotTick, r.Part, r.HitTime = true, h.Shooter, h.ShotTick, h.Part, h.Time
		r.Rewound, r.RewindMS, r.RollbackM = h.Rewound, h.RewindMS, h.RollbackM
		r.Appealed, r.Outcome, r.Registered = h.Appealed, h.Outcome, h.Registered
		if m.Seen && int(m.Shooter) == h.Shooter && m.ShotTick == h.ShotTick {
			r.SBCKnown, r.ObjectiveSBC = true, m.SBC
		}
	}
	if reps := &s.ready.cur.Reports; len(*reps) < maxPendingReports {
		*reps = append(*reps, r)
	}
	s.answerReport(c, m, true)
	s.record(LogEntry{Kind: "sbc_report", Player: c.id, Other: r.Shooter, Team: c.team, Pos: c.state.Pos})
}

// ReportsRefused returns how many SBC reports client id sent beyond its
// rate limit (0 for an empty slot).
func (s *Server) ReportsRefused(id int) int {
	if id < 0 || id >= len(s.clients) || s.clients[id] == nil {
		return 0
	}
	return s.clients[id].reports.refused
}

// tested is what the server tested for a hitscan hit, for its
// RewindEvent: the victim's pose, where the victim was when the shot was
// judged, and the impact. ok is false for hits with no such account
// (projectiles, time warp's re-judgements).
type tested struct {
	ok       bool
	pose     game.PlayerState
	now      geom.Vec3
	impact   geom.Vec3
	rewindMS float64
}

// showRewind tells the shooter and the victim of hit h what the server
// tested (Config.ShowRewind).
func (s *Server) showRewind(h *hitInfo, outcome wire.Outcome) {
	t := &h.tested
	if !s.cfg.ShowRewind || !t.ok {
		return
	}
	ev := wire.RewindEvent{
		Shooter: uint8(h.shooter), Victim: uint8(h.victim), ShotTick: h.shotTick, Part: h.part, Outcome: outcome, Parts: s.cfg.Shape.Parts,
		Rewind: min(time.Duration(math.Round(t.rewindMS*1000))*time.Microsecond, wire.MaxRewind),
		Yaw:    t.pose.Yaw, Crouched: t.pose.Has(game.FlagCrouched),
		Pos: game.SnapPos(t.pose.Pos), Now: game.SnapPos(t.now), Eye: game.SnapPos(h.eye), Impact: game.SnapPos(t.impact),
	}
	data, err := wire.AppendRewindEvent(nil, &ev)
	if err != nil {
		return
	}
	for i, id := range [...]int{h.shooter, h.victim} {
		if c := s.clients[id]; c != nil && (i == 0 || id != h.shooter) {
			s.sendEvent(c, wire.EventRewind, data)
		}
	}
}
