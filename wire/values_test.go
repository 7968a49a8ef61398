package wire

import (
	"math/rand/v2"
	"testing"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
)

// valuesSnapshot returns a snapshot of tick with entities 3, 9 and 200
// present carrying values, and Self's stamina.
func valuesSnapshot(tick uint32, stamina int16) *Snapshot {
	s := &Snapshot{Tick: tick, Values: 2}
	s.Self = game.PlayerState{Pos: geom.V(1, 2, 0), Health: 100, Values: game.Values{stamina, 1}}
	for k, i := range []int{3, 9, 200} {
		s.SetPresent(i, true)
		s.Entities[i] = EntityFromState(game.PlayerState{Pos: game.SnapPos(geom.V(float64(i), 0, 0))})
		s.EntityValues[i] = game.Values{int16(k) * 100, -int16(tick)}
	}
	return s
}

func decodeValues(t *testing.T, b []byte, base *Snapshot) *Snapshot {
	t.Helper()
	got := &Snapshot{Values: 2}
	if err := DecodeSnapshot(b, got, func(uint32) *Snapshot { return base }); err != nil {
		t.Fatal(err)
	}
	return got
}

// TestValuesRoundTrip: a game's values reach the receiver, full and as
// deltas, for Self and entities; unchanged ones cost no entry.
func TestValuesRoundTrip(t *testing.T) {
	full := valuesSnapshot(10, 50)
	b, err := AppendSnapshot(nil, full, nil, MaxDatagram)
	if err != nil {
		t.Fatal(err)
	}
	got := decodeValues(t, b, nil)
	if got.Self.Values != full.Self.Values || got.EntityValues != full.EntityValues {
		t.Fatalf("full: self %v, entities 3 9 200 %v %v %v", got.Self.Values, got.EntityValues[3], got.EntityValues[9], got.EntityValues[200])
	}
	// The same values again: one bit each for Self, no entries.
	same := valuesSnapshot(11, 50)
	same.Baseline = 10
	for _, i := range []int{3, 9, 200} {
		same.EntityValues[i][1] = -10
	}
	withValues, err := AppendSnapshot(nil, same, full, MaxDatagram)
	if err != nil {
		t.Fatal(err)
	}
	noValues := *same
	noValues.Values, noValues.Self.Values, noValues.EntityValues = 0, game.Values{}, [MaxEntities]game.Values{}
	baseNo := *full
	baseNo.Values, baseNo.Self.Values = 0, game.Values{}
	without, err := AppendSnapshot(nil, &noValues, &baseNo, MaxDatagram)
	if err != nil {
		t.Fatal(err)
	}
	if d := len(withValues) - len(without); d > 2 {
		t.Errorf("unchanged values cost %d bytes", d)
	}
	// Changed: stamina down by 3, entity 9 removed, entity 40 added.
	next := valuesSnapshot(12, 47)
	next.Baseline = 10
	next.SetPresent(9, false)
	next.Entities[9], next.EntityValues[9] = EntityState{}, game.Values{}
	next.SetPresent(40, true)
	next.Entities[40] = EntityFromState(game.PlayerState{Pos: geom.V(4, 0, 0)})
	next.EntityValues[40] = game.Values{7, 8}
	b, err = AppendSnapshot(nil, next, full, MaxDatagram)
	if err != nil {
		t.Fatal(err)
	}
	got = decodeValues(t, b, full)
	if got.Self.Values != (game.Values{47, 1}) || got.EntityValues != next.EntityValues {
		t.Fatalf("delta: self %v, entities 3 9 40 200 %v %v %v %v", got.Self.Values, got.EntityValues[3], got.EntityValues[9], got.EntityValues[40], got.EntityValues[200])
	}
	// Decoding in place, against itself as baseline.
	inPlace := decodeValues(t, mustAppend(t, full, nil), nil)
	if err := DecodeSnapshot(b, inPlace, func(uint32) *Snapshot { return inPlace }); err != nil {
		t.Fatal(err)
	}
	if inPlace.EntityValues != next.EntityValues || inPlace.Self.Values != next.Self.Values {
		t.Fatal("in place decoding differs")
	}
}

func mustAppend(t *testing.T, s, base *Snapshot) []byte {
	t.Helper()
	b, err := AppendSnapshot(nil, s, base, MaxDatagram)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestValuesLimit: value entries that do not fit are left out, and the
// sender's snapshot keeps what the receiver will hold.
func TestValuesLimit(t *testing.T) {
	s := &Snapshot{Tick: 5, Values: 3}
	for i := range MaxEntities {
		s.SetPresent(i, true)
		s.EntityValues[i] = game.Values{int16(i) * 1000, 2, -3}
	}
	b, err := AppendSnapshot(nil, s, nil, 600)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > 600 {
		t.Fatalf("%d bytes over the limit", len(b))
	}
	got := decodeValues3(t, b)
	if got.EntityValues != s.EntityValues || got.Present != s.Present {
		t.Fatal("the sender's snapshot is not what the receiver decoded")
	}
}

func decodeValues3(t *testing.T, b []byte) *Snapshot {
	t.Helper()
	got := &Snapshot{Values: 3}
	if err := DecodeSnapshot(b, got, nil); err != nil {
		t.Fatal(err)
	}
	return got
}

func TestValuesErrors(t *testing.T) {
	s := valuesSnapshot(3, 1)
	s.Values = 1 // Self.Values[1] is set
	if _, err := AppendSnapshot(nil, s, nil, MaxDatagram); err == nil {
		t.Error("a self value beyond Values sent")
	}
	s.Values = 4
	if _, err := AppendSnapshot(nil, s, nil, MaxDatagram); err == nil {
		t.Error("Values 4 sent")
	}
	b := mustAppend(t, valuesSnapshot(3, 1), nil)
	if err := DecodeSnapshot(b, &Snapshot{}, nil); err == nil {
		t.Error("a snapshot with values decoded as one without")
	}
	if err := DecodeSnapshot(b, &Snapshot{Values: -1}, nil); err == nil {
		t.Error("Values -1 decoded")
	}
}

// randValues gives s's Self and present entities random values, the
// first n of each, about half of them changed from what they were.
func randValues(rng *rand.Rand, s *Snapshot, n int) {
	s.Values = n
	for k := range n {
		if rng.IntN(2) == 0 {
			s.Self.Values[k] = int16(rng.IntN(1<<16) - 1<<15)
		}
	}
	for i := range MaxEntities {
		if !s.Has(i) {
			s.EntityValues[i] = game.Values{}
			continue
		}
		for k := range n {
			if rng.IntN(2) == 0 {
				s.EntityValues[i][k] += int16(rng.IntN(33) - 16)
			}
		}
	}
}

// FuzzSnapshotValuesRoundTrip: random snapshots with a game's values,
// full and delta, under random limits, decode to exactly what the
// encoder left in s, values included.
func FuzzSnapshotValuesRoundTrip(f *testing.F) {
	for seed := range uint64(8) {
		f.Add(seed, uint16(MaxDatagram))
		f.Add(seed, uint16(80+seed*100))
	}
	f.Fuzz(func(t *testing.T, seed uint64, limit uint16) {
		rng := rand.New(rand.NewPCG(seed, 5))
		n := 1 + int(seed%game.MaxValues)
		base := randSnapshot(rng, 1+rng.Uint32N(1<<31))
		randValues(rng, base, n)
		lim := 1 + int(limit)%MaxDatagram
		if _, err := AppendSnapshot(nil, base, nil, lim); err != nil {
			return // limit too small for the header and self
		}
		s := randNext(rng, base)
		randValues(rng, s, n)
		b, err := AppendSnapshot(nil, s, base, lim)
		if err != nil {
			return
		}
		if len(b) > lim {
			t.Fatalf("encoded %d bytes, limit %d", len(b), lim)
		}
		got := Snapshot{Values: n}
		if err := DecodeSnapshot(b, &got, baselineOf(base)); err != nil {
			t.Fatal(err)
		}
		if d := diffSnapshot(&got, s); d != "" {
			t.Fatalf("seed %d limit %d: %s", seed, lim, d)
		}
		if got.Self.Values != s.Self.Values || got.EntityValues != s.EntityValues {
			t.Fatalf("seed %d limit %d: values differ", seed, lim)
		}
	})
}
