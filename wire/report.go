package wire

import (
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
)

// Report is a player's "I was shot behind cover" report, sent when the
// player presses the report key: the subjective SBC of the studies,
// which the server keeps beside its own account of the most recent hit
// on the player. Seen says whether the client had heard of a hit on it;
// Shooter and ShotTick then name the newest one, and SBC is what the
// client's SBC detection found for it when it arrived.
type Report struct {
	Seen     bool
	Shooter  uint8
	ShotTick uint32
	SBC      bool
}

// A Report is laid out as
//
//	Seen 1 | SBC 1 | Shooter 8 | ShotTick 32
//
// and a report of no hit seen (Seen false) carries zeros in the rest, so
// that every report has one encoding.

// AppendReport appends the encoding of m to dst. A report with Seen false
// must have its other fields zero.
func AppendReport(dst []byte, m *Report) ([]byte, error) {
	if !m.Seen && (m.Shooter != 0 || m.ShotTick != 0 || m.SBC) {
		return dst, encodeError(MsgReport, "no hit seen, but shooter %d, shot tick %d, sbc %v", m.Shooter, m.ShotTick, m.SBC)
	}
	w := bitWriter{buf: dst}
	w.writeBits(uint64(MsgReport), 8)
	w.writeBool(m.Seen)
	w.writeBool(m.SBC)
	w.writeBits(uint64(m.Shooter), 8)
	w.writeBits(uint64(m.ShotTick), 32)
	return w.buf, nil
}

// DecodeReport decodes datagram b into m.
func DecodeReport(b []byte, m *Report) error {
	r := newReader(b, MsgReport)
	m.Seen = r.readBool()
	m.SBC = r.readBool()
	m.Shooter = uint8(r.readBits(8))
	m.ShotTick = uint32(r.readBits(32))
	if r.err == nil && !m.Seen && (m.Shooter != 0 || m.ShotTick != 0 || m.SBC) {
		r.failf("no hit seen, but a shooter, shot tick or sbc set")
	}
	return r.finish()
}

// EventRewind tells the shooter and the victim of a hit what the server
// tested: a RewindEvent. A server sends it when configured to show its
// lag compensation (as Source's sv_showlagcompensation draws the rewound
// hitboxes, [source]).
const EventRewind uint16 = 10

// MaxRewind bounds RewindEvent.Rewind: a server rewinds no further than
// its pose history reaches (server.Config.MaxUnlag, at most 5 s).
const MaxRewind = 5 * time.Second

// RewindEvent is the server's account of how it judged one hit: the
// victim's pose it tested (rewound by Rewind, 0 when it tested the
// present), the victim's position at the server when it judged the shot
// (their horizontal distance is the rollback), the shooter's eye and the
// impact. The victim's hitboxes follow from Pos, Yaw and Crouched
// (game.Hitboxes).
type RewindEvent struct {
	Shooter, Victim uint8
	ShotTick        uint32
	Part            game.PartKind
	Rewind          time.Duration // whole microseconds, within [0, MaxRewind]
	Yaw             uint16
	Crouched        bool
	// Pos, Now, Eye and Impact lie on the game.PosQuantum grid within
	// ±MaxCoord units.
	Pos, Now, Eye, Impact geom.Vec3
	Outcome               Outcome
	// Parts is the number of parts of the session's bodies
	// (Shape.Parts; 0: game.NumParts), which Part must be below: not
	// sent, set at both ends before encoding and decoding.
	Parts int
}

const rewindName = "rewind event"

// The layout of a RewindEvent:
//
//	Shooter 8 | Victim 8 | ShotTick 32 | Part (see partCode) | Outcome 4 |
//	Rewind uvarint µs | Yaw 16 | Crouched 1 |
//	Pos, Now, Eye, Impact: X Y Z each in the bucket code of positions

// AppendRewindEvent appends the encoding of e to dst, for an Event of kind
// EventRewind. On error, dst is unchanged.
func AppendRewindEvent(dst []byte, e *RewindEvent) ([]byte, error) {
	if why := partError(e.Part, e.Parts); why != "" {
		return dst, eventError(rewindName, "%s", why)
	}
	if e.Outcome >= numOutcomes {
		return dst, eventError(rewindName, "outcome %d out of range", e.Outcome)
	}
	if !inRange(e.Rewind, MaxRewind) || e.Rewind%time.Microsecond != 0 {
		return dst, eventError(rewindName, "rewind %v not whole microseconds within 0 to %v", e.Rewind, MaxRewind)
	}
	var vecs [4][3]int64
	for i, v := range [...]geom.Vec3{e.Pos, e.Now, e.Eye, e.Impact} {
		var ok bool
		if vecs[i], ok = quantizeVec(v, game.PosQuantum); !ok {
			return dst, eventError(rewindName, "position %+v off the PosQuantum grid or out of range", v)
		}
	}
	w := bitWriter{buf: dst}
	w.writeBits(uint64(e.Shooter), 8)
	w.writeBits(uint64(e.Victim), 8)
	w.writeBits(uint64(e.ShotTick), 32)
	writePart(&w, e.Part)
	w.writeBits(uint64(e.Outcome), outcomeBits)
	w.writeUvarint(micros(e.Rewind))
	w.writeBits(uint64(e.Yaw), 16)
	w.writeBool(e.Crouched)
	for _, v := range vecs {
		for _, u := range v {
			w.writeBucketed(u, coordBuckets)
		}
	}
	return w.buf, nil
}

// DecodeRewindEvent decodes event data b into e. On error e holds a
// partial result.
func DecodeRewindEvent(b []byte, e *RewindEvent) error {
	r := newEventReader(b, rewindName)
	e.Shooter = uint8(r.readBits(8))
	e.Victim = uint8(r.readBits(8))
	e.ShotTick = uint32(r.readBits(32))
	e.Part = readPart(&r, e.Parts)
	e.Outcome = readOutcome(&r)
	e.Rewind = r.readMicros(MaxRewind, "rewind")
	e.Yaw = uint16(r.readBits(16))
	e.Crouched = r.readBool()
	e.Pos = readVec(&r, game.PosQuantum, "tested position")
	e.Now = readVec(&r, game.PosQuantum, "present position")
	e.Eye = readVec(&r, game.PosQuantum, "shooter eye")
	e.Impact = readVec(&r, game.PosQuantum, "impact")
	return r.finish()
}
