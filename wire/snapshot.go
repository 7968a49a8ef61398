package wire

import (
	"fmt"
	"math"
	"math/bits"
	"time"

	"github.com/lagkit/lagkit/game"
)

// A Snapshot is laid out as
//
//	Tick 32 | has baseline 1 [Tick-Baseline uvarint] | ΔLastCmd zz |
//	ΔEchoClientTime zz µs | EchoHold uvarint µs | ΔFirstEventSeq zz |
//	Self | event count 6 | event... | entity count 9 | entity...
//
// where a Δ field (zz) is the zigzag uvarint of the change from the
// baseline's value (from zero without a baseline), a counter's taken
// modulo 2^32: a snapshot's last command and first event are those of
// its baseline plus a little, and the echoed client clock the
// baseline's plus about its age, so each costs a byte or three where
// the values themselves took four or more.
//
// Self and the entities are deltas against the baseline's (against zero
// values when there is none), in the manner of Glenn Fiedler's "Snapshot
// Compression" (gafferongames.com, 2015): a position or velocity component
// is the difference from the baseline's in a bucket code (coordBuckets), so
// the usual small motion costs few bits, view angles are wrapped
// differences in another bucket code (angleBuckets), and every other field
// is a changed bit followed by the new value when set, so that an
// unchanged field costs one bit. Self is laid out as
//
//	Pos.X Pos.Y Pos.Z Vel.X Vel.Y Vel.Z | Yaw | Pitch | Flags 8 |
//	Teleport 8 | Health 16
//
// and an entity as its X Y Z | Yaw | Pitch | Flags 8 | Teleport 8 |
// VX VY VZ | Stamp (see stampCode), then, in a snapshot with
// HealthToAll, Health 16 as a changed field.
//
// An event is its Seq as a uvarint, the number of sequence numbers
// skipped since the previous event's (since FirstEventSeq for the first),
// Kind as a uvarint, len(Data) in 8 bits, zero bits up to a byte
// boundary, and Data's bytes, so that the decoder can hand out Data
// without copying.
//
// An entity entry is written only for a slot that differs from the
// baseline: its slot (the first in the bits a slot of the ring takes, 8
// for lagkit's own MaxEntities, each later one as its distance from the
// previous one, see stepCode), then, if the slot was present in
// the baseline, a removed bit, and unless removed, the state as a delta
// against the baseline's (zero for an added entity, so an added entity
// carries absolute values). Entries go around the slots once, starting at
// an offset that changes every tick (see rotationStep). The slots are the
// session's (Shape.Slots) rounded up to a multiple of 64, the ring; the
// entity count takes one bit more than a slot (9 bits for MaxEntities).

// coordBuckets are the zigzag widths of the bucket code of position and
// velocity deltas in quantum units. 0: unchanged (1 bit, the usual vertical
// delta on the ground); 9: within ±256 units, half a metre, which covers a
// player walking at 4 m/s against a baseline 100 ms old (11 bits); 16:
// within ±64 m, which also covers absolute positions on the bundled maps
// (19 bits); 27: any difference of two coordinates within ±MaxCoord.
var coordBuckets = []uint{0, 9, 16, 27}

// coordTable and angleTable are coordBuckets and angleBuckets as tables,
// for putEntity, and coordReads and angleReads for readEntityWords.
var (
	coordTable = *newBucketTable(coordBuckets)
	angleTable = *newBucketTable(angleBuckets)
	coordReads = newBucketReads(coordBuckets)
	angleReads = newBucketReads(angleBuckets)
)

const (
	eventCountBits = 6 // up to 63 >= MaxEvents
)

// rotationStep returns the step by which the slot at which
// AppendSnapshot starts handing out space advances each tick, in a ring
// of ring slots. When not all changed entities fit, the ones late in the
// order are left out; a start that moved by one slot a tick would leave
// an entity out for up to ring ticks in a row. Stepping by about ring/φ
// (the Fibonacci hashing multiplier of Knuth, TAOCP vol. 3, section 6.4)
// spreads consecutive starts evenly around the slots, so every slot soon
// falls early in the order. The step is the nearest to ring/φ with no
// factor in common with ring, so the starts cycle through every slot:
// 159 for MaxEntities.
func rotationStep(ring int) int {
	x := float64(ring) * (math.Sqrt(5) - 1) / 2
	lo := int(x)
	for d := 0; ; d++ {
		// The nearer of lo-d and lo+1+d first.
		a, b := lo+1+d, lo-d
		if x-float64(b) < float64(a)-x {
			a, b = b, a
		}
		for _, k := range [2]int{a, b} {
			if k > 0 && gcd(k, ring) == 1 {
				return k
			}
		}
	}
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// slotBits returns the bits of a slot's number in a ring of ring slots
// (a multiple of 64), and countBits those of an entry count.
func slotBits(ring int) uint  { return uint(bits.Len(uint(ring - 1))) }
func countBits(ring int) uint { return uint(bits.Len(uint(ring))) }

// SetSlots sizes s for a session of n slots (Shape.Slots; 0:
// MaxEntities), players and entities: Entities and Present hold n
// rounded up to a multiple of 64, all absent. A snapshot kept and
// reused at the same n allocates nothing after. Both ends of a session
// size their snapshots the same (AppendSnapshot and DecodeSnapshot size
// one not yet sized to MaxEntities); n outside 0 to MaxSlots counts as
// MaxEntities, which Shape.Check refuses first.
func (s *Snapshot) SetSlots(n int) {
	if n <= 0 || n > MaxSlots {
		n = MaxEntities
	}
	if s.slots == n {
		return
	}
	ring := (n + 63) &^ 63
	s.slots, s.step = n, rotationStep(ring)
	s.Entities = make([]EntityState, ring)
	s.Present = make([]uint64, ring/64)
	s.held = make([]uint64, ring/64)
	s.masks = make([]uint64, 2*ring/64)
	s.settled = false // the caller may write any slot before the encoder settles it
	if entriesOf(s.Game) {
		s.EntityGame = make([]game.State, ring)
	}
	if s.Game.SentToTeam() {
		s.Mates = make([]uint64, ring/64)
	}
}

// Slots returns the slot count s is sized for (SetSlots), 0 before.
func (s *Snapshot) Slots() int { return s.slots }

// sized sizes s to MaxEntities if nothing sized it yet.
func (s *Snapshot) sized() {
	if s.slots == 0 {
		s.SetSlots(MaxEntities)
	}
}

// emptySnapshot is the baseline of a full snapshot: nothing present, in
// a ring of any size.
var emptySnapshot = Snapshot{Entities: make([]EntityState, MaxSlots), Present: make([]uint64, MaxSlots/64), slots: MaxSlots}

// noEntity is what a receiver holds for an absent slot.
var noEntity EntityState

// Has reports whether entity slot i is present (in the world).
func (s *Snapshot) Has(i int) bool {
	j := uint(i) / 64
	return j < uint(len(s.Present)) && s.Present[j]>>(uint(i)%64)&1 != 0
}

// SetPresent marks entity slot i present or absent. It does nothing for
// i outside s's slots, all of them before s is sized (SetSlots).
func (s *Snapshot) SetPresent(i int, present bool) {
	if uint(i) >= uint(s.slots) {
		return
	}
	if present {
		s.Present[i/64] |= 1 << (i % 64)
	} else {
		s.Present[i/64] &^= 1 << (i % 64)
	}
}

// AppendSnapshot appends the encoding of s, delta encoded against base, to
// dst, using at most limit bytes (limit <= MaxDatagram). base nil encodes a
// full snapshot, and s.Baseline must then be 0; otherwise s.Baseline must
// equal base.Tick, which must not be 0. s.Self.Pos and s.Self.Vel must lie
// on the game.PosQuantum and game.VelQuantum grids within ±MaxCoord units;
// Self then decodes exactly.
//
// EchoClientTime and EchoHold are sent in whole microseconds, truncated.
// The header and Self must fit in limit. Of the rest, what does not fit is
// left out: events from the first one that does not fit on (s.Events is
// truncated to those sent), and entity updates that do not fit, whose slots
// in s are set back to base's (present or not), as the receiver will keep
// them. Entity slots start getting space at a place that moves every tick,
// so that no entity is left out for long. Absent slots of s are zeroed.
// After a successful call s is therefore exactly what DecodeSnapshot will
// decode. On error, dst and s are unchanged.
//
// AppendSnapshot does not allocate when dst has room for limit more bytes.
func AppendSnapshot(dst []byte, s, base *Snapshot, limit int) ([]byte, error) {
	return appendSnapshot(dst, s, base, limit, 0, nil)
}

// appendSnapshot is AppendSnapshot and, when prio is not nil,
// AppendSnapshotBudget.
func appendSnapshot(dst []byte, s, base *Snapshot, limit, budget int, prio []uint32) ([]byte, error) {
	s.sized()
	if base != nil {
		base.sized()
	}
	// The entities are checked as writeEntities walks them, while they
	// are at hand, unless selectEntries weighs them first. Whatever the
	// order things are found in, the error returned is checkSnapshot's.
	checked := prio != nil
	units, err := checkSnapshot(s, base, limit, checked)
	if err != nil {
		_, err = checkSnapshot(s, base, limit, true)
		return dst, err
	}
	ref := base
	if ref == nil {
		ref = &emptySnapshot
	}
	start := len(dst) * 8
	fits := func(w *bitWriter, reserve int) bool { return w.pos()-start+reserve <= limit*8 }

	w := bitWriter{buf: dst}
	ww := w.words() // the header and Self, many short fields
	ww.put(uint64(MsgSnapshot), 8)
	ww.put(uint64(s.Tick), 32)
	if base != nil {
		ww.put(1, 1)
		ww.putUvarint(uint64(s.Tick - s.Baseline))
	} else {
		ww.put(0, 1)
	}
	// The counters and the client's clock move little between a
	// snapshot and its baseline: each is its change since the
	// baseline's (since zero without one).
	ww.putUvarint(zigzag(int64(int32(s.LastCmd - ref.LastCmd))))
	ww.putUvarint(zigzag(int64(micros(s.EchoClientTime)) - int64(micros(ref.EchoClientTime))))
	ww.putUvarint(micros(s.EchoHold))
	ww.putUvarint(zigzag(int64(int32(s.FirstEventSeq - ref.FirstEventSeq))))
	putSelf(&ww, &s.Self, &ref.Self, &units[0], &units[1])
	ww.done(&w)
	ring := len(s.Entities)
	nbits := countBits(ring)
	reserve := gameReserve(s)
	if !fits(&w, eventCountBits+int(nbits)+reserve) {
		if _, err := checkSnapshot(s, base, limit, true); err != nil {
			return dst, err
		}
		return dst, encodeError(MsgSnapshot, "limit of %d bytes leaves no room after self", limit)
	}

	countAt := w.pos()
	w.writeBits(0, eventCountBits)
	n := 0
	prev := s.FirstEventSeq - 1
	for n < min(len(s.Events), MaxEvents) {
		mark := w.pos()
		ev := &s.Events[n]
		w.writeUvarint(uint64(ev.Seq - prev - 1))
		prev = ev.Seq
		w.writeUvarint(uint64(ev.Kind))
		w.writeBits(uint64(len(ev.Data)), 8)
		w.align()
		w.appendAligned(ev.Data)
		if !fits(&w, int(nbits)+reserve) {
			w.truncate(mark)
			break
		}
		n++
	}
	events := n
	w.patch(countAt, uint64(n), eventCountBits)

	countAt = w.pos()
	w.writeBits(0, nbits)
	var first int
	if ring&(ring-1) == 0 { // lagkit's 256: no division
		first = int(uint64(s.Tick) * uint64(s.step) & uint64(ring-1))
	} else {
		first = int(uint64(s.Tick) * uint64(s.step) % uint64(ring))
	}
	// Only slots present in s or in the baseline can need an entry: walk
	// their mask around from first, and zero the others in bulk.
	if len(s.masks) != 2*ring/64 {
		s.masks = make([]uint64, 2*ring/64) // a copied snapshot shares none
	}
	touched, left := s.masks[:ring/64], slotMask(s.masks[ring/64:])
	for j := range touched {
		touched[j], left[j] = s.Present[j]|ref.Present[j], 0
	}
	if prio != nil {
		selectEntries(s, ref, touched, first, budget*8-(w.pos()-start), prio)
	}
	n, bad := writeEntities(&w, s, ref, touched, first, start+limit*8-reserve, left)
	if bad != 0 && !checked {
		// Out of range, or at +MaxCoord, which the quick test leaves to
		// the exact one.
		if _, err := checkSnapshot(s, base, limit, true); err != nil {
			return dst, err
		}
	}
	w.patch(countAt, uint64(n), nbits)

	// Nothing can fail now: s becomes what the receiver will decode.
	s.EchoClientTime = s.EchoClientTime.Truncate(time.Microsecond)
	s.EchoHold = s.EchoHold.Truncate(time.Microsecond)
	s.Events = s.Events[:events]
	for j, m := range left {
		for ; m != 0; m &= m - 1 {
			i := j*64 + bits.TrailingZeros64(m)
			s.SetPresent(i, ref.Has(i))
			s.Entities[i] = ref.Entities[i] // zero when absent
		}
	}
	writeGame(&w, s, ref, start+limit*8)
	settleEntities(s, nil)
	s.settle()
	return w.buf, nil
}

// writeEntities writes the entity entries of s against ref for the slots
// in touched, going around from first, and returns their count and the
// entityBad bits of every state of s and ref in those slots. An entry
// that would take w past bit end is left out, its slot added to left.
func writeEntities(w *bitWriter, s, ref *Snapshot, touched []uint64, first, end int, left slotMask) (int, uint32) {
	ring := len(touched) * 64
	sb := slotBits(ring)
	n := 0
	var bad uint32
	// noHealth masks an entity's Health into bad where it must be zero.
	var noHealth uint32 = math.MaxUint16
	if s.HealthToAll {
		noHealth = 0
	}
	var prev int // rotated index of the last entry written
	// The entries' fields go through a word: written for every client and
	// every moving player each tick, the encoder's hot loop.
	ww := w.words()
	// Around the slots once from first: first to the end, then the start
	// up to first, each presence word's set bits in turn.
	for _, span := range [2][2]int{{first, ring}, {0, first}} {
		for j := span[0] / 64; j*64 < span[1]; j++ {
			m := touched[j]
			if lo := span[0] - j*64; lo > 0 {
				m &^= 1<<lo - 1
			}
			if hi := span[1] - j*64; hi < 64 {
				m &= 1<<hi - 1
			}
			if m == 0 {
				continue
			}
			inW, wasW := s.Present[j], ref.Present[j]
			// The word's 64 slots as arrays: one bounds check a word.
			cur, old := (*[64]EntityState)(s.Entities[j*64:]), (*[64]EntityState)(ref.Entities[j*64:])
			for ; m != 0; m &= m - 1 {
				b := bits.TrailingZeros64(m) & 63
				i := j*64 + b
				e := &cur[b]
				in, was := inW>>b&1 != 0, wasW>>b&1 != 0
				from := &noEntity // what the receiver holds for slot i
				if was {
					from = &old[b]
					bad |= entityBad(from) | uint32(uint16(from.Health))&noHealth
				}
				if in == was && sameEntity(e, from) {
					continue
				}
				if in {
					bad |= entityBad(e) | uint32(uint16(e.Health))&noHealth
				}
				k := i - first // the rotated index
				if k < 0 {
					k += ring
				}
				mark := ww.mark()
				if n == 0 {
					ww.put(uint64(i), sb)
				} else {
					ww.put(stepCode(k-prev, sb))
				}
				if was && !in {
					ww.put(1, 1)
				} else if was {
					ww.put(0, 1)
				}
				if in {
					putEntity(&ww, e, from, s.Tick)
					if s.HealthToAll {
						ww.put(healthCode(e, from))
					}
				}
				if ww.pos() > end {
					ww.reset(mark)
					left.set(i)
					continue
				}
				n++
				prev = k
			}
		}
	}
	ww.done(w)
	return n, bad
}

// nextSlot returns the first slot at or after i, counting on past the
// ring of mask's slots around to the slots before first as i plus the
// ring, whose bit is set in mask; twice the ring when there is none.
// Counting on rather than wrapping lets a loop go around the slots once
// from any start.
func nextSlot(mask []uint64, i int) int {
	ring := len(mask) * 64
	for ; i < 2*ring; i = (i | 63) + 1 {
		if m := mask[wrap(i/64, len(mask))] >> (i % 64); m != 0 {
			return i + bits.TrailingZeros64(m)
		}
	}
	return 2 * ring
}

// settleEntities zeroes every entity slot of s that is not present (of a
// settled snapshot only those that were present when it was settled: the
// others are zero already) and, unless from is nil, copies the present
// ones from from: each run of slots in one go.
func settleEntities(s *Snapshot, from []EntityState) {
	ents, held, settled := s.Entities, s.held, s.settled
	for j, word := range s.Present {
		stale := ^word
		if settled {
			stale &= held[j]
		}
		if stale != 0 {
			clearRuns(ents[j*64:(j+1)*64], stale)
		}
		if from != nil && word != 0 {
			copyRuns(ents[j*64:(j+1)*64], from[j*64:(j+1)*64], word)
		}
	}
}

// settle notes that every slot of s not present is zero.
func (s *Snapshot) settle() {
	held := s.held[:len(s.Present)]
	for j, w := range s.Present { // a few words: no call
		held[j] = w
	}
	s.settled = true
}

// clearRuns zeroes the entities of es whose bits are set in mask, each
// run of them in one go.
func clearRuns(es []EntityState, mask uint64) {
	for mask != 0 {
		i := bits.TrailingZeros64(mask)
		end := 64
		if rest := ^mask >> i; rest != 0 {
			end = i + bits.TrailingZeros64(rest)
		}
		clear(es[i:end])
		mask &^= (1<<(end-i) - 1) << i
	}
}

// copyRuns copies the entities of from whose bits are set in mask to es,
// each run of them in one go.
func copyRuns(es, from []EntityState, mask uint64) {
	for mask != 0 {
		i := bits.TrailingZeros64(mask)
		end := 64
		if rest := ^mask >> i; rest != 0 {
			end = i + bits.TrailingZeros64(rest)
		}
		copy(es[i:end], from[i:end])
		mask &^= (1<<(end-i) - 1) << i
	}
}

// checkSnapshot returns an error if AppendSnapshot cannot encode s against
// base; with entities false it leaves out the present entities' states.
// It returns too the position and velocity of s.Self and of base's (zero
// without base) in quantum units, for putSelf.
func checkSnapshot(s, base *Snapshot, limit int, entities bool) (units [2][6]int64, err error) {
	if limit <= 0 || limit > MaxDatagram {
		return units, encodeError(MsgSnapshot, "limit %d outside 1 to MaxDatagram", limit)
	}
	switch {
	case base == nil && s.Baseline != 0:
		return units, encodeError(MsgSnapshot, "baseline %d without a base snapshot", s.Baseline)
	case base != nil && s.Baseline != base.Tick:
		return units, encodeError(MsgSnapshot, "baseline %d but base is tick %d", s.Baseline, base.Tick)
	case base != nil && base.Tick == 0:
		return units, encodeError(MsgSnapshot, "base tick 0 (0 means no baseline)")
	}
	if !inRange(s.EchoClientTime, MaxClock) {
		return units, encodeError(MsgSnapshot, "echo client time %v out of range", s.EchoClientTime)
	}
	if !inRange(s.EchoHold, MaxDelay) {
		return units, encodeError(MsgSnapshot, "echo hold %v out of range", s.EchoHold)
	}
	if base != nil && base.slots != s.slots {
		return units, encodeError(MsgSnapshot, "base of %d slots, snapshot of %d", base.slots, s.slots)
	}
	if i := beyondSlots(s); i >= 0 {
		return units, encodeError(MsgSnapshot, "entity slot %d beyond the %d slots", i, s.slots)
	}
	if base != nil {
		if i := beyondSlots(base); i >= 0 {
			return units, encodeError(MsgSnapshot, "base entity slot %d beyond the %d slots", i, base.slots)
		}
	}
	var why string
	if units[0], why = checkedSelfUnits(&s.Self); why != "" {
		return units, encodeError(MsgSnapshot, "self %s", why)
	}
	for i := range s.Events {
		if n := len(s.Events[i].Data); n > MaxEventData {
			return units, encodeError(MsgSnapshot, "event %d: data of %d bytes exceeds %d", i, n, MaxEventData)
		}
		if d := s.Events[i].Seq - s.FirstEventSeq; d >= MaxEventWindow || (i > 0 && d <= s.Events[i-1].Seq-s.FirstEventSeq) {
			return units, encodeError(MsgSnapshot, "event %d: sequence number %d not after the previous one within %d of the first event sequence number %d",
				i, s.Events[i].Seq, MaxEventWindow, s.FirstEventSeq)
		}
	}
	if entities {
		if i, why := checkEntities(s, s.HealthToAll); why != "" {
			return units, encodeError(MsgSnapshot, "entity %d: %s", i, why)
		}
	}
	if base == nil {
		return units, nil
	}
	// Deltas are only bounded when both ends are in range.
	if units[1], why = checkedSelfUnits(&base.Self); why != "" {
		return units, encodeError(MsgSnapshot, "base self %s", why)
	}
	if entities {
		if i, why := checkEntities(base, s.HealthToAll); why != "" {
			return units, encodeError(MsgSnapshot, "base entity %d: %s", i, why)
		}
	}
	return units, nil
}

// beyondSlots returns the first slot of s present beyond its slot count
// (in the last word of its ring), or -1.
func beyondSlots(s *Snapshot) int {
	if s.slots%64 == 0 {
		return -1
	}
	j := s.slots / 64
	if m := s.Present[j] >> (s.slots % 64); m != 0 {
		return s.slots + bits.TrailingZeros64(m)
	}
	return -1
}

// coordOK reports whether c lies within ±MaxCoord: one unsigned compare.
func coordOK(c int32) bool { return uint32(c+MaxCoord) <= 2*MaxCoord }

// healthWhy is checkEntity's answer for a Health it may not send.
const healthWhy = "in a snapshot without HealthToAll"

// checkEntities returns the first present entity of s that checkEntity
// rejects, or that has a Health without health, and why.
func checkEntities(s *Snapshot, health bool) (int, string) {
	for j, word := range s.Present {
		for ; word != 0; word &= word - 1 {
			i := j*64 + bits.TrailingZeros64(word)
			if why := checkEntity(&s.Entities[i], health); why != "" {
				if why == healthWhy {
					why = fmt.Sprintf("health %d %s", s.Entities[i].Health, why)
				}
				return i, why
			}
		}
	}
	return 0, ""
}

// entityBad returns 0 if e's coordinates lie in [-MaxCoord, MaxCoord)
// and its pitch within ±game.MaxPitch, else bits of where they do not:
// the six coordinates shifted into [0, 2*MaxCoord) at once, and the
// sign bit of a pitch out of range. checkEntity accepts every e it
// returns 0 for, and +MaxCoord too.
func entityBad(e *EntityState) uint32 {
	return (uint32(e.X+MaxCoord)|uint32(e.Y+MaxCoord)|uint32(e.Z+MaxCoord)|
		uint32(e.VX+MaxCoord)|uint32(e.VY+MaxCoord)|uint32(e.VZ+MaxCoord))&^(2*MaxCoord-1) |
		uint32((game.MaxPitch-int32(e.Pitch))|(int32(e.Pitch)+game.MaxPitch))&(1<<31)
}

func checkEntity(e *EntityState, health bool) string {
	if e.Health != 0 && !health {
		return healthWhy // a constant: checkEntity calls nothing
	}
	// The usual case; the exact checks below name the culprit or admit
	// +MaxCoord.
	if entityBad(e) == 0 {
		return ""
	}
	if !coordOK(e.X) || !coordOK(e.Y) || !coordOK(e.Z) {
		return "position out of range"
	}
	if !coordOK(e.VX) || !coordOK(e.VY) || !coordOK(e.VZ) {
		return "velocity out of range"
	}
	if e.Pitch < -game.MaxPitch || e.Pitch > game.MaxPitch {
		return "pitch out of range"
	}
	return ""
}

// quantize returns v in units of q, or false if v is not a whole number of
// units within ±MaxCoord.
func quantize(v, q float64) (int64, bool) {
	u := v / q
	if u != math.Trunc(u) || math.Abs(u) > MaxCoord {
		return 0, false
	}
	return int64(u), true
}

// selfUnits returns p's position and velocity in quantum units.
func selfUnits(p *game.PlayerState) (u [6]int64, why string) {
	for i, v := range [...]float64{p.Pos.X, p.Pos.Y, p.Pos.Z} {
		var ok bool
		if u[i], ok = quantize(v, game.PosQuantum); !ok {
			return u, "position off the PosQuantum grid or out of range"
		}
	}
	for i, v := range [...]float64{p.Vel.X, p.Vel.Y, p.Vel.Z} {
		var ok bool
		if u[3+i], ok = quantize(v, game.VelQuantum); !ok {
			return u, "velocity off the VelQuantum grid or out of range"
		}
	}
	return u, ""
}

// checkSelf returns why writeSelf cannot encode p exactly, or "".
func checkSelf(p *game.PlayerState) string {
	_, why := checkedSelfUnits(p)
	return why
}

// checkedSelfUnits returns p's position and velocity in quantum units
// and checkSelf's answer.
func checkedSelfUnits(p *game.PlayerState) ([6]int64, string) {
	u, why := selfUnits(p)
	switch {
	case why != "":
	case p.Pitch < -game.MaxPitch || p.Pitch > game.MaxPitch:
		why = "pitch out of range"
	}
	return u, why
}

// angleBuckets are the zigzag widths of the bucket code of view angle
// deltas, taken modulo a full turn: 0: unchanged (1 bit); 9: within ±256
// units (1.4 degrees, a player turning at 90 degrees a second at 64 Hz; 11
// bits); 16: any other angle (18 bits).
var angleBuckets = []uint{0, 9, 16}

// readAngle reads an angle written as its wrapped difference from ref,
// in the angleBuckets code.
func readAngle(r *bitReader, ref uint16) uint16 {
	return ref + uint16(int16(r.readBucketed(angleBuckets)))
}

// changedCode returns whether v differs from ref and, if so, v in n bits
// (n < 64): its bits and their count.
func changedCode(v, ref uint64, n uint) (uint64, uint) {
	if v == ref {
		return 0, 1
	}
	return 1 | (v&(1<<n-1))<<1, n + 1
}

// writeSelf writes p, which checkSelf accepts, as a delta against ref.
func writeSelf(w *bitWriter, p, ref *game.PlayerState) {
	u, _ := selfUnits(p)
	r, _ := selfUnits(ref)
	ww := w.words()
	putSelf(&ww, p, ref, &u, &r)
	ww.done(w)
}

// putSelf is writeSelf through a word, given the position and velocity
// of p and ref in quantum units (selfUnits).
func putSelf(ww *wordWriter, p, ref *game.PlayerState, u, r *[6]int64) {
	for i := range u {
		ww.put(coordTable.code(u[i] - r[i]))
	}
	ww.put(angleTable.code(int64(int16(p.Yaw - ref.Yaw))))
	ww.put(angleTable.code(int64(int16(uint16(p.Pitch) - uint16(ref.Pitch)))))
	ww.put(changedCode(uint64(p.Flags), uint64(ref.Flags), 8))
	ww.put(changedCode(uint64(p.Teleport), uint64(ref.Teleport), 8))
	ww.put(changedCode(uint64(uint16(p.Health)), uint64(uint16(ref.Health)), 16))
}

// putEntity adds e, as a delta against ref, to b, in a snapshot of
// tick.
func putEntity(b *wordWriter, e, ref *EntityState, tick uint32) {
	// The fields gather in a word held in a register, which goes to b
	// only when full. They come in groups that fit 64 bits whatever
	// their codes (a coordinate's takes at most 30 bits, an angle's 18, a
	// changed field's 9, the stamp's 34), each gathered in one step; the
	// masks tell the compiler that no shift reaches 64.
	var v uint64
	var n uint
	cx, lx := coordTable.code(int64(e.X) - int64(ref.X))
	cy, ly := coordTable.code(int64(e.Y) - int64(ref.Y))
	v, n = b.gather(v, n, cx|cy<<(lx&63), lx+ly)
	cz, lz := coordTable.code(int64(e.Z) - int64(ref.Z))
	cyaw, lyaw := angleTable.code(int64(int16(e.Yaw - ref.Yaw)))
	v, n = b.gather(v, n, cz|cyaw<<(lz&63), lz+lyaw)
	cp, lp := angleTable.code(int64(int16(uint16(e.Pitch) - uint16(ref.Pitch))))
	cf, lf := changedCode(uint64(e.Flags), uint64(ref.Flags), 8)
	ct, lt := changedCode(uint64(e.Teleport), uint64(ref.Teleport), 8)
	v, n = b.gather(v, n, cp|cf<<(lp&63)|ct<<((lp+lf)&63), lp+lf+lt)
	cvx, lvx := coordTable.code(int64(e.VX) - int64(ref.VX))
	cvy, lvy := coordTable.code(int64(e.VY) - int64(ref.VY))
	v, n = b.gather(v, n, cvx|cvy<<(lvx&63), lvx+lvy)
	cvz, lvz := coordTable.code(int64(e.VZ) - int64(ref.VZ))
	cs, ls := stampCode(e.Stamp, ref.Stamp, tick)
	v, n = b.gather(v, n, cvz|cs<<(lvz&63), lvz+ls)
	b.put(v, n)
}

// sameEntity reports whether a and b are equal, field by field: with
// Health the struct has no padding, and == would call the runtime's
// memory compare for each entity the encoder weighs.
func sameEntity(a, b *EntityState) bool {
	return a.X == b.X && a.Y == b.Y && a.Z == b.Z && a.VX == b.VX && a.VY == b.VY && a.VZ == b.VZ &&
		a.Yaw == b.Yaw && a.Pitch == b.Pitch && a.Flags == b.Flags && a.Teleport == b.Teleport &&
		a.Health == b.Health && a.Stamp == b.Stamp
}

// healthCode returns the bits and bit count of e's Health against
// ref's, in an entry of a snapshot with HealthToAll.
func healthCode(e, ref *EntityState) (uint64, uint) {
	return changedCode(uint64(uint16(e.Health)), uint64(uint16(ref.Health)), 16)
}

// stampCode returns the bits and bit count of stamp in an entry of a
// snapshot of tick against ref: a 0 bit for the snapshot's own tick, as
// a state sent fresh carries; 1 then 0 for ref's; else 1, 1 and the 32
// bits.
func stampCode(stamp, ref, tick uint32) (uint64, uint) {
	switch stamp {
	case tick:
		return 0, 1
	case ref:
		return 0b01, 2
	}
	return 0b11 | uint64(stamp)<<2, 34
}

// stepCode returns the bits and bit count of the distance d (1 to the
// ring's slots less one) from one entity entry's slot to the next in a
// ring whose slots take sb bits: "1" for the next slot, as when every
// player moves, "01" and 3 bits for 2 to 9, "00" and sb bits otherwise.
func stepCode(d int, sb uint) (uint64, uint) {
	switch {
	case d == 1:
		return 1, 1
	case d <= 9:
		return 0b10 | uint64(d-2)<<2, 5
	default:
		return uint64(d) << 2, 2 + sb
	}
}
