package wire

import (
	"math/bits"

	"github.com/lagkit/lagkit/game"
)

// A game's own values (game.Values) follow the entity entries when a
// snapshot carries any (Snapshot.Values > 0; lagkit's own game carries
// none, and its snapshots are as they were):
//
//	Self.Values[0..Values) | value entry count 9 | value entry...
//
// each value the wrapped difference from the baseline's in a bucket code
// (valueBuckets), and a value entry, written for each present entity
// whose values differ from what the receiver holds (the baseline's, zero
// for an entity the baseline lacks), its slot (the first as 8 bits,
// each later one as its distance from the previous one, stepCode) and
// its Values values. Unchanged values cost a bit each in Self and
// nothing for an entity, as change bits do in the rest of the snapshot.

// valueBuckets are the zigzag widths of a value's difference from the
// baseline's: 0 unchanged (1 bit); 5 within ±16 (7 bits), a stamina bar
// filling tick by tick; 16 any (18 bits).
var valueBuckets = []uint{0, 5, 16}

// valueBits is the most bits a value takes.
const valueBits = 18

// valuesReserve is the room the values of s may need beyond their
// entries: Self's values and the entry count.
func valuesReserve(s *Snapshot) int {
	if s.Values == 0 {
		return 0
	}
	return s.Values*valueBits + entityCountBits
}

// checkValues returns why s's values cannot be sent, or "".
func checkValues(s *Snapshot) string {
	if s.Values < 0 || s.Values > game.MaxValues {
		return "values count out of range"
	}
	for k := s.Values; k < game.MaxValues; k++ {
		if s.Self.Values[k] != 0 {
			return "self value beyond the snapshot's Values set"
		}
	}
	if s.Values == 0 || s.Values == game.MaxValues {
		return ""
	}
	for j, word := range s.Present {
		for ; word != 0; word &= word - 1 {
			v := &s.EntityValues[j*64+bits.TrailingZeros64(word)]
			for k := s.Values; k < game.MaxValues; k++ {
				if v[k] != 0 {
					return "entity value beyond the snapshot's Values set"
				}
			}
		}
	}
	return ""
}

// sameValues reports whether the first n values of a and b agree.
func sameValues(a, b *game.Values, n int) bool {
	for k := range n {
		if a[k] != b[k] {
			return false
		}
	}
	return true
}

// writeValues writes the values of s against ref, once s's presence is
// final. A value entry that would take w past bit end is left out, and
// its entity's values in s set back to what the receiver holds. Absent
// slots' values are zeroed.
func writeValues(w *bitWriter, s, ref *Snapshot, end int) {
	n := s.Values
	for k := range n {
		w.writeBucketed(int64(s.Self.Values[k]-ref.Self.Values[k]), valueBuckets)
	}
	countAt := w.pos()
	w.writeBits(0, entityCountBits)
	count, prev := 0, 0
	var zero game.Values
	for j, word := range s.Present {
		for ; word != 0; word &= word - 1 {
			i := j*64 + bits.TrailingZeros64(word)
			from := &zero
			if ref.Has(i) {
				from = &ref.EntityValues[i]
			}
			v := &s.EntityValues[i]
			if sameValues(v, from, n) {
				continue
			}
			mark := w.pos()
			if count == 0 {
				w.writeBits(uint64(i), slotBits)
			} else {
				w.writeBits(stepCode(i - prev))
			}
			for k := range n {
				w.writeBucketed(int64(v[k]-from[k]), valueBuckets)
			}
			if w.pos() > end {
				w.truncate(mark)
				*v = *from
				continue
			}
			count++
			prev = i
		}
	}
	w.patch(countAt, uint64(count), entityCountBits)
	for j, word := range s.Present {
		for m := ^word; m != 0; m &= m - 1 {
			s.EntityValues[j*64+bits.TrailingZeros64(m)] = zero
		}
	}
}

// readValues reads the values of a snapshot into s, decoded against
// base, whose entities' presence was basePresent (base may be s).
func readValues(r *bitReader, s, base *Snapshot, basePresent *[MaxEntities / 64]uint64) {
	n := s.Values
	for k := range n {
		s.Self.Values[k] += int16(r.readBucketed(valueBuckets))
	}
	for j := range s.Present {
		word, was := s.Present[j], basePresent[j]
		for b := range 64 {
			i := j*64 + b
			switch {
			case word>>b&1 == 0 || was>>b&1 == 0:
				s.EntityValues[i] = game.Values{}
			case base != s:
				s.EntityValues[i] = base.EntityValues[i]
			}
		}
	}
	count := int(r.readBits(entityCountBits))
	if count > MaxEntities {
		r.failf("%d value entries exceed %d", count, MaxEntities)
	}
	i := 0
	for e := 0; e < count && r.err == nil; e++ {
		if e == 0 {
			i = int(r.readBits(slotBits))
		} else {
			d := readStep(r)
			if d == 0 || i+d >= MaxEntities {
				r.failf("value entries out of slot order")
				break
			}
			i += d
		}
		if !s.Has(i) {
			r.failf("values for entity %d, which is absent", i)
			break
		}
		v := &s.EntityValues[i]
		for k := range n {
			v[k] += int16(r.readBucketed(valueBuckets))
		}
	}
}
