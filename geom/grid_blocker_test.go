package geom

import (
	"math/rand/v2"
	"testing"
)

// TestSegmentBlockerIsSegmentBlocked: SegmentBlocker answers as
// SegmentBlocked does, and the box it names is indexed and meets the
// segment, so that testing that box alone (SegmentAABB) proves a later
// segment blocked.
func TestSegmentBlockerIsSegmentBlocked(t *testing.T) {
	boxes := testMap(5)
	for _, cell := range gridCellSizes {
		g := NewGrid(boxes, cell)
		rng := rand.New(rand.NewPCG(16, uint64(cell*1e4)))
		for trial := range gridTrials {
			a, b := randPoint(rng), randPoint(rng)
			if trial%3 == 0 {
				b = a.AddScaled(randDir(rng), 10*rng.Float64())
			}
			if trial%50 == 0 {
				b = a
			}
			box, got := g.SegmentBlocker(a, b)
			if want := g.SegmentBlocked(a, b); got != want {
				t.Fatalf("cell %v, trial %d: SegmentBlocker(%v, %v) = %v, SegmentBlocked %v", cell, trial, a, b, got, want)
			}
			switch {
			case !got && box != -1:
				t.Fatalf("cell %v, trial %d: unblocked, yet box %d", cell, trial, box)
			case got && !(indexable(boxes[box]) && SegmentAABB(a, b, boxes[box])):
				t.Fatalf("cell %v, trial %d: box %d %v does not block %v to %v", cell, trial, box, boxes[box], a, b)
			}
		}
	}
	var empty *Grid
	if box, ok := empty.SegmentBlocker(V(0, 0, 0), V(1, 1, 1)); ok || box != -1 {
		t.Errorf("nil grid: %d %v", box, ok)
	}
}
