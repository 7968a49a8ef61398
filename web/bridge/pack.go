package bridge

import (
	"encoding/binary"
	"math"
	"time"

	"github.com/lagkit/lagkit/client"
	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/shooter/mode"
	"github.com/lagkit/lagkit/shooter/weapon"
	"github.com/lagkit/lagkit/wire"
)

// The packed frame (Pack) is what a page needs every frame, as
// little-endian float32s so that the page reads it through one
// Float32Array without parsing: a header of PackHeader values, the local
// player's record, the remote players' records, then the projectiles'.
//
// Header: [0] PackVersion, [1] remote players, [2] projectiles, [3] values
// per player record (PlayerValues), [4] phase (0 idle, 1 connecting,
// 2 connected, 3 closed), [5] things waiting for the next Info (events,
// rewinds, tracers, explosions: the page asks for Info when this is not
// 0), [6] the local player's id (-1 until accepted), [7] ammunition,
// [8..10] the eye, [11] the server tick the view is at, [12] the count of
// the local player's placements (spawns, respawns, teleports), [13] and
// [14] the view's yaw and pitch at the newest placement, [15] unused.
//
// A player record: id, team, flags (PackCrouched, ...), health (-1 for
// remote players: snapshots do not carry it), position x, y, z, yaw,
// pitch, then game.NumParts hitboxes of PartValues each: kind
// (game.PartKind), A x, y, z, B x, y, z, radius.
//
// A projectile: id, owner, position x, y, z.
const (
	PackVersion     = 1
	PackHeader      = 16
	PartValues      = 8
	PlayerValues    = 9 + game.NumParts*PartValues
	ProjectileValue = 5
)

// The flags of a packed player.
const (
	PackCrouched = 1 << iota
	PackDead
	PackProtected
	PackReloading
	PackCarrier
)

// PackSize is the most bytes Pack writes: every slot a player and the
// most projectiles drawn.
const PackSize = 4 * (PackHeader + (wire.MaxEntities+1)*PlayerValues + maxFlights*ProjectileValue)

// Pack writes what to draw at local time now into buf (at least PackSize
// bytes) and returns the bytes written. Unlike State it allocates
// nothing and keeps the events for Info; the page draws from it every
// frame and asks for Info (JSON) only when the header says something
// waits, or now and then for the net graph and the scoreboard.
func (s *Session) Pack(now time.Duration, buf []byte) int {
	if len(buf) < PackSize {
		return 0
	}
	c := s.c
	w := packer{buf: buf, n: PackHeader}
	id := -1
	if c.Phase() == client.Connected {
		id = c.ID()
	}
	team := 0
	if set, ok := c.Settings(); ok {
		team = int(set.Team)
	}
	self := c.Predicted()
	shown := self
	shown.Pos = c.DisplayPos()
	w.player(id, team, int(self.Health), shown, &s.params)
	players := 0
	var tick float64
	if c.Phase() == client.Connected {
		teams := s.teams()
		view := c.ViewTime(now)
		s.ids = c.RemoteIDs(s.ids[:0])
		for _, rid := range s.ids {
			if rid == id {
				continue
			}
			if ps, ok := c.Remote(rid, view); ok {
				w.player(rid, teams[rid], -1, ps, &s.params)
				players++
			}
		}
		if td := c.TickDuration(); td > 0 {
			tick = math.Floor(float64(c.ServerTime(now)) / float64(td))
		}
	}
	projectiles := 0
	s.eachProjectile(c.ServerTime(now), func(p Projectile) {
		w.put(float64(p.ID), float64(p.Owner), p.Pos[0], p.Pos[1], p.Pos[2])
		projectiles++
	})
	eye := game.EyePos(shown, &s.params)
	pending := len(s.events) + len(s.rewinds) + len(s.tracers) + len(s.explosions)
	n := w.n
	w.n = 0
	w.put(PackVersion, float64(players), float64(projectiles), PlayerValues, float64(c.Phase()), float64(pending),
		float64(id), float64(weapon.ArmsOf(&self).Ammo), eye.X, eye.Y, eye.Z, tick,
		float64(s.place.Count), s.place.Yaw, s.place.Pitch, 0)
	return 4 * n
}

// packer writes float32s into buf from value n.
type packer struct {
	buf []byte
	n   int
}

func (w *packer) put(vs ...float64) {
	for _, v := range vs {
		binary.LittleEndian.PutUint32(w.buf[4*w.n:], math.Float32bits(float32(v)))
		w.n++
	}
}

func (w *packer) player(id, team, health int, ps game.PlayerState, p *game.Params) {
	flags := 0
	for _, f := range []struct {
		on  game.StateFlags
		bit int
	}{{game.FlagCrouched, PackCrouched}, {game.FlagDead, PackDead}, {game.FlagProtected, PackProtected}, {weapon.FlagReloading, PackReloading}, {mode.FlagCarrier, PackCarrier}} {
		if ps.Has(f.on) {
			flags |= f.bit
		}
	}
	w.put(float64(id), float64(team), float64(flags), float64(health), ps.Pos.X, ps.Pos.Y, ps.Pos.Z,
		game.AngleToRad(int32(ps.Yaw)), game.AngleToRad(int32(ps.Pitch)))
	for _, h := range game.Hitboxes(ps, p) {
		a, b := h.Shape.A, h.Shape.B
		w.put(float64(h.Kind), a.X, a.Y, a.Z, b.X, b.Y, b.Z, h.Shape.R)
	}
}
