package wire

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// decodeBothWays decodes b into a copy of into twice, with and without
// reading Self and the entries through a word, and fails unless both give the same
// error and the same snapshot, partial results included. It returns the
// snapshot and the error.
func decodeBothWays(t *testing.T, b []byte, into, base *Snapshot) (*Snapshot, error) {
	t.Helper()
	var got [2]Snapshot
	var errs [2]error
	for k, words := range []bool{true, false} {
		decodeWords = words
		got[k] = *cloneSnapshot(into)
		errs[k] = DecodeSnapshot(b, &got[k], baselineOf(base))
	}
	decodeWords = true
	if (errs[0] == nil) != (errs[1] == nil) || errs[0] != nil && errs[0].Error() != errs[1].Error() {
		t.Fatalf("through a word: %v; field by field: %v", errs[0], errs[1])
	}
	if d := diffSnapshot(&got[0], &got[1]); d != "" || !slices.Equal(got[0].held, got[1].held) || got[0].settled != got[1].settled {
		t.Fatalf("through a word and field by field the snapshots differ (error %v): %s", errs[0], d)
	}
	return &got[0], errs[0]
}

// TestDecodeWordsMatchFields checks the word reading of Self and the
// entity entries against reading them field by field, on snapshots cut short at every
// length, with bits flipped and with bytes overwritten: every error and
// every partial result must be the same.
func TestDecodeWordsMatchFields(t *testing.T) {
	decoded, failed := 0, 0
	for seed := range uint64(16) {
		rng := rand.New(rand.NewPCG(seed, 17))
		base := randSnapshot(rng, 1+rng.Uint32N(1000))
		if _, err := AppendSnapshot(nil, base, nil, MaxDatagram); err != nil {
			t.Fatal(err)
		}
		s := randNext(rng, base)
		b, err := AppendSnapshot(nil, s, base, MaxDatagram)
		if err != nil {
			t.Fatal(err)
		}
		// Into an empty snapshot and into one that held another.
		for _, into := range []*Snapshot{{}, base} {
			if _, err := decodeBothWays(t, b, into, base); err != nil {
				t.Fatalf("seed %d: the encoded snapshot does not decode: %v", seed, err)
			}
			for n := range len(b) {
				if _, err := decodeBothWays(t, b[:n], into, base); err == nil {
					t.Fatalf("seed %d: cut to %d of %d bytes: no error", seed, n, len(b))
				}
			}
			for range 200 {
				c := append([]byte(nil), b...)
				if rng.IntN(2) == 0 {
					bit := 8 + rng.IntN(len(c)*8-8)
					c[bit/8] ^= 1 << (bit % 8)
				} else {
					c[1+rng.IntN(len(c)-1)] = byte(rng.Uint32())
				}
				if _, err := decodeBothWays(t, c, into, base); err == nil {
					decoded++
				} else {
					failed++
				}
			}
		}
	}
	// Both outcomes must have been tried.
	if decoded == 0 || failed == 0 {
		t.Fatalf("%d altered snapshots decoded, %d failed", decoded, failed)
	}
}

// BenchmarkDecodeSnapshot12 decodes the snapshot of a 12-player match,
// a client's load in the bots' matches, into a snapshot that held
// another, as a client's ring does.
func BenchmarkDecodeSnapshot12(b *testing.B) {
	base := walkers12(1000)
	s := walkers12(1006)
	s.Baseline = base.Tick
	data, err := AppendSnapshot(nil, s, base, MaxDatagram)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := AppendSnapshot(nil, base, nil, MaxDatagram); err != nil {
		b.Fatal(err)
	}
	var ring [2]Snapshot
	bl := baselineOf(base)
	b.ReportAllocs()
	k := 0
	for b.Loop() {
		k ^= 1
		if err := DecodeSnapshot(data, &ring[k], bl); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(data)), "bytes/snapshot")
}
