package geom

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestQuickRayRejectsOnlyMisses checks the first test of the grid's walks
// against the exact ones: over rays and segments that start inside,
// on and around boxes, run along their faces and graze their edges, at
// map scale and far from it, a box quickRay rejects is one rayBox and
// segmentBox miss. Were it otherwise, Raycast and SegmentBlocked would
// answer differently from testing every box.
func TestQuickRayRejectsOnlyMisses(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 7))
	rejected := 0
	for trial := range 200000 {
		scale := []float64{1, 1e-6, 1e6, 1e11}[trial%4]
		b := Box(randPoint(rng).Scale(scale), randPoint(rng).Scale(scale))
		o := randPoint(rng).Scale(scale)
		switch rng.IntN(4) {
		case 0: // on a face or a corner of the box
			o = V([]float64{b.Min.X, b.Max.X}[rng.IntN(2)], o.Y, []float64{b.Min.Z, b.Max.Z}[rng.IntN(2)])
		case 1: // inside
			o = b.Min.Lerp(b.Max, rng.Float64())
		}
		d := randDir(rng)
		if rng.IntN(3) == 0 { // aimed at a corner: grazing edges
			d = V(b.Max.X, b.Min.Y, b.Max.Z).Sub(o)
			if d == (Vec3{}) {
				continue
			}
		}
		tMax := []float64{1, 0, math.Inf(1), 40 * scale * rng.Float64()}[rng.IntN(4)]
		q := newQuickRay(o, d)
		if !q.misses(&b, tMax) {
			continue
		}
		rejected++
		if _, _, hit := rayBox(Ray{o, d}, tMax, b); hit {
			t.Fatalf("trial %d: quickRay rejects box %v for the ray from %v along %v within %v, which hits it", trial, b, o, d, tMax)
		}
		if tMax == 1 && segmentBox(o, d, b) {
			t.Fatalf("trial %d: quickRay rejects box %v for the segment from %v to %v, which meets it", trial, b, o, o.Add(d))
		}
	}
	if rejected < 50000 {
		t.Fatalf("quickRay rejected only %d boxes: the test checks little", rejected)
	}
}
