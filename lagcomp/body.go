package lagcomp

import (
	"math"
	"sync/atomic"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
)

// A body is what game.Hitboxes gives for a player standing at the origin,
// for one set of proportions, so that a rewound shot can test a pose's
// head and torso, and rule out its legs, without working out the whole
// pose: the head and torso are the origin's parts moved to the player's
// position (they do not turn with the view), and the legs, which do, stay
// inside a capsule around the body's axis whatever the yaw.
type body struct {
	radius, height, eye, crouchEye float64 // the Params it was made for
	ok                             bool    // Hitboxes has the shape above
	// bound is boundRadius of those Params.
	bound  float64
	stance [2]stanceBody
}

// A stanceBody is a body standing ([0]) or crouched ([1]).
type stanceBody struct {
	// head and torso as offsets from the position: at the origin,
	// Hitboxes puts them at 0 + offset, which is the offset itself.
	upper [2]geom.Capsule
	// legs holds both legs at every yaw: the body's axis between the
	// lowest and highest ends of the legs' segments, as wide as the
	// legs reach from it, plus sweepMargin against rounding.
	legs geom.Capsule
}

// lastBody is the body of the Params last traced: a server keeps one.
var lastBody atomic.Pointer[body]

// bodyFor returns the body of p's proportions.
func bodyFor(p *game.Params) *body {
	if b := lastBody.Load(); b != nil && b.radius == p.Radius && b.height == p.Height && b.eye == p.EyeHeight && b.crouchEye == p.CrouchEyeHeight {
		return b
	}
	b := newBody(p)
	lastBody.Store(b)
	return b
}

// newBody works out the body of p's proportions, and checks that
// Hitboxes has the shape tracing relies on: head and torso that are the
// origin's moved, whatever the yaw and position, and legs within reach of
// the axis. Should it not, ok is false and every pose is worked out whole.
func newBody(p *game.Params) *body {
	b := &body{radius: p.Radius, height: p.Height, eye: p.EyeHeight, crouchEye: p.CrouchEyeHeight, ok: true, bound: boundRadius(p)}
	elsewhere := []game.PlayerState{
		{Pos: geom.V(13.37, -7.25, 0.5), Yaw: 12345},
		{Pos: geom.V(-41.1, 29.9, -3.3), Yaw: 54321},
	}
	for s, flags := range [2]game.StateFlags{0, game.FlagCrouched} {
		at := game.Hitboxes(game.PlayerState{Flags: flags}, p)
		sb := &b.stance[s]
		sb.upper = [2]geom.Capsule{at[game.PartHead].Shape, at[game.PartTorso].Shape}
		lo, hi, reach := math.Inf(1), math.Inf(-1), 0.0
		for _, leg := range at[game.PartLegL:] {
			c := leg.Shape
			lo, hi = min(lo, c.A.Z, c.B.Z), max(hi, c.A.Z, c.B.Z)
			reach = max(reach, math.Hypot(c.A.X, c.A.Y)+c.R, math.Hypot(c.B.X, c.B.Y)+c.R)
		}
		sb.legs = geom.Capsule{A: geom.V(0, 0, lo), B: geom.V(0, 0, hi), R: reach + sweepMargin}
		for _, st := range elsewhere {
			st.Flags = flags
			parts := game.Hitboxes(st, p)
			for k, c := range sb.upper {
				if parts[k].Shape != (geom.Capsule{A: st.Pos.Add(c.A), B: st.Pos.Add(c.B), R: c.R}) {
					b.ok = false
				}
			}
			for _, leg := range parts[game.PartLegL:] {
				for _, e := range [2]geom.Vec3{leg.Shape.A, leg.Shape.B} {
					d := e.Sub(st.Pos)
					// Within rounding: the margin covers it.
					if d.Z < lo-sweepMargin/2 || d.Z > hi+sweepMargin/2 || math.Hypot(d.X, d.Y)+leg.Shape.R > reach+sweepMargin/2 {
						b.ok = false
					}
				}
			}
		}
	}
	return b
}

// traceBody is traceParts with a probe pr of its ray, for a body of st's
// proportions: the head and torso come from bd, and the legs are worked
// out, with the turn of the view, only when the ray reaches the capsule
// around them. The answer is traceParts's, bit for bit.
func traceBody(pr *probe, maxDist float64, st *game.PlayerState, p *game.Params, bd *body) (partHit, bool) {
	if !bd.ok {
		return traceParts(pr.r, maxDist, st, p, pr)
	}
	sb := &bd.stance[0]
	if st.Has(game.FlagCrouched) {
		sb = &bd.stance[1]
	}
	r := pr.r
	var best partHit
	found := false
	for k, u := range sb.upper {
		c := geom.Capsule{A: st.Pos.Add(u.A), B: st.Pos.Add(u.B), R: u.R}
		origin := c.A.Lerp(c.B, 0.5)
		if !pr.near(maxDist, origin, c.R+l1(c.B.Sub(c.A))/2+sweepMargin) {
			continue
		}
		d, _, ok := geom.RayCapsule(r, maxDist, c)
		if !ok {
			continue
		}
		part := game.Part{Kind: game.PartKind(k), Shape: c, Origin: origin, Yaw: game.AngleToRad(int32(st.Yaw))}
		pt := r.Origin.AddScaled(r.Dir, d)
		best = partHit{part: part.Kind, dist: d, point: pt, local: part.ToLocal(pt)}
		found, maxDist = true, d
	}
	legs := geom.Capsule{A: st.Pos.Add(sb.legs.A), B: st.Pos.Add(sb.legs.B), R: sb.legs.R}
	if !pr.near(maxDist, legs.A.Lerp(legs.B, 0.5), legs.R+l1(legs.B.Sub(legs.A))/2) {
		return best, found
	}
	if _, _, ok := geom.RayCapsule(r, maxDist, legs); !ok {
		return best, found
	}
	parts := game.Hitboxes(*st, p)
	if h, ok := testParts(r, maxDist, parts[game.PartLegL:], pr); ok {
		return h, true
	}
	return best, found
}
