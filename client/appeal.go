package client

import (
	"time"

	"github.com/lagkit/lagkit/game"
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
// point the server's own check of a denial uses), and answers a
// provisional hit.
func (c *Client) hit(now time.Duration, h *wire.HitEvent) {
	sbc := lagcomp.BehindCover(c.pred, h.Part, h.Local, h.ShooterEye, c.cfg.Map.Grid, c.cfg.Movement)
	r := HitReport{
		Time: now, Shooter: int(h.Shooter), ShotTick: h.ShotTick, Part: h.Part,
		Damage: h.Damage, SBC: sbc, Appeal: h.Appeal,
	}
	if h.Appeal != 0 && c.cfg.Appeals != AppealSilent {
		r.Denied = sbc || c.cfg.Appeals == AppealDenyAll
		buf, err := wire.AppendAppeal(nil, &wire.Appeal{ID: h.Appeal, Deny: r.Denied, State: c.pred})
		if err == nil {
			c.send(buf)
			c.stats.Appeals++
		}
	}
	c.hits = append(c.hits, r)
	c.shown.lastHit, c.shown.hasLastHit = r, true
}

// Hits returns the hits on the local player reported since the last call
// and forgets them.
func (c *Client) Hits() []HitReport {
	out := c.hits
	c.hits = c.hits[:0]
	return out
}

// Confirms returns the server's reports on the local player's hits since
// the last call and forgets them.
func (c *Client) Confirms() []ConfirmReport {
	out := c.confirms
	c.confirms = c.confirms[:0]
	return out
}
