package wire

import (
	"math"
	"time"

	"github.com/lagkit/lagkit/game"
)

// readStep reads a distance written by stepCode for slots of sb bits.
func readStep(r *bitReader, sb uint) int {
	if r.readBool() {
		return 1
	}
	if r.readBool() {
		return int(r.readBits(3)) + 2
	}
	return int(r.readBits(sb))
}

// SnapshotTick returns the tick of the snapshot in b without decoding the
// rest, so that a receiver can drop a stale snapshot unread, or decode a
// new one straight into the place it keeps it.
func SnapshotTick(b []byte) (uint32, error) {
	r := newReader(b, MsgSnapshot)
	tick := uint32(r.readBits(32))
	return tick, r.err
}

// DecodeSnapshot decodes datagram b into s, sized for the session's
// slots (SetSlots; MaxEntities if nothing sized it): an entry for a slot
// beyond them is an error, as is a baseline of other slots. If b is delta
// encoded,
// DecodeSnapshot calls baseline with the baseline's tick and decodes
// against the snapshot it returns (which may be s itself); nil means the
// baseline is unknown, an error.
//
// Event Data alias b: copy them before reusing b. s.Events' storage is
// reused. Apart from growing it, DecodeSnapshot does not allocate. On error
// s holds a partial result.
func DecodeSnapshot(b []byte, s *Snapshot, baseline func(tick uint32) *Snapshot) error {
	s.sized()
	r := newReader(b, MsgSnapshot)
	tick := uint32(r.readBits(32))
	base := &emptySnapshot
	var baseTick uint32
	if r.readBool() {
		age := r.readUvarint()
		baseTick = tick - uint32(age)
		switch {
		case r.err != nil:
		case age > math.MaxUint32:
			r.failf("baseline age out of range")
		case baseTick == 0:
			r.failf("baseline 0")
		case baseline != nil:
			switch base = baseline(baseTick); {
			case base == nil:
				r.failf("unknown baseline %d", baseTick)
			case base.Tick != baseTick:
				r.failf("baseline %d: got snapshot of tick %d", baseTick, base.Tick)
			}
		default:
			r.failf("unknown baseline %d", baseTick)
		}
	}
	if r.err != nil {
		return r.err
	}
	if base != &emptySnapshot && base.slots != s.slots {
		r.failf("baseline %d of %d slots, want %d", baseTick, base.slots, s.slots)
		return r.err
	}
	// Copy the baseline's state first: base may be s.
	s.Self = base.Self
	copy(s.Present, base.Present)
	settleEntities(s, base.Entities)
	// The game state sent to others needs the baseline's presence after
	// the entries have changed s's. s.held, which only settleEntities
	// reads, keeps it until settle marks s settled again.
	basePresent := s.held
	if entriesOf(s.Game) {
		copy(basePresent, base.Present)
	}
	s.Tick = tick
	s.Baseline = baseTick
	// The header's counters and clock are changes from the baseline's
	// (base may be s: each reads its old value before it is replaced).
	s.LastCmd = base.LastCmd + readCounterChange(&r, "last command")
	if d := unzigzag(r.readUvarint()); r.err == nil {
		us := int64(micros(base.EchoClientTime)) + d
		if us < 0 || us > int64(MaxClock/time.Microsecond) || d > int64(MaxClock/time.Microsecond) || d < -int64(MaxClock/time.Microsecond) {
			r.failf("echo client time out of range")
		}
		s.EchoClientTime = time.Duration(us) * time.Microsecond
	}
	s.EchoHold = r.readMicros(MaxDelay, "echo hold")
	s.FirstEventSeq = base.FirstEventSeq + readCounterChange(&r, "first event")
	if !decodeWords || !readSelfWords(&r, &s.Self) {
		readSelf(&r, &s.Self, "self")
	}

	n := int(r.readBits(eventCountBits))
	if n > MaxEvents {
		r.failf("%d events exceed %d", n, MaxEvents)
	}
	s.Events = s.Events[:0]
	next := uint64(0) // the least offset from FirstEventSeq the next event may have
	for i := 0; i < n && r.err == nil; i++ {
		gap := r.readUvarint()
		if gap >= MaxEventWindow || next+gap >= MaxEventWindow {
			r.failf("event %d: sequence number %d or more past the first", i, MaxEventWindow)
		}
		seq := s.FirstEventSeq + uint32(next+gap)
		next += gap + 1
		kind := r.readUvarint()
		if kind > math.MaxUint16 {
			r.failf("event %d: kind out of range", i)
		}
		size := int(r.readBits(8))
		r.align()
		s.Events = append(s.Events, Event{Seq: seq, Kind: uint16(kind), Data: r.readAligned(size)})
	}

	n = int(r.readBits(countBits(len(s.Entities))))
	if n > s.slots {
		r.failf("%d entity entries exceed %d slots", n, s.slots)
	}
	readEntries(&r, s, n, tick)
	if r.err == nil {
		readGame(&r, s, base, basePresent)
	}
	if err := r.finish(); err != nil {
		s.settled = false // a partial result: clear it all next time
		return err
	}
	s.settle()
	return nil
}

// decodeWords makes DecodeSnapshot read Self and the entity entries
// through a word where it can; the tests turn it off to check that the
// word reading, errors and partial results included, is the reading
// field by field.
var decodeWords = true

// readEntries reads n entity entries of a snapshot of tick into s: those
// that decode cleanly through a word (readEntryWords), then, from the
// first that does not (bad input, or one that reaches past the end), the
// rest one field at a time, which names what is wrong.
func readEntries(r *bitReader, s *Snapshot, n int, tick uint32) {
	var k, i, dist int
	if r.err == nil && decodeWords {
		k, i, dist = readEntriesWords(r, s, n, tick)
	}
	ring := len(s.Entities)
	sb := slotBits(ring)
	for ; k < n && r.err == nil; k++ {
		if k == 0 {
			i = int(r.readBits(sb))
		} else {
			d := readStep(r, sb)
			dist += d
			if d == 0 || dist >= ring {
				r.failf("entity entries go around the slots more than once")
				break
			}
			i = wrap(i+d, ring)
		}
		if i >= s.slots && r.err == nil {
			r.failf("entity slot %d beyond the %d slots", i, s.slots)
			break
		}
		e := &s.Entities[i]
		if s.Has(i) && r.readBool() {
			s.SetPresent(i, false)
			*e = EntityState{}
			continue
		}
		s.SetPresent(i, true)
		readEntity(r, e, i, tick)
		if s.HealthToAll && r.readBool() {
			e.Health = int16(r.readBits(16))
		}
	}
}

// readEntriesWords reads entity entries of a snapshot of tick into s
// through a word (see refillWord), from entry 0 on, while they decode
// cleanly, and returns how many it read, the slot of the last and the
// distance from the first to it. r is left at the first entry not read.
func readEntriesWords(r *bitReader, s *Snapshot, n int, tick uint32) (k, i, dist int) {
	b := r.b
	// The slices in locals: stores through them do not make the
	// compiler load them again from s. ents holds the session's slots
	// alone: a slot beyond them fails its bounds test.
	present, ents, health := s.Present, s.Entities[:s.slots], s.HealthToAll
	ring := len(s.Entities)
	sb := slotBits(ring)
	acc, fill, at := wordAt(b, r.pos)
	for ; k < n; k++ {
		r.pos = at*8 - int(fill) // where the field by field reading goes on
		if fill < 2+sb+1 {       // the longest step code and the removed bit
			acc, fill, at = refillWord(b, acc, fill, at)
		}
		var slot, d int
		switch {
		case k == 0:
			slot, acc, fill = int(acc&(1<<sb-1)), acc>>sb, fill-sb
		case acc&1 != 0: // the next slot, the usual step
			d, acc, fill = 1, acc>>1, fill-1
		case acc&2 != 0:
			d, acc, fill = int(acc>>2&7)+2, acc>>5, fill-5
		default:
			d, acc, fill = int(acc>>2&(1<<sb-1)), acc>>(2+sb), fill-(2+sb)
		}
		if k != 0 {
			if d == 0 || dist+d >= ring {
				return k, i, dist
			}
			slot = wrap(i+d, ring)
		}
		if uint(slot) >= uint(len(ents)) {
			return k, i, dist
		}
		word, bit := &present[uint(slot)/64], uint64(1)<<(uint(slot)%64)
		if *word&bit != 0 {
			removed := acc&1 != 0
			acc, fill = acc>>1, fill-1
			if removed {
				if at*8-int(fill) > len(b)*8 {
					return k, i, dist
				}
				*word &^= bit
				ents[slot] = EntityState{}
				i, dist = slot, dist+d
				continue
			}
		}
		var ok bool
		if acc, fill, at, ok = readEntityWords(b, acc, fill, at, &ents[slot], tick, health); !ok {
			return k, i, dist
		}
		*word |= bit
		i, dist = slot, dist+d
	}
	r.pos = at*8 - int(fill)
	return k, i, dist
}

// selfChangedBits are the widths of Self's fields after its angles,
// each coded by changedCode: Flags, Teleport, Health.
var selfChangedBits = [3]uint{8, 8, 16}

// readCounterChange reads a counter's change from its baseline's value,
// a zigzag uvarint of a change modulo 2^32; field names it in errors.
func readCounterChange(r *bitReader, field string) uint32 {
	u := r.readUvarint()
	if u > 1<<32-1 {
		r.failf("%s out of range", field)
		return 0
	}
	return uint32(int32(unzigzag(u)))
}

// readSelfWords reads a Self written by writeSelf, a delta against *p,
// into *p as readSelf does, through a word (see refillWord), and reports
// whether it did: it reads nothing if the baseline, the result or the
// input's end would make readSelf fail, for readSelf to name why.
func readSelfWords(r *bitReader, p *game.PlayerState) bool {
	ref, why := checkedSelfUnits(p)
	if why != "" || r.err != nil {
		return false
	}
	b := r.b
	acc, fill, at := wordAt(b, r.pos)
	var u [6]int64
	var bad uint64
	for j := range u {
		if fill < 30 {
			acc, fill, at = refillWord(b, acc, fill, at)
		}
		d, l := coordReads.read(acc)
		acc, fill = acc>>l, fill-l
		u[j] = ref[j] + d
		// In [0, 2*MaxCoord) once shifted; +MaxCoord goes the long way.
		bad |= uint64(u[j]+MaxCoord) &^ (2*MaxCoord - 1)
	}
	if fill < 36 {
		acc, fill, at = refillWord(b, acc, fill, at)
	}
	dyaw, l := angleReads.read(acc)
	acc, fill = acc>>l, fill-l
	dpitch, l := angleReads.read(acc)
	acc, fill = acc>>l, fill-l
	var vals [len(selfChangedBits)]uint64
	var set uint
	for j, n := range selfChangedBits {
		if fill < 17 {
			acc, fill, at = refillWord(b, acc, fill, at)
		}
		if acc&1 == 0 {
			acc, fill = acc>>1, fill-1
			continue
		}
		vals[j], set = acc>>1&(1<<n-1), set|1<<j
		acc, fill = acc>>(n+1), fill-(n+1)
	}
	pitch := int16(uint16(p.Pitch) + uint16(dpitch))
	if bad != 0 || pitch < -game.MaxPitch || pitch > game.MaxPitch || at*8-int(fill) > len(b)*8 {
		return false
	}
	r.pos = at*8 - int(fill)
	p.Pos.X = float64(u[0]) * game.PosQuantum
	p.Pos.Y = float64(u[1]) * game.PosQuantum
	p.Pos.Z = float64(u[2]) * game.PosQuantum
	p.Vel.X = float64(u[3]) * game.VelQuantum
	p.Vel.Y = float64(u[4]) * game.VelQuantum
	p.Vel.Z = float64(u[5]) * game.VelQuantum
	p.Yaw += uint16(dyaw)
	p.Pitch = pitch
	if set&1 != 0 {
		p.Flags = game.StateFlags(vals[0])
	}
	if set&2 != 0 {
		p.Teleport = uint8(vals[1])
	}
	if set&4 != 0 {
		p.Health = int16(vals[2])
	}
	return true
}

// readEntityWords reads an entity state written by putEntity (and its
// healthCode when health is set), a delta against *e, from the word acc
// holding fill bits of b up to byte at (see refillWord), and returns the
// word after it. Only if the state is in range and within b does it
// keep it in *e and return true; otherwise *e is left as it was.
func readEntityWords(b []byte, acc uint64, fill uint, at int, e *EntityState, tick uint32, health bool) (uint64, uint, int, bool) {
	// Each field goes to *e as it is read, few values held at once; was
	// puts *e back when the state is refused.
	was := *e
	// bad gathers the coordinates shifted into [0, 2*MaxCoord): any bit
	// above is one out of range (+MaxCoord itself goes the long way).
	var bad uint64
	var d int64
	var l uint
	// Each coordinate's word is refilled when its longest code (30
	// bits) may not fit.
	if fill < 30 {
		acc, fill, at = refillWord(b, acc, fill, at)
	}
	d, l = coordReads.read(acc)
	acc, fill = acc>>l, fill-l
	bad |= addCoord(&e.X, d)
	if fill < 30 {
		acc, fill, at = refillWord(b, acc, fill, at)
	}
	d, l = coordReads.read(acc)
	acc, fill = acc>>l, fill-l
	bad |= addCoord(&e.Y, d)
	if fill < 30 {
		acc, fill, at = refillWord(b, acc, fill, at)
	}
	d, l = coordReads.read(acc)
	acc, fill = acc>>l, fill-l
	bad |= addCoord(&e.Z, d)
	if fill < 54 { // yaw, pitch, flags and teleport
		acc, fill, at = refillWord(b, acc, fill, at)
	}
	d, l = angleReads.read(acc)
	acc, fill = acc>>l, fill-l
	e.Yaw += uint16(d)
	d, l = angleReads.read(acc)
	acc, fill = acc>>l, fill-l
	pitch := int16(uint16(e.Pitch) + uint16(d))
	e.Pitch = pitch
	if acc&1 != 0 {
		e.Flags, acc, fill = game.StateFlags(acc>>1), acc>>9, fill-9
	} else {
		acc, fill = acc>>1, fill-1
	}
	if acc&1 != 0 {
		e.Teleport, acc, fill = uint8(acc>>1), acc>>9, fill-9
	} else {
		acc, fill = acc>>1, fill-1
	}
	if fill < 30 {
		acc, fill, at = refillWord(b, acc, fill, at)
	}
	d, l = coordReads.read(acc)
	acc, fill = acc>>l, fill-l
	bad |= addCoord(&e.VX, d)
	if fill < 30 {
		acc, fill, at = refillWord(b, acc, fill, at)
	}
	d, l = coordReads.read(acc)
	acc, fill = acc>>l, fill-l
	bad |= addCoord(&e.VY, d)
	if fill < 30 {
		acc, fill, at = refillWord(b, acc, fill, at)
	}
	d, l = coordReads.read(acc)
	acc, fill = acc>>l, fill-l
	bad |= addCoord(&e.VZ, d)
	if fill < 34 {
		acc, fill, at = refillWord(b, acc, fill, at)
	}
	switch {
	case acc&1 == 0:
		e.Stamp, acc, fill = tick, acc>>1, fill-1
	case acc&2 == 0:
		acc, fill = acc>>2, fill-2
	default:
		e.Stamp, acc, fill = uint32(acc>>2), acc>>34, fill-34
	}
	if health {
		if fill < 17 {
			acc, fill, at = refillWord(b, acc, fill, at)
		}
		if acc&1 != 0 {
			e.Health, acc, fill = int16(acc>>1), acc>>17, fill-17
		} else {
			acc, fill = acc>>1, fill-1
		}
	}
	if bad&^(2*MaxCoord-1) != 0 || pitch < -game.MaxPitch || pitch > game.MaxPitch || at*8-int(fill) > len(b)*8 {
		*e = was
		return acc, fill, at, false
	}
	return acc, fill, at, true
}

// addCoord adds d to *c and returns the sum shifted by MaxCoord, which
// lies in [0, 2*MaxCoord) for a sum in range.
func addCoord(c *int32, d int64) uint64 {
	v := int64(*c) + d
	*c = int32(v)
	return uint64(v + MaxCoord)
}

// readCoord reads a delta against ref and checks the result.
func readCoord(r *bitReader, ref int64) (int64, bool) {
	v := ref + r.readBucketed(coordBuckets)
	return v, v >= -MaxCoord && v <= MaxCoord
}

// readSelf reads a delta against *p into *p; field names the state in
// errors.
func readSelf(r *bitReader, p *game.PlayerState, field string) {
	// A baseline checkSelf rejects would let its bad fields through
	// unchanged.
	ref, why := checkedSelfUnits(p)
	if why != "" {
		r.failf("baseline %s %s", field, why)
		return
	}
	var u [6]int64
	for i := range u {
		var ok bool
		if u[i], ok = readCoord(r, ref[i]); !ok {
			r.failf("%s position or velocity out of range", field)
			return
		}
	}
	p.Pos.X = float64(u[0]) * game.PosQuantum
	p.Pos.Y = float64(u[1]) * game.PosQuantum
	p.Pos.Z = float64(u[2]) * game.PosQuantum
	p.Vel.X = float64(u[3]) * game.VelQuantum
	p.Vel.Y = float64(u[4]) * game.VelQuantum
	p.Vel.Z = float64(u[5]) * game.VelQuantum
	p.Yaw = readAngle(r, p.Yaw)
	{
		p.Pitch = int16(readAngle(r, uint16(p.Pitch)))
		if p.Pitch < -game.MaxPitch || p.Pitch > game.MaxPitch {
			r.failf("%s pitch out of range", field)
		}
	}
	if r.readBool() {
		p.Flags = game.StateFlags(r.readBits(8))
	}
	if r.readBool() {
		p.Teleport = uint8(r.readBits(8))
	}
	if r.readBool() {
		p.Health = int16(r.readBits(16))
	}
}

// readEntity reads a delta against *e into *e, the state of slot i in
// a snapshot of tick.
func readEntity(r *bitReader, e *EntityState, i int, tick uint32) {
	var c [3]int64
	for j, ref := range [...]int32{e.X, e.Y, e.Z} {
		var ok bool
		if c[j], ok = readCoord(r, int64(ref)); !ok {
			r.failf("entity %d: position out of range", i)
			return
		}
	}
	e.X, e.Y, e.Z = int32(c[0]), int32(c[1]), int32(c[2])
	e.Yaw = readAngle(r, e.Yaw)
	{
		e.Pitch = int16(readAngle(r, uint16(e.Pitch)))
		if e.Pitch < -game.MaxPitch || e.Pitch > game.MaxPitch {
			r.failf("entity %d: pitch out of range", i)
		}
	}
	if r.readBool() {
		e.Flags = game.StateFlags(r.readBits(8))
	}
	if r.readBool() {
		e.Teleport = uint8(r.readBits(8))
	}
	for j, v := range [...]*int32{&e.VX, &e.VY, &e.VZ} {
		c, ok := readCoord(r, int64(*v))
		if !ok {
			r.failf("entity %d: velocity %d out of range", i, j)
			return
		}
		*v = int32(c)
	}
	switch {
	case !r.readBool():
		e.Stamp = tick
	case r.readBool():
		e.Stamp = uint32(r.readBits(32))
	}
}

// errorf records an error in r and returns it.
func errorf(r *bitReader, format string, args ...any) error {
	r.failf(format, args...)
	return r.err
}
