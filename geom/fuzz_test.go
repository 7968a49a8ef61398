package geom

import (
	"math"
	"slices"
	"testing"
)

// sane reports whether every value is finite and within ±1e4, the range in
// which the fuzz targets also check accuracy and not just sanity.
func sane(fs ...float64) bool {
	for _, f := range fs {
		if !(math.Abs(f) <= 1e4) {
			return false
		}
	}
	return true
}

// checkHit checks what every ray cast promises whatever its input: a hit
// lies within [0, maxDist] and has a finite unit normal.
func checkHit(t *testing.T, shape string, r Ray, maxDist, d float64, n Vec3, ok bool) {
	t.Helper()
	if !ok {
		return
	}
	if !(d >= 0 && d <= maxDist) {
		t.Fatalf("%s: %v: dist %v outside [0, %v]", shape, r, d, maxDist)
	}
	if !n.IsFinite() || math.Abs(n.Len()-1) > 1e-9 {
		t.Fatalf("%s: %v: normal %v is not a unit vector", shape, r, n)
	}
}

// checkFirstHit checks, for a ray of unit direction, that the hit point
// lies on the shape's surface (or is the origin inside it), that the normal
// faces the ray, and that sampled points before the hit (or, on a miss,
// within maxDist) are outside. dist(p) is p's signed distance to the shape,
// negative inside.
func checkFirstHit(t *testing.T, shape string, r Ray, maxDist, d float64, n Vec3, ok bool, dist func(Vec3) float64) {
	t.Helper()
	const tol = 1e-6
	end := math.Min(maxDist, 3e4)
	if ok {
		if got := dist(r.At(d)); d > 0 && math.Abs(got) > tol || d == 0 && got > tol {
			t.Fatalf("%s: %v: hit point %v is %v from the surface", shape, r, r.At(d), got)
		}
		if d > 0 && n.Dot(r.Dir) > tol {
			t.Fatalf("%s: %v: normal %v does not face the ray", shape, r, n)
		}
		if d == 0 {
			return // started inside
		}
		end = d
	}
	for i := range 64 {
		s := end * float64(i) / 64
		if got := dist(r.At(s)); got < -tol {
			t.Fatalf("%s: %v (maxDist %v) reported %v, %v, but the point at %v is inside (%v)", shape, r, maxDist, d, ok, s, got)
		}
	}
}

func boxDist(b AABB) func(Vec3) float64 {
	return func(p Vec3) float64 {
		q := V(math.Abs(p.X-b.Center().X), math.Abs(p.Y-b.Center().Y), math.Abs(p.Z-b.Center().Z)).Sub(b.Size().Scale(0.5))
		outside := q.Max(Vec3{}).Len()
		return outside + math.Min(math.Max(q.X, math.Max(q.Y, q.Z)), 0)
	}
}

func capsuleDist(c Capsule) func(Vec3) float64 {
	return func(p Vec3) float64 { return p.Dist(ClosestPointOnSegment(c.A, c.B, p)) - c.R }
}

// FuzzRayShapes casts one ray at a box, a sphere and a capsule built from
// the same numbers and checks the results against the shapes' distance
// functions.
func FuzzRayShapes(f *testing.F) {
	f.Add(-5.0, 0.3, 0.2, 1.0, 0.05, 0.02, 100.0, -1.0, -1.0, -1.0, 1.0, 1.0, 1.0, 0.5)
	f.Add(0.0, 0.0, 10.0, 0.0, 0.0, -1.0, math.Inf(1), 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.5)
	f.Add(0.3, 0.0, -5.0, 0.0, 0.0, 1.0, 10.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.5)
	f.Add(-5.0, 0.5, 1.0, 1.0, 0.0, 0.0, 10.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.5)
	f.Add(0.0, 0.0, 0.0, 1e300, 1e300, 0.0, 1.0, -1.0, -1.0, -1.0, 1.0, 1.0, 1.0, 1e200)
	f.Fuzz(func(t *testing.T, ox, oy, oz, dx, dy, dz, maxDist, ax, ay, az, bx, by, bz, rad float64) {
		r := Ray{V(ox, oy, oz), V(dx, dy, dz)}
		a, b := V(ax, ay, az), V(bx, by, bz)
		box := Box(a, b)
		sphere := Sphere{a, rad}
		capsule := Capsule{a, b, rad}

		bd, bn, bok := RayAABB(r, maxDist, box)
		sd, sn, sok := RaySphere(r, maxDist, sphere)
		cd, cn, cok := RayCapsule(r, maxDist, capsule)
		checkHit(t, "box", r, maxDist, bd, bn, bok)
		checkHit(t, "sphere", r, maxDist, sd, sn, sok)
		checkHit(t, "capsule", r, maxDist, cd, cn, cok)
		SegmentAABB(r.Origin, r.Dir, box)

		if !sane(ox, oy, oz, dx, dy, dz, ax, ay, az, bx, by, bz, rad) || r.Dir.Len() < 1e-3 ||
			rad < 1e-2 || !(maxDist >= 0) {
			return
		}
		r.Dir = r.Dir.Norm()
		bd, bn, bok = RayAABB(r, maxDist, box)
		sd, sn, sok = RaySphere(r, maxDist, sphere)
		cd, cn, cok = RayCapsule(r, maxDist, capsule)
		checkFirstHit(t, "box", r, maxDist, bd, bn, bok, boxDist(box))
		checkFirstHit(t, "sphere", r, maxDist, sd, sn, sok, capsuleDist(Capsule{a, a, rad}))
		checkFirstHit(t, "capsule", r, maxDist, cd, cn, cok, capsuleDist(capsule))
		if pd, pn, pok := RayCapsule(r, maxDist, Capsule{a, a, rad}); pok != sok || pd != sd || pn != sn {
			t.Fatalf("%v: capsule with A == B gives %v %v %v, sphere %v %v %v", r, pd, pn, pok, sd, sn, sok)
		}
		// The segment and the ray round differently, so compare them only
		// away from the box's surface.
		end := r.At(math.Min(maxDist, 1e5))
		if bok && !SegmentAABB(r.Origin, end, box.Expand(1e-6)) {
			t.Fatalf("SegmentAABB(%v, %v, %v) misses a box RayAABB hits", r.Origin, end, box)
		}
		if !bok && SegmentAABB(r.Origin, end, box.Expand(-1e-6)) {
			t.Fatalf("SegmentAABB(%v, %v, %v) hits a box RayAABB misses", r.Origin, end, box)
		}
	})
}

// FuzzGrid checks the grid's region, ray and segment queries on the test
// map against brute force for arbitrary input and cell size.
func FuzzGrid(f *testing.F) {
	f.Add(1.0, 2.0, 1.65, 1.0, 0.6, 0.0, 100.0, 0.0)
	f.Add(-1000.0, 5.0, 1.0, 1.0, 0.0, 0.0, math.Inf(1), 1.0)
	f.Add(30.0, 30.0, 10.0, 0.0, 0.0, -1.0, 20.0, 0.3)
	f.Add(10.0, 10.0, 1.0, 0.0, 1.0, 0.0, 40.0, 1e-9)
	boxes := testMap(14)
	f.Fuzz(func(t *testing.T, ox, oy, oz, dx, dy, dz, maxDist, cell float64) {
		g := NewGrid(boxes, cell)
		r := Ray{V(ox, oy, oz), V(dx, dy, dz)}
		got, ok := g.Raycast(r, maxDist)
		if want, wantOK := bruteRaycast(boxes, r, maxDist); ok != wantOK || got != want {
			t.Fatalf("Raycast(%v, %v) with cell %v = %+v, %v; want %+v, %v", r, maxDist, cell, got, ok, want, wantOK)
		}
		end := r.Origin.Add(r.Dir)
		if got, want := g.SegmentBlocked(r.Origin, end), bruteSegmentBlocked(boxes, r.Origin, end); got != want {
			t.Fatalf("SegmentBlocked(%v, %v) with cell %v = %v, want %v", r.Origin, end, cell, got, want)
		}
		region := Box(r.Origin, end)
		q := g.Query(region, nil)
		slices.Sort(q)
		if want := bruteQuery(boxes, region); !slices.Equal(q, want) {
			t.Fatalf("Query(%v) with cell %v = %v, want %v", region, cell, q, want)
		}
	})
}
