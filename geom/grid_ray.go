package geom

import "math"

// A quickRay is a ray or segment prepared for a cheap, conservative first
// test against many boxes: the slab test with products by 1 / Dir rather
// than quotients by Dir, and a slack far larger than the few units in
// the last place by which the two can differ. A box it rejects the exact
// test (rayBox, segmentBox) rejects too; the exact test decides the rest,
// so the answers of the walks that use it do not change by a bit.
type quickRay struct {
	o, inv [3]float64
	flat   [3]bool // the direction is zero on the axis
	neg    [3]bool // the direction is negative on the axis
	ok     bool    // the scales allow the bound on rounding below
}

// quickLimit bounds the origin's coordinates and the direction's
// components (and their inverses) for which quickRay's products can
// neither overflow nor lose their relative precision to underflow, given
// boxes within ±maxGridCoord.
const quickLimit = 1e100

func newQuickRay(o, d Vec3) quickRay {
	q := quickRay{o: [3]float64{o.X, o.Y, o.Z}, ok: true}
	for i, di := range [3]float64{d.X, d.Y, d.Z} {
		if !(math.Abs(q.o[i]) <= quickLimit) { // false for NaN
			q.ok = false
		}
		if di == 0 {
			q.flat[i] = true
			continue
		}
		if a := math.Abs(di); !(a >= 1/quickLimit && a <= quickLimit) {
			q.ok = false
		}
		q.inv[i], q.neg[i] = 1/di, di < 0
	}
	return q
}

// misses reports that the line o + d*t meets box b for no t in
// [0, tMax]: then neither rayBox nor segmentBox with that limit reports a
// hit. A false answer says nothing.
//
// Each product (lo - o) * (1/d) lies within three units in the last place
// of the quotient (lo - o) / d that slab computes (one rounding for the
// inverse, one for the product, against one for the quotient), so the
// entry and exit it finds are within 1e-15 of slab's, relatively; the
// box is rejected only when they miss by a million times that, or lie
// wholly behind the origin by as much. A box holding the origin has every
// entry at most 0 and every exit at least 0, signs the products keep
// exactly, so it is never rejected.
func (q *quickRay) misses(b *AABB, tMax float64) bool {
	if !q.ok {
		return false
	}
	tMin := math.Inf(-1)
	var out bool
	tMin, tMax, out = q.axis(0, b.Min.X, b.Max.X, tMin, tMax)
	if out {
		return true
	}
	tMin, tMax, out = q.axis(1, b.Min.Y, b.Max.Y, tMin, tMax)
	if out {
		return true
	}
	tMin, tMax, out = q.axis(2, b.Min.Z, b.Max.Z, tMin, tMax)
	if out {
		return true
	}
	slack := 1e-9*(math.Abs(tMin)+math.Abs(tMax)) + 1e-300
	return tMin > tMax+slack || tMax < -slack
}

// axis narrows [tMin, tMax] to the slab between lo and hi on axis i, and
// reports out when the line is parallel to the slab and outside it
// (slab's own test).
func (q *quickRay) axis(i int, lo, hi, tMin, tMax float64) (float64, float64, bool) {
	o, inv := q.o[i], q.inv[i]
	if q.flat[i] {
		return tMin, tMax, o < lo || o > hi
	}
	// The plane the line crosses first, by the sign of the direction: the
	// box is not inverted, so the products keep that order. Plain
	// comparisons stand for min and max, which handle NaN and the sign
	// of zero at a cost: no product is NaN here (newQuickRay's limits),
	// and the sign of a zero changes no comparison below.
	if q.neg[i] {
		lo, hi = hi, lo
	}
	if a := (lo - o) * inv; a > tMin {
		tMin = a
	}
	if b := (hi - o) * inv; b < tMax {
		tMax = b
	}
	return tMin, tMax, false
}
