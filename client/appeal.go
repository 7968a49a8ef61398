package client

import (
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/lagcomp"
	"github.com/lagkit/lagkit/wire"
)

// AppealMode is how a client answers the server's provisional hits.
type AppealMode uint8

// Appeal modes. Only AppealHonest is a real player's behaviour; the others
// stand in for a lying and a silent client in tests and scenarios.
const (
	// AppealHonest runs SBC detection on the current predicted pose and
	// denies exactly the hits it finds behind cover.
	AppealHonest AppealMode = iota
	// AppealDenyAll denies every provisional hit.
	AppealDenyAll
	// AppealSilent never answers.
	AppealSilent
)

// HitReport is a hit on the local player as its client saw it arrive.
type HitReport struct {
	Time     time.Duration // local time the hit arrived
	Shooter  int
	ShotTick uint32
	Part     game.PartKind
	Damage   int16
	// OnBody reports a hit on the game's body (wire.HitEvent.OnBody: a
	// game's shot against server.Config.Body or BodyOf): Part is the
	// body's part index, not a humanoid part.
	OnBody bool
	// Local is the impact as the server sent it (wire.HitEvent.Local):
	// in the humanoid part's frame, or with OnBody in the body's, up to
	// wire.MaxBodyLocal from its origin (a hull's far end).
	Local geom.Vec3
	// SBC reports whether SBC detection, run on the predicted pose when
	// the hit arrived against the shooter's eye, found the hit behind
	// cover.
	SBC bool
	// Appeal is the provisional hit's id (0: not appealable), and Denied
	// whether the client denied it.
	Appeal uint32
	Denied bool
}

// ConfirmReport is the server's word on one of the local player's hits.
type ConfirmReport struct {
	ShotTick uint32
	Victim   int
	Part     game.PartKind
	Damage   int16
	Outcome  wire.Outcome
	// Delay is the time from issuing the command that fired to this
	// report arriving.
	Delay time.Duration
}

// hit runs SBC detection for a hit on the local player, on its current
// predicted pose against the shooter's eye as the server sent it (the
// point the server's own check of a denial uses), tells the server what
// it found (sighting.go), and answers a provisional hit.
func (c *Client) hit(now time.Duration, h *wire.HitEvent) {
	r := HitReport{
		Time: now, Shooter: int(h.Shooter), ShotTick: h.ShotTick, Part: h.Part,
		Damage: h.Damage, SBC: c.covered(h), Appeal: h.Appeal, OnBody: h.OnBody, Local: h.Local,
	}
	sbc := r.SBC
	if h.Appeal != 0 && c.cfg.Appeals != AppealSilent {
		r.Denied = sbc || c.cfg.Appeals == AppealDenyAll
		m := wire.Appeal{ID: h.Appeal, Deny: r.Denied, State: c.pred}
		if buf, err := wire.AppendAppeal(nil, &m); err == nil {
			c.send(buf)
			c.stats.Appeals++
			c.awaitVerdict(now, m, h.Deadline)
		}
	}
	c.sighted(h, sbc)
	c.ready.cur.Hits = append(c.ready.cur.Hits, r)
	c.lastHit, c.hasLastHit = r, true
}

// covered is SBC detection of hit h on the local player's predicted
// pose, as the server's check of a denial runs it: the impact put back
// on the humanoid part hit, or for a hit on the game's body (h.OnBody,
// a game's shot) on the body at the pose, whatever its shape (the
// impact is in the body's frame), and the segment from it to the
// shooter's eye tested against the map.
func (c *Client) covered(h *wire.HitEvent) bool {
	if h.OnBody {
		return lagcomp.BehindCoverBody(lagcomp.PoseOf(c.pred), h.Local, h.ShooterEye, c.cfg.Map.Grid)
	}
	return lagcomp.BehindCover(c.pred, h.Part, h.Local, h.ShooterEye, c.cfg.Map.Grid, c.cfg.Movement)
}

// An answer to a provisional hit whose verdict has not arrived is sent
// again, as the same datagram, every appealResend (or half a round
// trip, when that is longer) while a copy can still reach the server
// before the appeal's deadline, at most maxAppealCopies times: [alc]
// counts no answer within the window as a confirmation, so an answer the
// network lost would otherwise silently take the victim's appeal away.
// The server takes the first answer that arrives and counts the copies
// of one it settled (the appeal id names the shot). A victim that may
// appeal has a round trip of at most low_ping and a window of twice
// that, so copies sent a tick or half a round trip apart still arrive in
// time. With Config.AppealRate's default of 10 provisional hits a
// second, an answer and its copies stay below Limits.Appeals (64).
const (
	appealResend    = 15 * time.Millisecond
	maxAppealCopies = 4
)

// maxPendingAppeals bounds the answers kept for sending again; the server
// makes at most Config.AppealRate (10 a second by default) hits on one
// victim provisional, each for 2 x low_ping.
const maxPendingAppeals = 16

// pendingAppeal is an answer sent, its verdict not yet received.
type pendingAppeal struct {
	m        wire.Appeal
	deadline time.Duration // the server's, on its clock
	sentAt   time.Duration
	copies   int
}

// awaitVerdict keeps answer m, just sent at now, for sending again until
// its verdict arrives or deadline (server time) is too near.
func (c *Client) awaitVerdict(now time.Duration, m wire.Appeal, deadline time.Duration) {
	if len(c.appeals) == maxPendingAppeals {
		c.appeals = append(c.appeals[:0], c.appeals[1:]...)
	}
	c.appeals = append(c.appeals, pendingAppeal{m: m, deadline: deadline, sentAt: now})
}

// resendAppeals sends again the answers whose verdict is overdue, and
// forgets those that could no longer reach the server in time: a
// datagram sent now arrives at about the server time the newest
// snapshots carry plus a round trip.
func (c *Client) resendAppeals(now time.Duration) {
	rtt := c.rtt.Smoothed()
	every := max(appealResend, rtt/2)
	keep := c.appeals[:0]
	for _, p := range c.appeals {
		if c.ServerTime(now)+rtt > p.deadline || p.copies >= maxAppealCopies {
			continue
		}
		if now-p.sentAt >= every {
			if buf, err := wire.AppendAppeal(nil, &p.m); err == nil {
				c.send(buf)
				c.stats.AppealsResent++
			}
			p.sentAt = now
			p.copies++
		}
		keep = append(keep, p)
	}
	c.appeals = keep
}

// verdict hands over the server's verdict on an appeal and stops
// sending the answer to it.
func (c *Client) verdict(data []byte) {
	var e wire.VerdictEvent
	if wire.DecodeVerdictEvent(data, &e) != nil {
		c.stats.Malformed++
		return
	}
	c.ready.cur.Verdicts = append(c.ready.cur.Verdicts, e)
	for i, p := range c.appeals {
		if p.m.ID == e.Appeal {
			c.appeals = append(c.appeals[:i], c.appeals[i+1:]...)
			return
		}
	}
}
