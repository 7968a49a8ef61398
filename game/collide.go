package game

import (
	"math"
	"math/bits"

	"github.com/lagkit/lagkit/geom"
)

// Collision works in configuration space: instead of sweeping the player's
// capsule against a box, it sweeps the feet (a point) against the set of
// feet positions at which the capsule would touch the box. The capsule is
// the points within r of its axis segment, which runs from r to h-r above
// the feet, so it touches box b exactly when the feet lie within r of
// b shifted down by r and stretched down by h-2r: a box rounded by r
// (Ericson, Real-Time Collision Detection, section 5.5.7). That box is the
// obstacle's core.

const (
	// skin is the gap the movement step keeps between the capsule and
	// every surface: sweeps stop at distance r+skin from a core. It
	// exceeds the √3*PosQuantum/2 ≈ 1.7 mm that snapping onto the
	// position grid can move the feet, so a snapped state never overlaps
	// a box it stopped against.
	skin = 2 * PosQuantum
	// touchEps is how far (in metres) a motion may go into a surface it
	// already touches before it counts as blocked, so rounding in a
	// velocity clipped along the surface does not stop it.
	touchEps = 1e-9
	// groundBox is the box index sweep reports for the ground plane z = 0.
	groundBox = -1
)

// up is the unit +Z vector: the normal of the ground plane and of box tops.
var up = geom.Vec3{Z: 1}

// body is the player's movement shape: an upright capsule of radius r and
// height h whose lowest point, the feet, is at the player's position.
type body struct{ r, h float64 }

// core returns the core of the configuration-space obstacle of box b.
func (c body) core(b geom.AABB) geom.AABB {
	return geom.AABB{
		Min: geom.Vec3{X: b.Min.X, Y: b.Min.Y, Z: b.Min.Z - (c.h - c.r)},
		Max: geom.Vec3{X: b.Max.X, Y: b.Max.Y, Z: b.Max.Z - c.r},
	}
}

// world is the static geometry one movement step can reach: the ground
// plane and the boxes of a grid near the player.
type world struct {
	boxes []geom.AABB // every box of the grid
	near  []int       // indices of the boxes the step can reach
}

// top returns the height of the top of box, a box index or groundBox.
func (w *world) top(box int) float64 {
	if box == groundBox {
		return 0
	}
	return w.boxes[box].Max.Z
}

// sweep moves the feet from f by d and finds the first contact with the
// ground or a box, each inflated by skin: the fraction t of the motion
// done before touching, in [0, 1], the unit normal n from the surface
// towards the player, and the index of the box touched, or groundBox. It
// reports false when the motion touches nothing. A start already on or
// within the skin of a surface touches it at t = 0 if d goes into it, and
// ignores it otherwise, so a player resting against a wall can walk along
// it or away from it.
//
// The contact is returned as separate values, not as one struct: a struct
// of more than four words lives in memory, and copying it as a whole just
// after storing its fields one by one stalls each load.
func (w *world) sweep(f, d geom.Vec3, c body) (t float64, n geom.Vec3, box int, ok bool) {
	if d.Len2() == 0 {
		return 0, geom.Vec3{}, 0, false
	}
	if tg, hit := sweepGround(f, d); hit {
		t, n, box, ok = tg, up, groundBox, true
	}
	r := c.r + skin
	for _, i := range w.near {
		tb, nb, hit := sweepRounded(f, d, c.core(w.boxes[i]), r)
		if hit && (!ok || tb < t) {
			t, n, box, ok = tb, nb, i, true
		}
	}
	return t, n, box, ok
}

// clearance returns the smallest gap between the capsule with feet at f and
// the ground or any box; it is negative when the capsule overlaps one.
func (w *world) clearance(f geom.Vec3, c body) float64 {
	gap := f.Z
	for _, i := range w.near {
		core := c.core(w.boxes[i])
		gap = min(gap, f.Dist(closest(core, f))-c.r)
	}
	return gap
}

// sweepGround sweeps the feet from f by d against the ground plane raised
// by skin.
func sweepGround(f, d geom.Vec3) (float64, bool) {
	if f.Z < skin {
		return 0, d.Z < -touchEps
	}
	if d.Z >= 0 || f.Z+d.Z >= skin {
		return 0, false
	}
	return (f.Z - skin) / -d.Z, true
}

// sweepRounded sweeps the point f by d against core rounded by r and
// returns the fraction of d before contact and the normal there. From
// outside it follows Ericson's moving sphere against AABB (section 5.5.7):
// the rounded box lies inside the core expanded by r, and where the segment
// enters that box decides whether it hits a face, or must be tested against
// the capsule around an edge or the three edge capsules at a corner.
func sweepRounded(f, d geom.Vec3, core geom.AABB, r float64) (float64, geom.Vec3, bool) {
	if q := closest(core, f); f.Sub(q).Len2() <= r*r {
		n := escape(f, q, core)
		return 0, n, d.Dot(n) < -touchEps
	}
	o, dv := arr(f), arr(d)
	lo, hi := arr(core.Min), arr(core.Max)
	var elo, ehi [3]float64
	for i := range 3 {
		elo[i], ehi[i] = lo[i]-r, hi[i]+r
	}
	t, ok := segmentBox(o, dv, elo, ehi)
	if !ok {
		return 0, geom.Vec3{}, false
	}
	// Bit i of out is set when the entry point lies outside the core on
	// axis i, and corner[i] is then the core's bound it lies beyond.
	var corner [3]float64
	var out uint
	for i := range 3 {
		switch p := o[i] + dv[i]*t; {
		case p < lo[i]:
			out |= 1 << i
			corner[i] = lo[i]
		case p > hi[i]:
			out |= 1 << i
			corner[i] = hi[i]
		}
	}
	// With one bit set or none, the entry point lies on a face of the
	// rounded box: it is the contact.
	switch bits.OnesCount(out) {
	case 2:
		a := bits.TrailingZeros(^out & 7)
		t, ok = segmentEdge(o, dv, corner, a, lo[a], hi[a], r)
	case 3:
		ok = false
		for a := range 3 {
			if te, hit := segmentEdge(o, dv, corner, a, lo[a], hi[a], r); hit && (!ok || te < t) {
				t, ok = te, true
			}
		}
	}
	if !ok {
		return 0, geom.Vec3{}, false
	}
	// A segment that only grazes the surface (a start on it, moving
	// along it) is not stopped.
	p := f.AddScaled(d, t)
	n := p.Sub(closest(core, p)).Norm()
	return t, n, d.Dot(n) < -touchEps
}

// escape returns the direction in which the point f, within reach of the
// box b whose nearest point to f is q, gets away from it fastest: away from
// q, or, from inside b, out through the nearest face.
func escape(f, q geom.Vec3, b geom.AABB) geom.Vec3 {
	if d := f.Sub(q); d.Len2() > 0 {
		return d.Norm()
	}
	o, lo, hi := arr(f), arr(b.Min), arr(b.Max)
	var n [3]float64
	best := math.Inf(1)
	for i := range 3 {
		if g := o[i] - lo[i]; g < best {
			best, n = g, [3]float64{}
			n[i] = -1
		}
		if g := hi[i] - o[i]; g < best {
			best, n = g, [3]float64{}
			n[i] = 1
		}
	}
	return geom.Vec3{X: n[0], Y: n[1], Z: n[2]}
}

// segmentBox returns the first t in [0, 1] at which o + t*d lies in the box
// [lo, hi] (Ericson, section 5.3.3, slab test).
func segmentBox(o, d, lo, hi [3]float64) (float64, bool) {
	tmin, tmax := 0.0, 1.0
	for i := range 3 {
		// Below this the motion along the axis is far under the position
		// quantum, and 1/d could overflow.
		if math.Abs(d[i]) < 1e-12 {
			if o[i] < lo[i] || o[i] > hi[i] {
				return 0, false
			}
			continue
		}
		inv := 1 / d[i]
		t1, t2 := (lo[i]-o[i])*inv, (hi[i]-o[i])*inv
		if t1 > t2 {
			t1, t2 = t2, t1
		}
		tmin, tmax = max(tmin, t1), min(tmax, t2)
		if tmin > tmax {
			return 0, false
		}
	}
	return tmin, true
}

// segmentEdge returns the first t in [0, 1] at which o + t*d comes within r
// of the segment along axis a from lo to hi through the point c (whose
// coordinate on a is ignored): the first contact with the capsule around
// an edge of a box.
func segmentEdge(o, d, c [3]float64, a int, lo, hi, r float64) (float64, bool) {
	best, ok := 0.0, false
	// The side of the capsule: a circle of radius r in the other two axes.
	i, j := (a+1)%3, (a+2)%3
	mi, mj := o[i]-c[i], o[j]-c[j]
	qa := d[i]*d[i] + d[j]*d[j]
	qb := mi*d[i] + mj*d[j]
	qc := mi*mi + mj*mj - r*r
	if qb < 0 { // moving towards the axis
		t := 0.0 // on or inside the infinite cylinder already
		if qc > 0 {
			t = math.Inf(1)
			if disc := qb*qb - qa*qc; disc >= 0 {
				t = (-qb - math.Sqrt(disc)) / qa
			}
		}
		if s := o[a] + t*d[a]; t <= 1 && s >= lo && s <= hi {
			best, ok = t, true
		}
	}
	// The spherical ends.
	for _, end := range [2]float64{lo, hi} {
		c[a] = end
		if t, hit := segmentSphere(o, d, c, r); hit && (!ok || t < best) {
			best, ok = t, true
		}
	}
	return best, ok
}

// segmentSphere returns the first t in [0, 1] at which o + t*d comes within
// r of c (Ericson, section 5.3.2).
func segmentSphere(o, d, c [3]float64, r float64) (float64, bool) {
	var b, mm, dd float64
	for i := range 3 {
		m := o[i] - c[i]
		b += m * d[i]
		mm += m * m
		dd += d[i] * d[i]
	}
	if b >= 0 { // moving away from c
		return 0, false
	}
	disc := b*b - dd*(mm-r*r)
	if disc < 0 {
		return 0, false
	}
	t := max(0, (-b-math.Sqrt(disc))/dd)
	return t, t <= 1
}

// closest returns the point of b nearest to p.
func closest(b geom.AABB, p geom.Vec3) geom.Vec3 {
	return geom.Vec3{
		X: min(max(p.X, b.Min.X), b.Max.X),
		Y: min(max(p.Y, b.Min.Y), b.Max.Y),
		Z: min(max(p.Z, b.Min.Z), b.Max.Z),
	}
}

// arr returns v as an array indexed by axis.
func arr(v geom.Vec3) [3]float64 { return [3]float64{v.X, v.Y, v.Z} }
