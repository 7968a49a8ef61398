package wire

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// randSlots returns a random snapshot of tick sized for n slots, with
// entities present throughout them and leftovers in some absent ones.
func randSlots(rng *rand.Rand, n int, tick uint32) *Snapshot {
	s := &Snapshot{Tick: tick, LastCmd: tick, Self: randSelf(rng)}
	s.SetSlots(n)
	density := rng.Float64()
	for i := range n {
		present := rng.Float64() < density
		if present || rng.IntN(8) == 0 {
			s.Entities[i] = randEntity(rng)
		}
		s.SetPresent(i, present)
	}
	return s
}

// TestRotationStep: the step is 159 for lagkit's 256 slots, as it
// always was, and for every ring it shares no factor with the ring, so
// that the starts go through every slot.
func TestRotationStep(t *testing.T) {
	if s := rotationStep(MaxEntities); s != 159 {
		t.Errorf("rotationStep(256) = %d, want 159", s)
	}
	for ring := 64; ring <= MaxSlots; ring += 64 {
		st := rotationStep(ring)
		if gcd(st, ring) != 1 || st <= 0 || st >= ring {
			t.Fatalf("ring %d: step %d", ring, st)
		}
		if d := float64(st) - float64(ring)*0.618; d < -8 || d > 8 {
			t.Errorf("ring %d: step %d far from ring/φ", ring, st)
		}
	}
}

// TestSlotsRoundTrip: snapshots of more slots than lagkit's 256 (600
// entities and 64 players, the most a shape allows, and a count that is
// no multiple of 64) go full and delta coded, under a limit and a budget,
// through a word and field by field alike.
func TestSlotsRoundTrip(t *testing.T) {
	for _, n := range []int{664, 1000, MaxSlots, 100, 1} {
		for seed := range uint64(12) {
			rng := rand.New(rand.NewPCG(seed, uint64(n)))
			base := randSlots(rng, n, 1+rng.Uint32N(1000))
			roundTrip(t, base, nil, MaxDatagram)
			s := randSlots(rng, n, base.Tick+1+rng.Uint32N(20))
			s.Baseline = base.Tick
			for i := range n { // most entities a small move from the baseline's
				if base.Has(i) && rng.IntN(4) != 0 {
					e := base.Entities[i]
					e.X = max(-MaxCoord, min(MaxCoord, e.X+rng.Int32N(101)-50))
					s.Entities[i] = e
					s.SetPresent(i, true)
				}
			}
			keep := cloneSnapshot(s)
			b := roundTrip(t, s, base, 200+rng.IntN(MaxDatagram-200))
			into := &Snapshot{}
			into.SetSlots(n)
			if _, err := decodeBothWays(t, b, into, base); err != nil {
				t.Fatalf("%d slots, seed %d: %v", n, seed, err)
			}
			prio := make([]uint32, n)
			for i := range prio {
				prio[i] = rng.Uint32N(1 << 20)
			}
			budgetRoundTrip(t, keep, base, 150, prio)
		}
	}
}

// TestSlotsStarvationFree: with 600 moving entities and 64 players, far
// more than a snapshot holds, every entity is sent within a few dozen
// ticks: the rotation goes around the whole ring.
func TestSlotsStarvationFree(t *testing.T) {
	const n = 664
	last := make([]uint32, n)
	var base *Snapshot
	worst := uint32(0)
	for tick := uint32(1); tick <= 300; tick++ {
		s := &Snapshot{Tick: tick}
		s.SetSlots(n)
		if base != nil {
			s.Baseline = base.Tick
		}
		for i := range n {
			s.Entities[i] = EntityState{X: int32(i*1000) + int32(tick)*7, Y: int32(tick), Yaw: uint16(tick)}
			s.SetPresent(i, true)
		}
		want := cloneSnapshot(s)
		roundTrip(t, s, base, MaxDatagram)
		for i := range n {
			if s.Entities[i] == want.Entities[i] {
				last[i] = tick
			} else if tick > 20 {
				worst = max(worst, tick-last[i])
			}
		}
		base = s
	}
	if worst == 0 || worst > 40 {
		t.Errorf("an entity went %d ticks unsent", worst)
	}
}

// TestSlotsCost: lagkit's 256 slots code a slot in 8 bits and a count in
// 9, as before shapes; 4096 slots take 12 and 13: a full snapshot of one
// entity in the last slot is that much longer.
func TestSlotsCost(t *testing.T) {
	size := func(n int) int {
		s := &Snapshot{Tick: 1}
		s.SetSlots(n)
		s.Entities[n-1] = EntityState{X: 5}
		s.SetPresent(n-1, true)
		return len(roundTrip(t, s, nil, MaxDatagram)) * 8
	}
	if a, b := size(MaxEntities), size(MaxSlots); b-a < 8 || b-a > 16 {
		t.Errorf("256 slots: %d bits, 4096: %d bits", a, b)
	}
	for ring, want := range map[int][2]uint{64: {6, 7}, 256: {8, 9}, 704: {10, 10}, 4096: {12, 13}} {
		if slotBits(ring) != want[0] || countBits(ring) != want[1] {
			t.Errorf("ring %d: slot %d bits, count %d, want %v", ring, slotBits(ring), countBits(ring), want)
		}
	}
}

// TestSlotsBeyond: a slot beyond the declared count is refused by the
// encoder and the decoder, naming it, and a baseline of other slots is
// refused; SetPresent ignores such a slot.
func TestSlotsBeyond(t *testing.T) {
	s := &Snapshot{Tick: 3}
	s.SetSlots(700)
	s.Entities[680] = EntityState{X: 1}
	s.SetPresent(680, true)
	b, err := AppendSnapshot(nil, s, nil, MaxDatagram)
	if err != nil {
		t.Fatal(err)
	}
	into := &Snapshot{}
	into.SetSlots(664) // the same ring of 704
	if _, err := decodeBothWays(t, b, into, nil); err == nil || !strings.Contains(err.Error(), "entity slot 680 beyond the 664 slots") {
		t.Errorf("decode: %v", err)
	}
	small := &Snapshot{Tick: 3}
	small.SetSlots(664)
	small.SetPresent(680, true)
	if small.Has(680) {
		t.Errorf("SetPresent beyond the slots took")
	}
	small.Present[680/64] |= 1 << (680 % 64)
	if _, err := AppendSnapshot(nil, small, nil, MaxDatagram); err == nil || !strings.Contains(err.Error(), "entity slot 680 beyond the 664 slots") {
		t.Errorf("encode: %v", err)
	}
	// A baseline of 256 slots for a snapshot of 700.
	base := Walkers(1000, false)
	d := &Snapshot{Tick: 1002, Baseline: 1000}
	d.SetSlots(700)
	if _, err := AppendSnapshot(nil, d, base, MaxDatagram); err == nil || !strings.Contains(err.Error(), "base of 256 slots, snapshot of 700") {
		t.Errorf("encode against another baseline: %v", err)
	}
	d.SetSlots(MaxEntities)
	b, err = AppendSnapshot(nil, d, base, MaxDatagram)
	if err != nil {
		t.Fatal(err)
	}
	other := &Snapshot{}
	other.SetSlots(700)
	if err := DecodeSnapshot(b, other, baselineOf(base)); err == nil || !strings.Contains(err.Error(), "baseline 1000 of 256 slots, want 700") {
		t.Errorf("decode against another baseline: %v", err)
	}
}

// FuzzDecodeSlotsSnapshot: whatever decodes as a snapshot of 664 slots,
// through a word and field by field alike, encodes again and decodes to
// the same snapshot.
func FuzzDecodeSlotsSnapshot(f *testing.F) {
	rng := rand.New(rand.NewPCG(3, 4))
	base := randSlots(rng, 664, 50)
	if b, err := AppendSnapshot(nil, base, nil, MaxDatagram); err == nil {
		f.Add(b)
	}
	s := randSlots(rng, 664, 53)
	s.Baseline = 50
	if b, err := AppendSnapshot(nil, s, base, MaxDatagram); err == nil {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		into := &Snapshot{}
		into.SetSlots(664)
		s, err := decodeBothWays(t, b, into, base)
		if err != nil {
			return
		}
		var ref *Snapshot
		if s.Baseline != 0 {
			ref = base
		}
		b2, err := AppendSnapshot(nil, s, ref, MaxDatagram)
		if err != nil {
			t.Fatalf("decoded snapshot cannot be encoded: %v", err)
		}
		s2 := &Snapshot{}
		s2.SetSlots(664)
		if err := DecodeSnapshot(b2, s2, baselineOf(base)); err != nil {
			t.Fatalf("re-encoded snapshot does not decode: %v", err)
		}
		if d := diffSnapshot(s2, s); d != "" {
			t.Fatalf("re-encoded snapshot differs: %s", d)
		}
	})
}
