package wire

import (
	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
)

// A TracerEvent lets a client draw another player's hitscan shot, hit or
// miss, which its snapshots do not show. Its layout:
//
//	TracerEvent: Shooter 8 | Weapon 8 | From.X From.Y From.Z | To.X To.Y To.Z
//
// Positions are in game.PosQuantum units in the bucket code of positions
// (coordBuckets).

// EventTracer is the kind of a TracerEvent, sent to the clients near a
// shot by a server that shows tracers. It only serves drawing: a server
// may leave any out.
const EventTracer uint16 = 12

// TracerEvent tells of one pellet of a hitscan shot: Shooter fired it
// with loadout slot Weapon from its eye From, and the ray stopped at To
// (a box, the ground, the end of its range or the map, or the player it
// hit).
type TracerEvent struct {
	Shooter uint8
	Weapon  uint8
	// From and To lie on the game.PosQuantum grid.
	From, To geom.Vec3
}

const tracerName = "tracer event"

// AppendTracerEvent appends the encoding of e to dst, for an Event of
// kind EventTracer. e.From and e.To must lie on the game.PosQuantum grid
// within ±MaxCoord units. On error, dst is unchanged.
func AppendTracerEvent(dst []byte, e *TracerEvent) ([]byte, error) {
	from, ok := quantizeVec(e.From, game.PosQuantum)
	if !ok {
		return dst, eventError(tracerName, "from %+v off the PosQuantum grid or out of range", e.From)
	}
	to, ok := quantizeVec(e.To, game.PosQuantum)
	if !ok {
		return dst, eventError(tracerName, "to %+v off the PosQuantum grid or out of range", e.To)
	}
	w := bitWriter{buf: dst}
	w.writeBits(uint64(e.Shooter), 8)
	w.writeBits(uint64(e.Weapon), 8)
	writeVec(&w, from)
	writeVec(&w, to)
	return w.buf, nil
}

// DecodeTracerEvent decodes event data b into e. On error e holds a
// partial result.
func DecodeTracerEvent(b []byte, e *TracerEvent) error {
	r := newEventReader(b, tracerName)
	e.Shooter = uint8(r.readBits(8))
	e.Weapon = uint8(r.readBits(8))
	e.From = readVec(&r, game.PosQuantum, "from")
	e.To = readVec(&r, game.PosQuantum, "to")
	return r.finish()
}
