package wire

import (
	"math"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
)

// Projectile events let a client draw the projectiles the server
// simulates: where one was fired and how it flies, and where it ended.
// Their layouts:
//
//	ProjectileEvent: ID 32 | Owner 8 | Weapon 8 | Tick 32 |
//	                 Origin.X Origin.Y Origin.Z | Velocity.X Velocity.Y Velocity.Z
//	ExplosionEvent:  ID 32 | Tick 32 | Pos.X Pos.Y Pos.Z | Radius 16
//
// Positions are in game.PosQuantum units and velocities in
// game.VelQuantum units, each in the bucket code of positions
// (coordBuckets); Radius is in game.PosQuantum units.

// Projectile event kinds (see EventHit).
const (
	EventProjectile uint16 = 8 // ProjectileEvent, to every client
	EventExplosion  uint16 = 9 // ExplosionEvent, to every client
)

// ProjectileEvent tells of a projectile fired: it is at Origin at the
// time of server tick Tick and flies in a straight line at Velocity, until
// an ExplosionEvent with its ID or until it has flown its weapon's range.
type ProjectileEvent struct {
	ID     uint32
	Owner  uint8
	Weapon uint8 // the owner's loadout slot
	Tick   uint32
	// Origin and Velocity lie on the game.PosQuantum and game.VelQuantum
	// grids; the server simulates exactly this motion.
	Origin, Velocity geom.Vec3
}

// ExplosionEvent tells that projectile ID hit something at Pos at the time
// of server tick Tick, and exploded with Radius (0: an impact without
// splash).
type ExplosionEvent struct {
	ID     uint32
	Tick   uint32
	Pos    geom.Vec3
	Radius float64
}

// MaxExplosionRadius bounds ExplosionEvent.Radius, in metres.
const MaxExplosionRadius = (1<<radiusBits - 1) * game.PosQuantum

const (
	radiusBits     = 16
	projectileName = "projectile event"
	explosionName  = "explosion event"
)

// AppendProjectileEvent appends the encoding of e to dst, for an Event of
// kind EventProjectile. e.Origin must lie on the game.PosQuantum grid and
// e.Velocity on the game.VelQuantum grid, within ±MaxCoord units. On
// error, dst is unchanged.
func AppendProjectileEvent(dst []byte, e *ProjectileEvent) ([]byte, error) {
	origin, ok := quantizeVec(e.Origin, game.PosQuantum)
	if !ok {
		return dst, eventError(projectileName, "origin %+v off the PosQuantum grid or out of range", e.Origin)
	}
	vel, ok := quantizeVec(e.Velocity, game.VelQuantum)
	if !ok {
		return dst, eventError(projectileName, "velocity %+v off the VelQuantum grid or out of range", e.Velocity)
	}
	w := bitWriter{buf: dst}
	w.writeBits(uint64(e.ID), 32)
	w.writeBits(uint64(e.Owner), 8)
	w.writeBits(uint64(e.Weapon), 8)
	w.writeBits(uint64(e.Tick), 32)
	writeVec(&w, origin)
	writeVec(&w, vel)
	return w.buf, nil
}

// DecodeProjectileEvent decodes event data b into e. On error e holds a
// partial result.
func DecodeProjectileEvent(b []byte, e *ProjectileEvent) error {
	r := newEventReader(b, projectileName)
	e.ID = uint32(r.readBits(32))
	e.Owner = uint8(r.readBits(8))
	e.Weapon = uint8(r.readBits(8))
	e.Tick = uint32(r.readBits(32))
	e.Origin = readVec(&r, game.PosQuantum, "origin")
	e.Velocity = readVec(&r, game.VelQuantum, "velocity")
	return r.finish()
}

// AppendExplosionEvent appends the encoding of e to dst, for an Event of
// kind EventExplosion. e.Pos must lie on the game.PosQuantum grid within
// ±MaxCoord units; e.Radius is rounded to the nearest multiple of
// game.PosQuantum and must lie within [0, MaxExplosionRadius]. On error,
// dst is unchanged.
func AppendExplosionEvent(dst []byte, e *ExplosionEvent) ([]byte, error) {
	pos, ok := quantizeVec(e.Pos, game.PosQuantum)
	if !ok {
		return dst, eventError(explosionName, "position %+v off the PosQuantum grid or out of range", e.Pos)
	}
	// The negated test also rejects NaN.
	if !(e.Radius >= 0 && e.Radius <= MaxExplosionRadius) {
		return dst, eventError(explosionName, "radius %v outside 0 to %v m", e.Radius, MaxExplosionRadius)
	}
	w := bitWriter{buf: dst}
	w.writeBits(uint64(e.ID), 32)
	w.writeBits(uint64(e.Tick), 32)
	for _, u := range pos {
		w.writeBucketed(u, coordBuckets)
	}
	w.writeBits(uint64(math.Round(e.Radius/game.PosQuantum)), radiusBits)
	return w.buf, nil
}

// DecodeExplosionEvent decodes event data b into e. On error e holds a
// partial result.
func DecodeExplosionEvent(b []byte, e *ExplosionEvent) error {
	r := newEventReader(b, explosionName)
	e.ID = uint32(r.readBits(32))
	e.Tick = uint32(r.readBits(32))
	e.Pos = readVec(&r, game.PosQuantum, "position")
	e.Radius = float64(r.readBits(radiusBits)) * game.PosQuantum
	return r.finish()
}

// quantizeVec returns v in units of q, or false unless every component is
// a whole number of units within ±MaxCoord.
func quantizeVec(v geom.Vec3, q float64) ([3]int64, bool) {
	var u [3]int64
	for i, c := range [...]float64{v.X, v.Y, v.Z} {
		var ok bool
		if u[i], ok = quantize(c, q); !ok {
			return u, false
		}
	}
	return u, true
}

// writeVec writes a vector in units of quantizeVec by the bucket code of
// positions.
func writeVec(w *bitWriter, u [3]int64) {
	for _, c := range u {
		w.writeBucketed(c, coordBuckets)
	}
}

// readVec reads a vector written in units of q by the bucket code of
// positions; field names it in errors.
func readVec(r *bitReader, q float64, field string) geom.Vec3 {
	var c [3]float64
	for i := range c {
		u, ok := readCoord(r, 0)
		if !ok {
			r.failf("%s out of range", field)
		}
		c[i] = float64(u) * q
	}
	return geom.Vec3{X: c[0], Y: c[1], Z: c[2]}
}
