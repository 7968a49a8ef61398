package lagcomp

import (
	"math"

	"github.com/lagkit/lagkit/geom"
)

// A game's own hit volumes, for Rewinder: a Body is tested in its own
// frame, whose origin is the entity's position and whose X axis points
// along its yaw; a Rewinder turns each ray into that frame, so a Body
// is built once and shared by every entity of its kind. lagkit's own
// players keep their humanoid capsules in History and Tracer, the fast
// path that knows their shape; a Body is for everything else (a 2D
// game's circles, a crate's box, a vehicle's spheres).

// Body is what a shot can hit of an entity, in the entity's frame.
type Body interface {
	// Raycast returns the first part of the body that r (in the body's
	// frame, Dir a unit vector) enters within maxDist.
	Raycast(r geom.Ray, maxDist float64) (BodyHit, bool)
	// Reach is the radius around the body's origin that holds all of it:
	// a shot that passes further away misses without a Raycast.
	Reach() float64
}

// BodyHit is where a shot entered a body.
type BodyHit struct {
	// Part is the index of the part hit, and Damage what the body says
	// a hit there does (damage by part: a head, a crate's lid).
	Part   int
	Damage int
	// Dist is the distance along the ray, Local the point entered in the
	// body's frame.
	Dist  float64
	Local geom.Vec3
}

// Shape is one hit volume of a body, in the body's frame.
type Shape interface {
	// Raycast returns the distance at which r (Dir a unit vector) enters
	// the shape, within maxDist; a ray starting inside enters at 0.
	Raycast(r geom.Ray, maxDist float64) (float64, bool)
	// Reach is the largest distance of a point of the shape from the
	// frame's origin.
	Reach() float64
}

// Sphere is a ball of radius R centred at C.
type Sphere struct {
	C geom.Vec3
	R float64
}

// Raycast implements Shape.
func (s Sphere) Raycast(r geom.Ray, maxDist float64) (float64, bool) {
	t, _, ok := geom.RaySphere(r, maxDist, geom.Sphere{C: s.C, R: s.R})
	return t, ok
}

// Reach implements Shape.
func (s Sphere) Reach() float64 { return s.C.Len() + s.R }

// Capsule is the points within R of the segment from A to B.
type Capsule struct {
	A, B geom.Vec3
	R    float64
}

// Raycast implements Shape.
func (c Capsule) Raycast(r geom.Ray, maxDist float64) (float64, bool) {
	t, _, ok := geom.RayCapsule(r, maxDist, geom.Capsule{A: c.A, B: c.B, R: c.R})
	return t, ok
}

// Reach implements Shape.
func (c Capsule) Reach() float64 { return max(c.A.Len(), c.B.Len()) + c.R }

// Box is the box from Min to Max, its faces along the body's axes (so
// it turns with the entity's yaw).
type Box struct {
	Min, Max geom.Vec3
}

// Raycast implements Shape.
func (b Box) Raycast(r geom.Ray, maxDist float64) (float64, bool) {
	t, _, ok := geom.RayAABB(r, maxDist, geom.AABB{Min: b.Min, Max: b.Max})
	return t, ok
}

// Reach implements Shape.
func (b Box) Reach() float64 {
	x := max(math.Abs(b.Min.X), math.Abs(b.Max.X))
	y := max(math.Abs(b.Min.Y), math.Abs(b.Max.Y))
	z := max(math.Abs(b.Min.Z), math.Abs(b.Max.Z))
	return math.Sqrt(x*x + y*y + z*z)
}

// Circle is a 2D game's disc of radius R centred at (X, Y): a vertical
// cylinder of any height, so that only a ray's X and Y matter.
type Circle struct {
	X, Y, R float64
}

// Raycast implements Shape. The distance is along the ray itself (its Z
// included), from which a 2D game's rays, with Z 0, differ not at all.
func (c Circle) Raycast(r geom.Ray, maxDist float64) (float64, bool) {
	if !(c.R > 0) || !(maxDist >= 0) {
		return 0, false
	}
	mx, my := r.Origin.X-c.X, r.Origin.Y-c.Y
	if mx*mx+my*my <= c.R*c.R {
		return 0, true
	}
	dx, dy := r.Dir.X, r.Dir.Y
	a := dx*dx + dy*dy
	if a == 0 {
		return 0, false
	}
	tc := -(mx*dx + my*dy) / a
	if !(tc >= 0) {
		return 0, false
	}
	lx, ly := mx+dx*tc, my+dy*tc
	disc := c.R*c.R - (lx*lx + ly*ly)
	if !(disc >= 0) {
		return 0, false
	}
	t := max(tc-math.Sqrt(disc/a), 0)
	return t, t <= maxDist
}

// Reach implements Shape. A circle reaches infinitely far up and down;
// its reach is that of its disc, which a Rewinder's broad phase tests in
// the plane, as it does Circle itself.
func (c Circle) Reach() float64 { return math.Hypot(c.X, c.Y) + c.R }

// Part is one shape of a Parts body and the damage a hit on it does.
type Part struct {
	Shape  Shape
	Damage int
}

// Parts is a body made of shapes: a hit is on the first part the ray
// enters, the earlier part on a tie.
type Parts []Part

// Raycast implements Body.
func (ps Parts) Raycast(r geom.Ray, maxDist float64) (BodyHit, bool) {
	best, hit := BodyHit{Dist: maxDist}, false
	for i := range ps {
		if t, ok := ps[i].Shape.Raycast(r, best.Dist); ok && (!hit || t < best.Dist) {
			best, hit = BodyHit{Part: i, Damage: ps[i].Damage, Dist: t}, true
		}
	}
	if !hit {
		return BodyHit{}, false
	}
	best.Local = r.At(best.Dist)
	return best, true
}

// Reach implements Body.
func (ps Parts) Reach() float64 {
	r := 0.0
	for i := range ps {
		r = max(r, ps[i].Shape.Reach())
	}
	return r
}
