package geom

import (
	"math"
	"testing"
)

// near reports whether a and b agree to within tol on every axis.
func near(a, b Vec3, tol float64) bool {
	return math.Abs(a.X-b.X) <= tol && math.Abs(a.Y-b.Y) <= tol && math.Abs(a.Z-b.Z) <= tol
}

var (
	nan = math.NaN()
	inf = math.Inf(1)
)

// rayCase is one ray cast and its expected outcome; want.ok == false
// means a miss.
type rayCase struct {
	name    string
	r       Ray
	maxDist float64
	dist    float64
	normal  Vec3
	ok      bool
}

func ray(ox, oy, oz, dx, dy, dz float64) Ray {
	return Ray{V(ox, oy, oz), V(dx, dy, dz).Norm()}
}

func checkRayCases(t *testing.T, cases []rayCase, cast func(Ray, float64) (float64, Vec3, bool)) {
	t.Helper()
	for _, tc := range cases {
		d, n, ok := cast(tc.r, tc.maxDist)
		if ok != tc.ok {
			t.Errorf("%s: ok = %v, want %v (dist %v, normal %v)", tc.name, ok, tc.ok, d, n)
			continue
		}
		if !ok {
			continue
		}
		if math.Abs(d-tc.dist) > 1e-12 || !near(n, tc.normal, 1e-12) {
			t.Errorf("%s: got dist %v normal %v, want %v %v", tc.name, d, n, tc.dist, tc.normal)
		}
	}
}

func TestRayAABB(t *testing.T) {
	box := Box(V(-1, -1, -1), V(1, 1, 1))
	s2 := math.Sqrt2
	cases := []rayCase{
		{"from -X", ray(-5, 0, 0, 1, 0, 0), 100, 4, V(-1, 0, 0), true},
		{"from +X", ray(5, 0.5, 0, -1, 0, 0), 100, 4, V(1, 0, 0), true},
		{"from -Y", ray(0, -5, 0.5, 0, 1, 0), 100, 4, V(0, -1, 0), true},
		{"from +Y", ray(0.5, 5, 0, 0, -1, 0), 100, 4, V(0, 1, 0), true},
		{"from -Z", ray(0, 0, -5, 0, 0, 1), 100, 4, V(0, 0, -1), true},
		{"from +Z", ray(0, 0, 5, 0, 0, -1), 100, 4, V(0, 0, 1), true},
		{"oblique enters X face", ray(-5, -4.5, 0, 1, 1, 0), 100, 4 * s2, V(-1, 0, 0), true},
		{"oblique enters Y face", ray(-4.5, -5, 0, 1, 1, 0), 100, 4 * s2, V(0, -1, 0), true},
		{"grazing along top face", ray(-5, 0, 1, 1, 0, 0), 100, 4, V(-1, 0, 0), true},
		{"grazing an edge", ray(-5, 1, 1, 1, 0, 0), 100, 4, V(-1, 0, 0), true},
		{"just above top face", ray(-5, 0, 1.000001, 1, 0, 0), 100, 0, Vec3{}, false},
		{"passes beside", ray(-5, 2, 0, 1, 0, 0), 100, 0, Vec3{}, false},
		{"points away", ray(-5, 0, 0, -1, 0, 0), 100, 0, Vec3{}, false},
		{"passes behind origin", ray(5, 0, 0, 1, 0, 0), 100, 0, Vec3{}, false},
		{"inside", ray(0.2, 0.3, 0, 1, 0, 0), 100, 0, V(-1, 0, 0), true},
		{"on face leaving", ray(1, 0, 0, 1, 0, 0), 100, 0, V(-1, 0, 0), true},
		{"on face entering", ray(-1, 0, 0, 1, 0, 0), 100, 0, V(-1, 0, 0), true},
		{"inside with zero maxDist", ray(0, 0, 0, 0, 0, 1), 0, 0, V(0, 0, -1), true},
		{"exactly at maxDist", ray(-5, 0, 0, 1, 0, 0), 4, 4, V(-1, 0, 0), true},
		{"beyond maxDist", ray(-5, 0, 0, 1, 0, 0), 3.999, 0, Vec3{}, false},
		{"infinite maxDist", ray(-5, 0, 0, 1, 0, 0), inf, 4, V(-1, 0, 0), true},
		{"NaN maxDist", ray(-5, 0, 0, 1, 0, 0), nan, 0, Vec3{}, false},
		{"negative maxDist", ray(-5, 0, 0, 1, 0, 0), -1, 0, Vec3{}, false},
		{"NaN origin", Ray{V(nan, 0, 0), V(1, 0, 0)}, 100, 0, Vec3{}, false},
		{"infinite origin", Ray{V(-inf, 0, 0), V(1, 0, 0)}, 100, 0, Vec3{}, false},
		{"NaN direction", Ray{V(-5, 0, 0), V(1, nan, 0)}, 100, 0, Vec3{}, false},
		{"zero direction", Ray{V(-5, 0, 0), Vec3{}}, 100, 0, Vec3{}, false},
	}
	checkRayCases(t, cases, func(r Ray, maxDist float64) (float64, Vec3, bool) {
		return RayAABB(r, maxDist, box)
	})

	bad := []AABB{
		{V(1, -1, -1), V(-1, 1, 1)}, // inverted on X
		{V(-1, -1, -1), V(1, nan, 1)},
	}
	for _, b := range bad {
		if d, n, ok := RayAABB(ray(-5, 0, 0, 1, 0, 0), 100, b); ok {
			t.Errorf("RayAABB(box %v) = %v, %v, true; want a miss", b, d, n)
		}
	}
}

func TestRaySphere(t *testing.T) {
	s := Sphere{V(1, 2, 3), 2}
	cases := []rayCase{
		{"from -X", ray(-9, 2, 3, 1, 0, 0), 100, 8, V(-1, 0, 0), true},
		{"from +X", ray(11, 2, 3, -1, 0, 0), 100, 8, V(1, 0, 0), true},
		{"from -Y", ray(1, -8, 3, 0, 1, 0), 100, 8, V(0, -1, 0), true},
		{"from +Y", ray(1, 12, 3, 0, -1, 0), 100, 8, V(0, 1, 0), true},
		{"from -Z", ray(1, 2, -7, 0, 0, 1), 100, 8, V(0, 0, -1), true},
		{"from +Z", ray(1, 2, 13, 0, 0, -1), 100, 8, V(0, 0, 1), true},
		// Offset 1.2 from the axis: the surface is 1.6 before the centre.
		{"off axis", ray(-9, 3.2, 3, 1, 0, 0), 100, 8.4, V(-0.8, 0.6, 0), true},
		{"tangent", ray(-9, 4, 3, 1, 0, 0), 100, 10, V(0, 1, 0), true},
		{"just outside", ray(-9, 4.000001, 3, 1, 0, 0), 100, 0, Vec3{}, false},
		{"points away", ray(-9, 2, 3, -1, 0, 0), 100, 0, Vec3{}, false},
		{"inside", ray(1.5, 2, 3, 0, 1, 0), 100, 0, V(0, -1, 0), true},
		{"on surface", ray(3, 2, 3, 1, 0, 0), 100, 0, V(-1, 0, 0), true},
		{"exactly at maxDist", ray(-9, 2, 3, 1, 0, 0), 8, 8, V(-1, 0, 0), true},
		{"beyond maxDist", ray(-9, 2, 3, 1, 0, 0), 7.999, 0, Vec3{}, false},
		{"NaN origin", Ray{V(nan, 2, 3), V(1, 0, 0)}, 100, 0, Vec3{}, false},
		{"zero direction", Ray{V(-9, 2, 3), Vec3{}}, 100, 0, Vec3{}, false},
		{"NaN maxDist", ray(-9, 2, 3, 1, 0, 0), nan, 0, Vec3{}, false},
	}
	checkRayCases(t, cases, func(r Ray, maxDist float64) (float64, Vec3, bool) {
		return RaySphere(r, maxDist, s)
	})

	for _, bad := range []Sphere{{V(0, 0, 0), 0}, {V(0, 0, 0), -1}, {V(0, 0, 0), nan}, {V(0, 0, 0), inf}, {V(nan, 0, 0), 1}} {
		if d, n, ok := RaySphere(ray(-5, 0, 0, 1, 0, 0), 100, bad); ok {
			t.Errorf("RaySphere(%v) = %v, %v, true; want a miss", bad, d, n)
		}
	}
}

// TestRaySpherePrecision checks a small target far away: a 0.1 m head at
// 1 km grazed 6 cm off centre, where b*b - a*c loses most of its digits.
func TestRaySpherePrecision(t *testing.T) {
	d, _, ok := RaySphere(ray(0, 0.06, 0, 1, 0, 0), inf, Sphere{V(1000, 0, 0), 0.1})
	if want := 1000 - 0.08; !ok || math.Abs(d-want) > 1e-9 {
		t.Fatalf("got %v, %v; want %v", d, ok, want)
	}
}

func TestRayCapsule(t *testing.T) {
	upright := Capsule{V(0, 0, 0), V(0, 0, 2), 0.5}
	cases := []rayCase{
		{"side from -X", ray(-5, 0, 1, 1, 0, 0), 100, 4.5, V(-1, 0, 0), true},
		{"side from +Y low", ray(0, 5, 0.1, 0, -1, 0), 100, 4.5, V(0, 1, 0), true},
		{"side at the segment end", ray(-5, 0, 2, 1, 0, 0), 100, 4.5, V(-1, 0, 0), true},
		{"top cap", ray(0, 0, 10, 0, 0, -1), 100, 7.5, V(0, 0, 1), true},
		{"bottom cap", ray(0, 0, -10, 0, 0, 1), 100, 9.5, V(0, 0, -1), true},
		// 0.3 above B: the cap surface is 0.4 before the axis.
		{"top cap from the side", ray(-5, 0, 2.3, 1, 0, 0), 100, 4.6, V(-0.8, 0, 0.6), true},
		{"bottom cap along the axis, off centre", ray(0.3, 0, -5, 0, 0, 1), 100, 4.6, V(0.6, 0, -0.8), true},
		{"grazing the side", ray(-5, 0.5, 1, 1, 0, 0), 100, 5, V(0, 1, 0), true},
		{"over the top", ray(-5, 0, 2.500001, 1, 0, 0), 100, 0, Vec3{}, false},
		{"beside", ray(-5, 0.6, 1, 1, 0, 0), 100, 0, Vec3{}, false},
		{"points away", ray(-5, 0, 1, -1, 0, 0), 100, 0, Vec3{}, false},
		{"inside the cylinder", ray(0.1, 0, 1, 0, 0, 1), 100, 0, V(0, 0, -1), true},
		{"inside a cap", ray(0, 0, 2.4, 1, 0, 0), 100, 0, V(-1, 0, 0), true},
		{"on the surface", ray(0.5, 0, 1, 1, 0, 0), 100, 0, V(-1, 0, 0), true},
		{"exactly at maxDist", ray(-5, 0, 1, 1, 0, 0), 4.5, 4.5, V(-1, 0, 0), true},
		{"beyond maxDist", ray(-5, 0, 1, 1, 0, 0), 4.49, 0, Vec3{}, false},
		{"NaN direction", Ray{V(-5, 0, 1), V(nan, 0, 0)}, 100, 0, Vec3{}, false},
		{"zero direction", Ray{V(-5, 0, 1), Vec3{}}, 100, 0, Vec3{}, false},
	}
	checkRayCases(t, cases, func(r Ray, maxDist float64) (float64, Vec3, bool) {
		return RayCapsule(r, maxDist, upright)
	})

	lying := Capsule{V(0, 0, 1), V(4, 0, 1), 0.25}
	checkRayCases(t, []rayCase{
		{"from above", ray(2, 0, 5, 0, 0, -1), 100, 3.75, V(0, 0, 1), true},
		{"along the axis", ray(-3, 0, 1, 1, 0, 0), 100, 2.75, V(-1, 0, 0), true},
		{"along the axis from the far end", ray(10, 0, 1, -1, 0, 0), 100, 5.75, V(1, 0, 0), true},
	}, func(r Ray, maxDist float64) (float64, Vec3, bool) {
		return RayCapsule(r, maxDist, lying)
	})

	// A capsule with A == B is the sphere around A.
	point := Capsule{V(1, 2, 3), V(1, 2, 3), 2}
	checkRayCases(t, []rayCase{
		{"sphere off axis", ray(-9, 3.2, 3, 1, 0, 0), 100, 8.4, V(-0.8, 0.6, 0), true},
		{"sphere miss", ray(-9, 4.1, 3, 1, 0, 0), 100, 0, Vec3{}, false},
	}, func(r Ray, maxDist float64) (float64, Vec3, bool) {
		return RayCapsule(r, maxDist, point)
	})

	for _, bad := range []Capsule{{V(0, 0, 0), V(0, 0, 1), 0}, {V(0, 0, 0), V(0, 0, 1), nan}, {V(0, 0, 0), V(0, inf, 1), 1}} {
		if d, n, ok := RayCapsule(ray(-5, 0, 0.5, 1, 0, 0), 100, bad); ok {
			t.Errorf("RayCapsule(%v) = %v, %v, true; want a miss", bad, d, n)
		}
	}
}

func TestSegmentAABB(t *testing.T) {
	box := Box(V(0, 0, 0), V(2, 2, 3))
	cases := []struct {
		name string
		a, b Vec3
		want bool
	}{
		{"crosses", V(-1, 1, 1), V(3, 1, 1), true},
		{"crosses diagonally", V(-1, -1, -1), V(3, 3, 4), true},
		{"starts inside", V(1, 1, 1), V(10, 10, 10), true},
		{"ends inside", V(10, 1, 1), V(1, 1, 1), true},
		{"wholly inside", V(0.5, 0.5, 0.5), V(1.5, 1.5, 1.5), true},
		{"stops short", V(-3, 1, 1), V(-0.001, 1, 1), false},
		{"ends on a face", V(-3, 1, 1), V(0, 1, 1), true},
		{"runs along a face", V(-1, 0, 1), V(3, 0, 1), true},
		{"passes over", V(-1, 1, 3.01), V(3, 1, 3.01), false},
		{"beside", V(-1, 3, 1), V(3, 3, 1), false},
		{"clips a corner", V(-1, 1, 1), V(1, -1, 1), true},
		{"misses a corner", V(-1, 0.9, 1), V(0.9, -1, 1), false},
		{"point inside", V(1, 1, 1), V(1, 1, 1), true},
		{"point outside", V(5, 1, 1), V(5, 1, 1), false},
		{"NaN end", V(-1, 1, 1), V(nan, 1, 1), false},
		{"infinite end", V(-1, 1, 1), V(inf, 1, 1), false},
	}
	for _, tc := range cases {
		if got := SegmentAABB(tc.a, tc.b, box); got != tc.want {
			t.Errorf("%s: SegmentAABB(%v, %v) = %v, want %v", tc.name, tc.a, tc.b, got, tc.want)
		}
	}
}

func TestClosestPointOnSegment(t *testing.T) {
	a, b := V(0, 0, 0), V(4, 0, 0)
	cases := []struct {
		name    string
		a, b, p Vec3
		want    Vec3
	}{
		{"interior", a, b, V(1, 3, -2), V(1, 0, 0)},
		{"before A", a, b, V(-2, 1, 0), a},
		{"after B", a, b, V(7, 0, 1), b},
		{"on the segment", a, b, V(3, 0, 0), V(3, 0, 0)},
		{"degenerate", a, a, V(3, 3, 3), a},
	}
	for _, tc := range cases {
		if got := ClosestPointOnSegment(tc.a, tc.b, tc.p); got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestBounds(t *testing.T) {
	if got, want := (Sphere{V(1, 2, 3), 0.5}).Bounds(), Box(V(0.5, 1.5, 2.5), V(1.5, 2.5, 3.5)); got != want {
		t.Errorf("Sphere.Bounds = %v, want %v", got, want)
	}
	if got, want := (Capsule{V(1, 0, 2), V(0, 3, 1), 0.5}).Bounds(), Box(V(-0.5, -0.5, 0.5), V(1.5, 3.5, 2.5)); got != want {
		t.Errorf("Capsule.Bounds = %v, want %v", got, want)
	}
}

func BenchmarkRayAABB(b *testing.B) {
	b.ReportAllocs()
	r := ray(-5, 0.3, 0.2, 1, 0.05, 0.02)
	box := Box(V(-1, -1, -1), V(1, 1, 1))
	for b.Loop() {
		RayAABB(r, 100, box)
	}
}

func BenchmarkRaySphere(b *testing.B) {
	b.ReportAllocs()
	r := ray(-5, 0.3, 0.2, 1, 0.05, 0.02)
	s := Sphere{V(0, 0, 0), 1}
	for b.Loop() {
		RaySphere(r, 100, s)
	}
}

func BenchmarkRayCapsule(b *testing.B) {
	b.ReportAllocs()
	r := ray(-5, 0.3, 0.2, 1, 0.05, 0.02)
	c := Capsule{V(0, 0, -0.5), V(0, 0, 0.5), 0.4}
	for b.Loop() {
		RayCapsule(r, 100, c)
	}
}
