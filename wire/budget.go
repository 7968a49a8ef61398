package wire

import (
	"math"
	"math/bits"
)

// PriorityUrgent is the priority of an entity entry that
// AppendSnapshotBudget sends whatever the budget: an entity appearing,
// leaving, teleporting or dying, which no receiver should learn late.
const PriorityUrgent = math.MaxUint32

// AppendSnapshotBudget is AppendSnapshot with a soft budget: when the
// entity entries would take the snapshot past budget bytes, it sends
// them by descending prio (slot by slot; ties go in the order the
// entries would be written) while they fit, and leaves the others out
// as AppendSnapshot leaves out what does not fit in limit, their slots
// in s set back to base's. Entries of priority PriorityUrgent are sent
// even past budget (not past limit). The caller keeps the priorities:
// in the manner of Glenn Fiedler's priority accumulator ("State
// Synchronization", gafferongames.com, 2015), an entity left out should
// gain priority until it is sent, so that none is left out for good.
// prio holds a priority a slot, at least s's slots (Snapshot.Slots).
func AppendSnapshotBudget(dst []byte, s, base *Snapshot, limit, budget int, prio []uint32) ([]byte, error) {
	if budget <= 0 || budget > limit {
		return dst, encodeError(MsgSnapshot, "budget %d outside 1 to limit %d", budget, limit)
	}
	s.sized()
	if len(prio) < s.slots {
		return dst, encodeError(MsgSnapshot, "%d priorities for %d slots", len(prio), s.slots)
	}
	return appendSnapshot(dst, s, base, limit, budget, prio)
}

// slotMask is a set of entity slots, or of rotated entry indices, a bit
// a slot of a ring.
type slotMask []uint64

func (m slotMask) set(i int)      { m[i/64] |= 1 << (i % 64) }
func (m slotMask) has(i int) bool { return m[i/64]>>(i%64)&1 != 0 }

// below returns the highest member less than i, or -1.
func (m slotMask) below(i int) int {
	for j := i / 64; j >= 0; j-- {
		w := m[j]
		if j == i/64 {
			w &= 1<<(i%64) - 1
		}
		if w != 0 {
			return j*64 + 63 - bits.LeadingZeros64(w)
		}
	}
	return -1
}

// above returns the lowest member greater than i, or -1.
func (m slotMask) above(i int) int {
	for j := (i + 1) / 64; j < len(m); j++ {
		w := m[j]
		if j == (i+1)/64 {
			w &^= 1<<((i+1)%64) - 1
		}
		if w != 0 {
			return j*64 + bits.TrailingZeros64(w)
		}
	}
	return -1
}

// wrap returns i, less than twice ring, brought below ring: no division.
func wrap(i, ring int) int {
	if i >= ring {
		return i - ring
	}
	return i
}

// stepBits returns the length of stepCode(d, sb).
func stepBits(d int, sb uint) int {
	_, n := stepCode(d, sb)
	return int(n)
}

// selectEntries removes from mask the entries of s against ref that are
// left out so that the others take at most avail bits, and sets their
// slots of s back to ref's. It takes entries by descending prio until
// the next does not fit (an urgent one always does), so that it weighs
// only the entries it sends and one more. mask holds the slots present
// in s or ref; entries are written going around the slots from first.
func selectEntries(s, ref *Snapshot, mask []uint64, first, avail int, prio []uint32) {
	ring := len(mask) * 64
	sb := slotBits(ring)
	if len(s.keys) < ring {
		s.keys = make([]uint64, ring)
	}
	keys := s.keys
	n := 0
	for at := nextSlot(mask, first); at < first+ring; at = nextSlot(mask, at+1) {
		k, i := at-first, at
		if i >= ring {
			i -= ring
		}
		if in := s.Has(i); in == ref.Has(i) && (!in || sameEntity(&s.Entities[i], &ref.Entities[i])) {
			continue // no entry
		}
		// Highest priority first, then the order of writing.
		keys[n] = uint64(prio[i])<<32 | uint64(ring-1-k)
		n++
	}
	// A max-heap hands out the keys in descending order, and only as
	// many as are taken and one more need ordering: cheaper than sorting
	// them all when the budget takes a part of them.
	heap := keys[:n]
	for j := n/2 - 1; j >= 0; j-- {
		siftDown(heap, j)
	}
	var chosenWords [MaxSlots / 64]uint64
	chosen := slotMask(chosenWords[:ring/64]) // rotated indices
	used := 0
	for len(heap) > 0 {
		key := heap[0]
		last := len(heap) - 1
		heap[0], heap[last] = heap[last], key
		heap = heap[:last]
		siftDown(heap, 0)
		p, k := uint32(key>>32), ring-1-int(uint32(key))
		// What taking k adds: its entry and slot code, and the change in
		// the code of the entry after it.
		d := entryBits(s, ref, wrap(k+first, ring))
		switch lo, hi := chosen.below(k), chosen.above(k); {
		case lo < 0 && hi < 0:
			d += int(sb)
		case lo < 0:
			d += stepBits(hi-k, sb) // k takes over the first entry's slot number
		case hi < 0:
			d += stepBits(k-lo, sb)
		default:
			d += stepBits(k-lo, sb) + stepBits(hi-k, sb) - stepBits(hi-lo, sb)
		}
		if used+d > avail && p != PriorityUrgent {
			break
		}
		chosen.set(k)
		used += d
	}
	for j := range n { // every key, taken or not
		k := ring - 1 - int(uint32(keys[j]))
		if chosen.has(k) {
			continue
		}
		i := wrap(k+first, ring)
		mask[i/64] &^= 1 << (i % 64)
		if ref.Has(i) {
			s.SetPresent(i, true)
			s.Entities[i] = ref.Entities[i]
		} else {
			s.SetPresent(i, false)
			s.Entities[i] = EntityState{}
		}
	}
}

// siftDown restores the max-heap order of h below node j.
func siftDown(h []uint64, j int) {
	for {
		c := 2*j + 1
		if c >= len(h) {
			return
		}
		if c+1 < len(h) && h[c+1] > h[c] {
			c++
		}
		if h[j] >= h[c] {
			return
		}
		h[j], h[c] = h[c], h[j]
		j = c
	}
}

// entryBits returns the bits of slot i's entry in s against ref, its
// slot code aside.
func entryBits(s, ref *Snapshot, i int) int {
	b := wordWriter{count: true}
	var from EntityState
	if ref.Has(i) {
		from = ref.Entities[i]
		b.put(0, 1)
	}
	if s.Has(i) {
		putEntity(&b, &s.Entities[i], &from, s.Tick)
		if s.HealthToAll {
			b.put(healthCode(&s.Entities[i], &from))
		}
	}
	return b.pos()
}
