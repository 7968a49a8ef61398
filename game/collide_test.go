package game

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/lagkit/lagkit/geom"
)

// firstWithin returns the first t in [0, 1] at which o + t*d is within r of
// box b, found by brute force: the distance to a convex set is convex along
// a line, so a ternary search finds its minimum and a bisection the first
// crossing before it.
func firstWithin(o, d geom.Vec3, b geom.AABB, r float64) (float64, bool) {
	dist := func(t float64) float64 { p := o.AddScaled(d, t); return p.Dist(closest(b, p)) }
	lo, hi := 0.0, 1.0
	for range 200 {
		m1, m2 := lo+(hi-lo)/3, hi-(hi-lo)/3
		if dist(m1) < dist(m2) {
			hi = m2
		} else {
			lo = m1
		}
	}
	if dist(lo) > r {
		return 0, false
	}
	a, z := 0.0, lo
	for range 200 {
		if m := (a + z) / 2; dist(m) <= r {
			z = m
		} else {
			a = m
		}
	}
	return z, true
}

// TestSweepRoundedMatchesBruteForce checks the claim behind Ericson's test
// for a moving sphere against an AABB (Real-Time Collision Detection,
// section 5.5.7): the sphere first touches the box when its centre first
// enters the box rounded by the sphere's radius, and the face, edge or
// corner region where the segment enters the expanded box says which part
// of the rounded box to intersect.
func TestSweepRoundedMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	r := 0.4 + skin
	hits := 0
	for i := range 20000 {
		c := geom.V(rng.Float64()*2-1, rng.Float64()*2-1, rng.Float64()*2-1)
		core := geom.Box(c, c.Add(geom.V(rng.Float64()*2, rng.Float64()*2, rng.Float64()*3)))
		// Starts around the box, some near a face, edge or corner.
		o := core.Center().Add(geom.V(rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()).Scale(1.5))
		d := core.Center().Add(geom.V(rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64())).Sub(o).Scale(2 * rng.Float64())
		if o.Dist(closest(core, o)) <= r {
			continue
		}
		got, n, ok := sweepRounded(o, d, core, r)
		want, wantOK := firstWithin(o, d, core, r)
		if ok != wantOK || ok && math.Abs(got-want)*d.Len() > 1e-7 {
			t.Fatalf("case %d: o=%v d=%v core=%v: got t=%v hit=%v, want t=%v hit=%v", i, o, d, core, got, ok, want, wantOK)
		}
		if !ok {
			continue
		}
		hits++
		p := o.AddScaled(d, got)
		if wantN := p.Sub(closest(core, p)).Norm(); n.Dist(wantN) > 1e-9 || d.Dot(n) >= 0 {
			t.Fatalf("case %d: normal %v, want %v, facing the motion %v", i, n, wantN, d)
		}
	}
	if hits < 5000 {
		t.Errorf("only %d of the random segments hit: the test is too weak", hits)
	}
}

func TestSweepFromContact(t *testing.T) {
	r := 0.5
	core := geom.Box(geom.V(0, 0, 0), geom.V(1, 1, 1))
	tests := []struct {
		name string
		o, d geom.Vec3
		hit  bool
		n    geom.Vec3
	}{
		{"on a face, into it", geom.V(1.5, 0.5, 0.5), geom.V(-1, 0, 0), true, geom.V(1, 0, 0)},
		{"on a face, along it", geom.V(1.5, 0.5, 0.5), geom.V(0, 1, 0), false, geom.Vec3{}},
		{"on a face, away", geom.V(1.5, 0.5, 0.5), geom.V(1, 1, 0), false, geom.Vec3{}},
		{"within the skin, into it", geom.V(1.49, 0.5, 0.5), geom.V(-0.1, 0.3, 0), true, geom.V(1, 0, 0)},
		{"on an edge, along it", geom.V(1.5, 1.5, 0.5).Sub(geom.V(0.5-0.5/math.Sqrt2, 0.5-0.5/math.Sqrt2, 0)), geom.V(0, 0, 1), false, geom.Vec3{}},
		{"inside the box, out of it", geom.V(0.9, 0.5, 0.5), geom.V(1, 0, 0), false, geom.Vec3{}},
		{"inside the box, deeper", geom.V(0.9, 0.5, 0.5), geom.V(-1, 0, 0), true, geom.V(1, 0, 0)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tt, n, ok := sweepRounded(tc.o, tc.d, core, r)
			if ok != tc.hit || ok && (tt != 0 || n.Dist(tc.n) > 1e-9) {
				t.Errorf("got t=%v n=%v hit=%v, want t=0 n=%v hit=%v", tt, n, ok, tc.n, tc.hit)
			}
		})
	}
}

func TestClearance(t *testing.T) {
	p := DefaultParams()
	boxes := room(9, 150)
	g := geom.NewGrid(boxes, 2)
	rng := rand.New(rand.NewPCG(9, 9))
	for range 2000 {
		s := PlayerState{Pos: geom.V(rng.Float64()*20-10, rng.Float64()*20-10, rng.Float64()*3)}
		if rng.IntN(2) == 0 {
			s.Flags = FlagCrouched
		}
		region := Bounds(s, &p).Expand(1)
		w := newWorld(g, region.Min, region.Max, nil)
		want, _ := minGap(s, &p, boxes)
		if want > 1 {
			continue // beyond the boxes gathered
		}
		if got := w.clearance(s.Pos, p.body(s.Has(FlagCrouched))); math.Abs(got-want) > 1e-12 {
			t.Fatalf("clearance at %+v = %v, want %v", s, got, want)
		}
	}
}
