package wire

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// withHealth gives s HealthToAll and each entity slot a health, as a
// server whose shape sends health to all fills a snapshot.
func withHealth(rng *rand.Rand, s *Snapshot) *Snapshot {
	s.HealthToAll = true
	for i := range s.Entities {
		if s.Has(i) || rng.IntN(8) == 0 {
			s.Entities[i].Health = int16(rng.IntN(400) - 50)
		}
	}
	return s
}

// TestSnapshotHealthToAll: with HealthToAll every entity's health goes
// to the receiver, full and delta coded, through a word and field by
// field alike, and under a budget; an unchanged health costs one bit.
func TestSnapshotHealthToAll(t *testing.T) {
	for seed := range uint64(60) {
		rng := rand.New(rand.NewPCG(seed, 5))
		base := withHealth(rng, randSnapshot(rng, 1+rng.Uint32N(1000)))
		base.Events = nil
		roundTrip(t, base, nil, MaxDatagram)
		s := randNext(rng, base)
		s.HealthToAll = true
		for i := range s.Entities {
			switch {
			case base.Has(i) && s.Has(i) && rng.IntN(2) == 0:
				s.Entities[i].Health = base.Entities[i].Health
			case s.Has(i):
				s.Entities[i].Health = int16(rng.IntN(200))
			}
		}
		keep := cloneSnapshot(s)
		b := roundTrip(t, s, base, MaxDatagram)
		got, err := decodeBothWays(t, b, &Snapshot{HealthToAll: true}, base)
		if err != nil {
			t.Fatal(err)
		}
		for i := range got.Entities {
			if got.Has(i) && got.Entities[i].Health != s.Entities[i].Health {
				t.Fatalf("seed %d: entity %d health %d, want %d", seed, i, got.Entities[i].Health, s.Entities[i].Health)
			}
		}
		prio := make([]uint32, MaxEntities)
		for i := range prio {
			prio[i] = rng.Uint32N(1000)
		}
		budgetRoundTrip(t, keep, base, 300, prio)
	}
	// One bit a present entity when nothing changed.
	base := Walkers(1000, false)
	base.HealthToAll = true
	for i := range base.Entities {
		if base.Has(i) {
			base.Entities[i].Health = 100
		}
	}
	plain := Walkers(1000, false)
	with, err := AppendSnapshot(nil, base, nil, MaxDatagram)
	if err != nil {
		t.Fatal(err)
	}
	without, err := AppendSnapshot(nil, plain, nil, MaxDatagram)
	if err != nil {
		t.Fatal(err)
	}
	if n := count(base); len(with)-len(without) > (17*n+7)/8 || len(with) <= len(without) {
		t.Errorf("%d entities with health: %d bytes, without: %d", n, len(with), len(without))
	}
}

// count returns the present entities of s.
func count(s *Snapshot) int {
	n := 0
	for i := range s.Entities {
		if s.Has(i) {
			n++
		}
	}
	return n
}

// TestSnapshotHealthWithoutFlag: an entity health in a snapshot that
// does not send health is refused, naming the entity, rather than sent
// as an entry its receiver cannot tell apart from the baseline's.
func TestSnapshotHealthWithoutFlag(t *testing.T) {
	s := Walkers(1000, false)
	s.Entities[3].Health = 80
	_, err := AppendSnapshot(nil, s, nil, MaxDatagram)
	if err == nil || !strings.Contains(err.Error(), "entity 3: health 80 in a snapshot without HealthToAll") {
		t.Errorf("error %v", err)
	}
	if _, err := AppendSnapshotBudget(nil, s, nil, MaxDatagram, 200, make([]uint32, MaxEntities)); err == nil || !strings.Contains(err.Error(), "health 80") {
		t.Errorf("budget: error %v", err)
	}
}

// TestEntityStateHealth: the state a receiver draws carries the health
// sent.
func TestEntityStateHealth(t *testing.T) {
	e := EntityState{X: 10, Health: 73}
	if st := e.State(); st.Health != 73 {
		t.Errorf("health %d", st.Health)
	}
}

// FuzzDecodeHealthSnapshot: whatever decodes as a snapshot with
// HealthToAll, through a word and field by field alike, encodes again
// and decodes to the same snapshot.
func FuzzDecodeHealthSnapshot(f *testing.F) {
	addSeeds(f, MsgSnapshot)
	base, _ := goldenSnapshots()
	base.HealthToAll = true
	if _, err := AppendSnapshot(nil, base, nil, MaxDatagram); err != nil {
		f.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	s := withHealth(rng, randNext(rng, base))
	if b, err := AppendSnapshot(nil, s, base, MaxDatagram); err == nil {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := decodeBothWays(t, b, &Snapshot{HealthToAll: true}, base)
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
		s2 := Snapshot{HealthToAll: true}
		if err := DecodeSnapshot(b2, &s2, baselineOf(base)); err != nil {
			t.Fatalf("re-encoded snapshot does not decode: %v", err)
		}
		if d := diffSnapshot(&s2, s); d != "" {
			t.Fatalf("re-encoded snapshot differs: %s", d)
		}
	})
}
