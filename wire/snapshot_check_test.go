package wire

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/lagkit/lagkit/game"
)

// TestAppendSnapshotChecksEveryState puts one state field at a time at
// and just past the ends of its range, in s or in the baseline, in a
// slot whose state changes or not, with and without a budget, and checks
// that AppendSnapshot fails exactly when checkSnapshot does, with its
// error, leaving s unchanged, and that what it encodes decodes to what
// it leaves in s. The encoder checks states as it writes them: every one
// must still be checked.
func TestAppendSnapshotChecksEveryState(t *testing.T) {
	coords := []int32{MaxCoord, MaxCoord + 1, -MaxCoord, -MaxCoord - 1, math.MaxInt32, math.MinInt32, 1 << 25}
	pitches := []int16{game.MaxPitch, game.MaxPitch + 1, -game.MaxPitch, -game.MaxPitch - 1, math.MaxInt16, math.MinInt16}
	type edit func(e *EntityState)
	var edits []edit
	for _, c := range coords {
		for f := range 6 {
			edits = append(edits, func(e *EntityState) {
				*[...]*int32{&e.X, &e.Y, &e.Z, &e.VX, &e.VY, &e.VZ}[f] = c
			})
		}
	}
	for _, p := range pitches {
		edits = append(edits, func(e *EntityState) { e.Pitch = p })
	}
	rng := rand.New(rand.NewPCG(21, 22))
	failed, encoded := 0, 0
	for k, ed := range edits {
		for variant := range 8 {
			base := Walkers(1000, true)
			s := Walkers(1006, true)
			s.Baseline = base.Tick
			slot := 1 + rng.IntN(63)
			target := s
			if variant&1 != 0 {
				target = base
			}
			if variant&2 != 0 { // unchanged: the same state in both
				s.Entities[slot] = base.Entities[slot]
			}
			ed(&target.Entities[slot])
			if variant&2 != 0 {
				ed(&s.Entities[slot])
			}
			if variant&4 != 0 && rng.IntN(2) == 0 { // present on one side only
				target.SetPresent(slot, false)
				other := s
				if target == s {
					other = base
				}
				ed(&other.Entities[slot])
			}
			var prio []uint32
			if variant&4 != 0 {
				prio = make([]uint32, MaxEntities)
			}
			_, want := checkSnapshot(s, base, MaxDatagram, true)
			before := cloneSnapshot(s)
			b, err := appendSnapshot(nil, s, base, MaxDatagram, 200, prio)
			if (err == nil) != (want == nil) || err != nil && err.Error() != want.Error() {
				t.Fatalf("edit %d variant %d slot %d: error %v, want %v", k, variant, slot, err, want)
			}
			if err != nil {
				failed++
				if d := diffSnapshot(s, before); d != "" {
					t.Fatalf("edit %d variant %d: s changed on error: %s", k, variant, d)
				}
				continue
			}
			encoded++
			got := Snapshot{Game: s.Game} // the session's
			if err := DecodeSnapshot(b, &got, baselineOf(base)); err != nil {
				t.Fatalf("edit %d variant %d: %v", k, variant, err)
			}
			if d := diffSnapshot(&got, s); d != "" {
				t.Fatalf("edit %d variant %d: decoded snapshot differs: %s", k, variant, d)
			}
		}
	}
	if failed == 0 || encoded == 0 {
		t.Fatalf("%d snapshots refused, %d encoded: both must be tried", failed, encoded)
	}
}
