package client

import (
	"errors"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/wire"
)

// show hands over an event told for drawing; it reports whether kind
// is one.
func (c *Client) show(kind uint16, data []byte) bool {
	r := c.ready.cur
	var err error
	switch kind {
	case wire.EventRewind:
		e := wire.RewindEvent{Parts: c.cfg.Shape.Parts}
		if err = wire.DecodeRewindEvent(data, &e); err == nil {
			r.Rewinds = append(r.Rewinds, e)
		}
	case wire.EventKill:
		var e wire.KillEvent
		if err = wire.DecodeKillEvent(data, &e); err == nil {
			r.Kills = append(r.Kills, e)
		}
	case wire.EventProjectile:
		var e wire.ProjectileEvent
		if err = wire.DecodeProjectileEvent(data, &e); err == nil {
			r.Projectiles = append(r.Projectiles, e)
		}
	case wire.EventExplosion:
		var e wire.ExplosionEvent
		if err = wire.DecodeExplosionEvent(data, &e); err == nil {
			r.Explosions = append(r.Explosions, e)
		}
	case wire.EventTracer:
		var e wire.TracerEvent
		if err = wire.DecodeTracerEvent(data, &e); err == nil {
			r.Tracers = append(r.Tracers, e)
		}
	default:
		return false
	}
	if err != nil {
		c.stats.Malformed++
	}
	return true
}

// ErrNotConnected is returned by ReportSBC before the client is
// connected.
var ErrNotConnected = errors.New("client: not connected")

// ErrReported is returned by ReportSBC when the newest hit was already
// reported: a report is identified by the hit it names, so the server
// would take a second one for a copy of the first.
var ErrReported = errors.New("client: this hit was already reported")

// ReportSBC sends the player's "I was shot behind cover" report: it
// names the newest hit on the local player the client heard of, with
// what its SBC detection found for it, so the server can tie the report
// to that hit. Each hit is reported once (ErrReported after). The server
// rate limits reports and answers each, kept or refused (Ready's
// ReportAnswers); until it answers, the
// client sends the report again every reportResend or two round trips
// (the server takes a copy for what it is).
func (c *Client) ReportSBC() error {
	if c.phase != Connected {
		return ErrNotConnected
	}
	m := wire.Report{}
	if h := &c.lastHit; c.hasLastHit {
		m = wire.Report{Seen: true, Shooter: uint8(h.Shooter), ShotTick: h.ShotTick, SBC: h.SBC}
	}
	if c.reported != nil && *c.reported == m {
		return ErrReported
	}
	buf, err := wire.AppendReport(nil, &m)
	if err != nil {
		return err
	}
	c.send(buf)
	c.reported = &m
	c.stats.Reports++
	c.awaitAnswer(m)
	return nil
}

// Cmd returns the command the client issued with tick, while it is still
// held for replay (the last few seconds).
func (c *Client) Cmd(tick uint32) (game.UserCmd, bool) {
	if tick >= c.nextCmd || tick+cmdRing <= c.nextCmd || c.cmds[tick%cmdRing].Tick != tick {
		return game.UserCmd{}, false
	}
	return c.cmds[tick%cmdRing], true
}
