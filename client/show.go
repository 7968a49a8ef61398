package client

import (
	"errors"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/wire"
)

// maxShown bounds each list of events kept for a driver (rewinds, kills,
// projectiles, explosions, tracers, hits on the player and confirmations
// of its hits): a driver that never asks (a bot) keeps only the newest.
const maxShown = 64

// shown is what the server told the client for drawing, kept until the
// driver asks for it.
type shown struct {
	rewinds     []wire.RewindEvent
	kills       []wire.KillEvent
	projectiles []wire.ProjectileEvent
	explosions  []wire.ExplosionEvent
	tracers     []wire.TracerEvent
	lastHit     HitReport // the newest hit on the local player
	hasLastHit  bool
}

// keep appends e to list, dropping the oldest beyond maxShown.
func keep[E any](list []E, e E) []E {
	if len(list) >= maxShown {
		list = append(list[:0], list[1:]...)
	}
	return append(list, e)
}

// take returns *list and forgets it.
func take[E any](list *[]E) []E {
	out := *list
	*list = nil
	return out
}

// show decodes an event kept for drawing; it reports whether kind is one.
func (c *Client) show(kind uint16, data []byte) bool {
	var err error
	switch kind {
	case wire.EventRewind:
		e := wire.RewindEvent{Parts: c.cfg.Shape.Parts}
		if err = wire.DecodeRewindEvent(data, &e); err == nil {
			c.shown.rewinds = keep(c.shown.rewinds, e)
		}
	case wire.EventKill:
		var e wire.KillEvent
		if err = wire.DecodeKillEvent(data, &e); err == nil {
			c.shown.kills = keep(c.shown.kills, e)
		}
	case wire.EventProjectile:
		var e wire.ProjectileEvent
		if err = wire.DecodeProjectileEvent(data, &e); err == nil {
			c.shown.projectiles = keep(c.shown.projectiles, e)
		}
	case wire.EventExplosion:
		var e wire.ExplosionEvent
		if err = wire.DecodeExplosionEvent(data, &e); err == nil {
			c.shown.explosions = keep(c.shown.explosions, e)
		}
	case wire.EventTracer:
		var e wire.TracerEvent
		if err = wire.DecodeTracerEvent(data, &e); err == nil {
			c.shown.tracers = keep(c.shown.tracers, e)
		}
	default:
		return false
	}
	if err != nil {
		c.stats.Malformed++
	}
	return true
}

// Rewinds returns the server's accounts of the hits the local player
// made or took (sent by a server with ShowRewind: what it tested, for a
// rewind view) since the last call, and forgets them.
func (c *Client) Rewinds() []wire.RewindEvent {
	return take(&c.shown.rewinds)
}

// Kills returns the kills the server announced since the last call, and
// forgets them.
func (c *Client) Kills() []wire.KillEvent {
	return take(&c.shown.kills)
}

// Projectiles returns the projectiles launched since the last call (to
// draw their flight), and forgets them.
func (c *Client) Projectiles() []wire.ProjectileEvent {
	return take(&c.shown.projectiles)
}

// Explosions returns the projectiles that hit something since the last
// call, and forgets them.
func (c *Client) Explosions() []wire.ExplosionEvent {
	return take(&c.shown.explosions)
}

// Tracers returns the other players' hitscan shots the server told of
// since the last call (sent by a server with ShowTracers, to draw them),
// and forgets them.
func (c *Client) Tracers() []wire.TracerEvent {
	return take(&c.shown.tracers)
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
// rate limits reports and answers each, kept or refused
// (Stats.ReportsKept, Stats.ReportsRefused); until it answers, the
// client sends the report again every reportResend or two round trips
// (the server takes a copy for what it is).
func (c *Client) ReportSBC() error {
	if c.phase != Connected {
		return ErrNotConnected
	}
	m := wire.Report{}
	if h := &c.shown.lastHit; c.shown.hasLastHit {
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
