package geom

import "math"

// Ray is a half-line from Origin along Dir. Dir should have unit length: the
// distances the ray casts report are multiples of Dir, so they are in metres
// only when Dir is a unit vector.
type Ray struct{ Origin, Dir Vec3 }

// At returns the point at distance t along the ray.
func (r Ray) At(t float64) Vec3 { return r.Origin.AddScaled(r.Dir, t) }

// valid reports whether the ray has a finite origin and a finite, non-zero
// direction, and maxDist is a usable limit.
func (r Ray) valid(maxDist float64) bool {
	return r.Origin.IsFinite() && r.Dir.IsFinite() && r.Dir != (Vec3{}) &&
		maxDist >= 0 // false for NaN
}

// Sphere is the solid ball of radius R around C.
type Sphere struct {
	C Vec3
	R float64
}

// Bounds returns the smallest box containing the sphere.
func (s Sphere) Bounds() AABB { return AABB{s.C, s.C}.Expand(s.R) }

// Capsule is the solid swept by a ball of radius R moving along the segment
// from A to B. A capsule with A == B is a sphere.
type Capsule struct {
	A, B Vec3
	R    float64
}

// Bounds returns the smallest box containing the capsule.
func (c Capsule) Bounds() AABB { return Box(c.A, c.B).Expand(c.R) }

// ClosestPointOnSegment returns the point of the segment a-b nearest to p
// (Ericson, Real-Time Collision Detection, section 5.1.2).
func ClosestPointOnSegment(a, b, p Vec3) Vec3 {
	ab := b.Sub(a)
	l2 := ab.Len2()
	if l2 == 0 {
		return a
	}
	t := p.Sub(a).Dot(ab) / l2
	return a.AddScaled(ab, math.Max(0, math.Min(1, t)))
}

// RayAABB intersects the ray with box b and returns the distance to the
// first point of the box within maxDist and the outward normal of the face
// hit there. A ray starting inside or on the box hits at distance 0 with
// normal -Dir. It returns ok == false on a miss and for a ray with a NaN or
// infinite component, a zero direction, or a NaN or negative maxDist.
func RayAABB(r Ray, maxDist float64, b AABB) (dist float64, normal Vec3, ok bool) {
	if !r.valid(maxDist) || hasNaN(b.Min) || hasNaN(b.Max) {
		return 0, Vec3{}, false
	}
	return rayBox(r, maxDist, b)
}

// rayBox is RayAABB for a ray and box already known to be valid.
func rayBox(r Ray, maxDist float64, b AABB) (float64, Vec3, bool) {
	if b.Contains(r.Origin) {
		return 0, back(r.Dir), true
	}
	t, axis, ok := slab(r.Origin, r.Dir, b, maxDist)
	if !ok {
		return 0, Vec3{}, false
	}
	return t, faceNormal(axis, r.Dir), true
}

// SegmentAABB reports whether the segment from a to b shares a point with
// box (both are closed: touching counts). A segment with a NaN or infinite
// end never intersects.
func SegmentAABB(a, b Vec3, box AABB) bool {
	if !a.IsFinite() || !b.IsFinite() || hasNaN(box.Min) || hasNaN(box.Max) {
		return false
	}
	return segmentBox(a, b.Sub(a), box)
}

// segmentBox is SegmentAABB for the valid segment a to a+d.
func segmentBox(a, d Vec3, box AABB) bool {
	if box.Contains(a) {
		return true
	}
	if d == (Vec3{}) {
		return false
	}
	_, _, ok := slab(a, d, box, 1)
	return ok
}

// slab returns the entry parameter t in [0, tMax] of the line o + d*t into
// box b (which must not contain o), and the axis (0, 1, 2 for X, Y, Z) whose
// face it enters through. It is the slab test of Ericson, Real-Time
// Collision Detection, section 5.3.3, ordering each slab's two planes by the
// sign of d so that an inverted box is always a miss.
func slab(o, d Vec3, b AABB, tMax float64) (t float64, axis int, ok bool) {
	os, ds := [3]float64{o.X, o.Y, o.Z}, [3]float64{d.X, d.Y, d.Z}
	los, his := [3]float64{b.Min.X, b.Min.Y, b.Min.Z}, [3]float64{b.Max.X, b.Max.Y, b.Max.Z}
	tMin := math.Inf(-1)
	axis = -1
	for i := range 3 {
		oi, di := os[i], ds[i]
		if di == 0 {
			if oi < los[i] || oi > his[i] {
				return 0, 0, false
			}
			continue
		}
		near, far := (los[i]-oi)/di, (his[i]-oi)/di
		if di < 0 {
			near, far = far, near
		}
		if near > tMin {
			tMin, axis = near, i
		}
		if far < tMax {
			tMax = far
		}
		if tMin > tMax {
			return 0, 0, false
		}
	}
	// o lies outside the box, so some non-parallel slab excludes it and its
	// entry is the positive tMin.
	if axis < 0 || tMin < 0 {
		return 0, 0, false
	}
	return tMin, axis, true
}

// comp returns component i (0, 1, 2) of v.
func comp(v Vec3, i int) float64 {
	switch i {
	case 0:
		return v.X
	case 1:
		return v.Y
	}
	return v.Z
}

// faceNormal returns the outward normal of the face on the given axis that a
// ray moving along d enters through.
func faceNormal(axis int, d Vec3) Vec3 {
	s := -math.Copysign(1, comp(d, axis))
	switch axis {
	case 0:
		return Vec3{X: s}
	case 1:
		return Vec3{Y: s}
	}
	return Vec3{Z: s}
}

func hasNaN(v Vec3) bool { return math.IsNaN(v.X) || math.IsNaN(v.Y) || math.IsNaN(v.Z) }

// RaySphere intersects the ray with s and returns the distance to the first
// point of the sphere within maxDist and the outward normal there. A ray
// starting inside or on the sphere hits at distance 0 with normal -Dir. It
// returns ok == false on a miss, for a sphere whose radius is not positive
// and finite or whose centre is not finite, and for the invalid rays
// RayAABB rejects.
func RaySphere(r Ray, maxDist float64, s Sphere) (float64, Vec3, bool) {
	if !r.valid(maxDist) || !s.C.IsFinite() || !(s.R > 0) || math.IsInf(s.R, 0) {
		return 0, Vec3{}, false
	}
	m := r.Origin.Sub(s.C)
	if m.Len2() <= s.R*s.R {
		return 0, back(r.Dir), true
	}
	t, ok := enterRound(m, r.Dir, s.R)
	if !ok || !(t <= maxDist) {
		return 0, Vec3{}, false
	}
	return t, r.At(t).Sub(s.C).Scale(1 / s.R), true
}

// RayCapsule intersects the ray with c and returns the distance to the first
// point of the capsule within maxDist and the outward normal there. A ray
// starting inside or on the capsule hits at distance 0 with normal -Dir. It
// returns ok == false on a miss, for a capsule whose radius is not positive
// and finite or whose ends are not finite, and for the invalid rays RayAABB
// rejects.
//
// The capsule is the union of a finite cylinder and the balls at its ends,
// and a ray from outside enters a union first where it first enters one of
// its parts. Entering the cylinder through an end disc means having entered
// that end's ball already, so only the cylinder's side is tested (compare
// Ericson, Real-Time Collision Detection, sections 5.3.2 and 5.3.7).
func RayCapsule(r Ray, maxDist float64, c Capsule) (float64, Vec3, bool) {
	if !r.valid(maxDist) || !c.A.IsFinite() || !c.B.IsFinite() || !(c.R > 0) || math.IsInf(c.R, 0) {
		return 0, Vec3{}, false
	}
	if r.Origin.Sub(ClosestPointOnSegment(c.A, c.B, r.Origin)).Len2() <= c.R*c.R {
		return 0, back(r.Dir), true
	}
	best, normal, hit := maxDist, Vec3{}, false
	for _, end := range [2]Vec3{c.A, c.B} {
		m := r.Origin.Sub(end)
		if t, ok := enterRound(m, r.Dir, c.R); ok && t <= best {
			best, normal, hit = t, r.At(t).Sub(end).Scale(1/c.R), true
		}
	}
	ab := c.B.Sub(c.A)
	if l2 := ab.Len2(); l2 > 0 {
		// Remove the axial parts to get a 2D ray-circle problem in the
		// plane perpendicular to the axis.
		oa := r.Origin.Sub(c.A)
		m := oa.AddScaled(ab, -oa.Dot(ab)/l2)
		d := r.Dir.AddScaled(ab, -r.Dir.Dot(ab)/l2)
		if t, ok := enterRound(m, d, c.R); ok && t <= best {
			if y := oa.AddScaled(r.Dir, t).Dot(ab); y >= 0 && y <= l2 {
				axisPoint := c.A.AddScaled(ab, y/l2)
				best, normal, hit = t, r.At(t).Sub(axisPoint).Scale(1/c.R), true
			}
		}
	}
	if !hit {
		return 0, Vec3{}, false
	}
	return best, normal, true
}

// enterRound returns the smallest t >= 0 at which m + d*t has length R, for
// m outside the radius. It uses the numerically robust form of Haines et
// al., "Precision Improvements for Ray/Sphere Intersection" (Ray Tracing
// Gems, 2019, chapter 7): the discriminant comes from the squared distance
// of the closest approach rather than from b*b - a*c, which cancels
// catastrophically for distant, small targets such as a head at 100 m.
func enterRound(m, d Vec3, R float64) (float64, bool) {
	a := d.Len2()
	if a == 0 {
		return 0, false
	}
	tc := -m.Dot(d) / a // parameter of the closest approach
	if !(tc >= 0) {
		return 0, false // moving away from a point outside, or overflow
	}
	l := m.AddScaled(d, tc)
	disc := R*R - l.Len2()
	if !(disc >= 0) {
		return 0, false
	}
	t := tc - math.Sqrt(disc/a)
	return math.Max(t, 0), true
}

// back returns the unit vector opposite d, the normal reported for a ray
// that starts inside a shape. Dividing by the largest component first keeps
// the squared length from overflowing for very long directions.
func back(d Vec3) Vec3 {
	m := math.Max(math.Abs(d.X), math.Max(math.Abs(d.Y), math.Abs(d.Z)))
	return d.Scale(-1 / m).Norm()
}
