package timewarp

import (
	"math"

	"github.com/lagkit/lagkit/geom"
)

// ReachMargin widens the box around the players a re-simulation stepped
// again, against rounding.
const ReachMargin = 0.01

// Path is the box around the segment a projectile flew through a tick
// without contact, or Full: the flight ended (a contact, its range, its
// owner gone) and is looked at in full.
type Path struct {
	Lo, Hi geom.Vec3
	Full   bool
}

// PathOf returns the path of a flight along ray, seg long; full: it
// ended.
func PathOf(ray geom.Ray, seg float64, full bool) Path {
	if full {
		return Path{Full: true}
	}
	a, b := ray.Origin, ray.Origin.AddScaled(ray.Dir, seg)
	return Path{
		Lo: geom.Vec3{X: min(a.X, b.X), Y: min(a.Y, b.Y), Z: min(a.Z, b.Z)},
		Hi: geom.Vec3{X: max(a.X, b.X), Y: max(a.Y, b.Y), Z: max(a.Z, b.Z)},
	}
}

// Reach is the box around the hitboxes of the players a re-simulated
// tick stepped again (or whose damage changed): what may have come in
// the way of anything else. The zero value holds nobody.
type Reach struct {
	box geom.AABB
	ok  bool
}

// Clear empties the box.
func (r *Reach) Clear() { r.ok = false }

// Empty reports whether the box holds nobody.
func (r *Reach) Empty() bool { return !r.ok }

// Add grows the box to hold a sphere of radius rad about centre (a
// player's hitboxes, bounded), widened by ReachMargin.
func (r *Reach) Add(centre geom.Vec3, rad float64) {
	m := rad + ReachMargin
	b := geom.AABB{Min: centre.Sub(geom.Vec3{X: m, Y: m, Z: m}), Max: centre.Add(geom.Vec3{X: m, Y: m, Z: m})}
	if r.ok {
		b.Min = geom.Vec3{X: min(b.Min.X, r.box.Min.X), Y: min(b.Min.Y, r.box.Min.Y), Z: min(b.Min.Z, r.box.Min.Z)}
		b.Max = geom.Vec3{X: max(b.Max.X, r.box.Max.X), Y: max(b.Max.Y, r.box.Max.Y), Z: max(b.Max.Z, r.box.Max.Z)}
	}
	r.box, r.ok = b, true
}

// Meets reports whether path p's box meets the box (false when it holds
// nobody). A box that is not finite always does.
func (r *Reach) Meets(p Path) bool { return r.meets(&p) }

// meets is Meets on a path in place: a copy of the path, made on the
// stack for each test, costs more than the test.
func (r *Reach) meets(p *Path) bool {
	if !r.ok {
		return false
	}
	lo, hi := r.box.Min, r.box.Max
	return !(p.Hi.X < lo.X || p.Lo.X > hi.X ||
		p.Hi.Y < lo.Y || p.Lo.Y > hi.Y ||
		p.Hi.Z < lo.Z || p.Lo.Z > hi.Z)
}

// MeetsRay reports whether ray, up to maxDist, may meet the box. A ray
// that is not finite always may.
func (r *Reach) MeetsRay(ray geom.Ray, maxDist float64) bool {
	return r.Meets(PathOf(ray, maxDist, false))
}

// BlastNear reports whether a blast of radius at centre may reach into
// the box (false when it holds nobody; a NaN distance is near).
func (r *Reach) BlastNear(centre geom.Vec3, radius float64) bool {
	if !r.ok {
		return false
	}
	lo, hi := r.box.Min, r.box.Max
	d := geom.Vec3{
		X: max(lo.X-centre.X, 0, centre.X-hi.X),
		Y: max(lo.Y-centre.Y, 0, centre.Y-hi.Y),
		Z: max(lo.Z-centre.Z, 0, centre.Z-hi.Z),
	}
	return !(d.Len() >= radius)
}

// Finite reports whether ray, up to maxDist, can be pruned at all: a ray
// with no direction, or one whose origin, direction or length is not a
// number, is tested against everyone.
func Finite(ray geom.Ray, maxDist float64) bool {
	d := ray.Dir
	return d.Dot(d) > 0 && ray.Origin.IsFinite() && d.IsFinite() && !math.IsNaN(maxDist)
}

// Near reports whether a sphere of radius rad about centre comes within
// reach of ray up to maxDist (Finite): whether a player bounded by it
// may be hit.
func Near(ray geom.Ray, maxDist float64, centre geom.Vec3, rad float64) bool {
	d := ray.Dir
	v := centre.Sub(ray.Origin)
	t := min(max(v.Dot(d)/d.Dot(d), 0), maxDist)
	rr := (rad + ReachMargin) * (rad + ReachMargin)
	return !(v.Sub(d.Scale(t)).Len2() > rr)
}
