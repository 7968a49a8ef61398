package lagcomp

import (
	"math"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
)

// Hit is a shot's first contact with a player's body part.
type Hit struct {
	Victim int
	Part   game.PartKind
	// Dist is the distance from the ray origin to the impact.
	Dist float64
	// Point is the impact in world space, and Local the same point in the
	// part's frame: re-applied to another pose of the part it finds the
	// same spot on the body (SBC detection).
	Point geom.Vec3
	Local geom.Vec3
	// Pose is the victim's state the hit was tested against.
	Pose game.PlayerState
}

// Tracer tests shots against the recorded poses of a History, blocked by
// the world's boxes. It never changes live state: a rewound test is a
// query at a past time.
type Tracer struct {
	History *History
	Grid    *geom.Grid
	Params  *game.Params
	// Hittable reports whether the shooter can hit player id at all (alive, not
	// spawn protected); nil means every player can be.
	Hittable func(shooter, id int) bool
}

// boundRadius returns the radius of a sphere around a standing player's
// hitboxes centred half way up: a cheap first test before the parts.
func boundRadius(p *game.Params) float64 {
	return math.Hypot(p.Radius, p.Height/2)
}

// Trace returns the first body part of a player other than shooter that
// the ray hits at server time t, before maxDist and before any box. Cost
// grows with the number of players, not with history depth. The broad
// phase prunes players before any pose is looked up, as Source prunes to
// the players within reach of the ray over the rewind window [source] and
// lightyear tests swept bounds over its history: each player's box of
// positions over the history chunk holding t, grown by the movement
// capsule that holds every hitbox, is one ray-box slab test. Only players whose box the ray crosses have
// their pose interpolated and their parts tested. The answer is the one
// testing every player would give.
func (tr *Tracer) Trace(r geom.Ray, maxDist float64, t time.Duration, shooter int) (Hit, bool) {
	p := tr.Params
	boxes, pruned := tr.History.sweptAt(t)
	if !pruned {
		return tr.traceEvery(r, maxDist, maxDist, t, shooter)
	}
	// Every body part lies inside the movement capsule, the radius around
	// the position's vertical axis from the feet up to the standing height
	// (game.Hitboxes), so a position box grown by that hits every part a
	// ray can hit; a margin keeps rounding in the box test from rejecting
	// a ray that grazes a part.
	side := p.Radius + sweepMargin
	sl := newSlabs(r,
		geom.Vec3{X: side, Y: side, Z: sweepMargin},
		geom.Vec3{X: side, Y: side, Z: max(p.Height, p.CrouchHeight) + sweepMargin})
	// Candidates in the order the ray enters their boxes: every hit lies
	// inside its player's box, so once the nearest hit so far comes
	// before the next entry, no later candidate can beat or tie it. A
	// shot enters a few boxes; one that enters more than the buffer holds
	// tests every player instead, with the same answer.
	var buf [maxCandidates]candidate
	cand := buf[:0]
	reach := 0.0 // where the ray leaves the last candidate's box
	// The slab test of every box in one loop over the boxes' coordinates,
	// each plane the ray meets first or last picked once for all.
	ok := boxes.ok
	n := len(ok)
	xn, xf, oxn, oxf, ix := sl.axis(&boxes, 0)
	yn, yf, oyn, oyf, iy := sl.axis(&boxes, 1)
	zn, zf, ozn, ozf, iz := sl.axis(&boxes, 2)
	// Sliced to n here, so that the loop needs no bounds checks.
	xn, xf, yn, yf, zn, zf = xn[:n], xf[:n], yn[:n], yf[:n], zn[:n], zf[:n]
	for id := range n {
		t0, t1 := (xn[id]-oxn)*ix, (xf[id]-oxf)*ix
		ty0, ty1 := (yn[id]-oyn)*iy, (yf[id]-oyf)*iy
		if t0 > ty1 || ty0 > t1 {
			continue
		}
		// Comparisons rather than max and min, which handle NaN and the
		// sign of zero at a cost: a box with a NaN corner may then be
		// kept where they would drop it, which costs a pose test and
		// changes no answer.
		if ty0 > t0 {
			t0 = ty0
		}
		if ty1 < t1 {
			t1 = ty1
		}
		tz0, tz1 := (zn[id]-ozn)*iz, (zf[id]-ozf)*iz
		if t0 > tz1 || tz0 > t1 {
			continue
		}
		if tz0 > t0 {
			t0 = tz0
		}
		if tz1 < t1 {
			t1 = tz1
		}
		if t0 <= maxDist && t1 >= 0 && id != shooter && ok[id] {
			if t1 > reach {
				reach = t1
			}
			k := len(cand)
			if k == maxCandidates {
				cand = nil
				break
			}
			cand = cand[:k+1]
			for ; k > 0 && cand[k-1].enter > t0; k-- {
				cand[k] = cand[k-1]
			}
			cand[k] = candidate{id: id, enter: t0}
		}
	}
	if cand == nil {
		return tr.traceEvery(r, maxDist, maxDist, t, shooter)
	}
	if len(cand) == 0 {
		return Hit{}, false
	}
	// Every hit lies inside a candidate's box, so only boxes of the world
	// up to the last candidate's exit can block one: the first of those
	// is the first box Trace would have found over the whole range.
	if wall, ok := tr.Grid.Raycast(r, min(maxDist, reach)); ok {
		maxDist = wall.Dist
	}
	pr := newProbe(r, p)
	var best partHit
	victim := -1
	for _, c := range cand {
		if c.enter > maxDist {
			break
		}
		h, ok := tr.tracePose(&pr, maxDist, t, shooter, c.id)
		// Testing in id order, a later player at the same distance
		// replaced an earlier one: keep that answer.
		if ok && (victim < 0 || h.dist < best.dist || c.id > victim) {
			best, victim = h, c.id
		}
		if victim >= 0 {
			maxDist = best.dist
		}
	}
	return tr.hit(best, victim, t)
}

// maxCandidates is how many candidates Trace orders; a shot that enters
// more swept boxes has every player tested.
const maxCandidates = 16

// traceEvery is Trace without a broad phase: the world's boxes are walked
// up to wallRange and every player's pose at t is tested.
func (tr *Tracer) traceEvery(r geom.Ray, wallRange, maxDist float64, t time.Duration, shooter int) (Hit, bool) {
	if wall, ok := tr.Grid.Raycast(r, wallRange); ok {
		maxDist = wall.Dist
	}
	pr := newProbe(r, tr.Params)
	var best partHit
	victim := -1
	for id := 0; id < tr.History.maxPlayers; id++ {
		if id == shooter {
			continue
		}
		if h, ok := tr.tracePose(&pr, maxDist, t, shooter, id); ok {
			best, victim, maxDist = h, id, h.dist
		}
	}
	return tr.hit(best, victim, t)
}

// hit returns the Hit of part hit h on player victim's pose at t, and
// false when victim is negative: no player is hit. The whole pose is
// blended only here, for the one player hit.
func (tr *Tracer) hit(h partHit, victim int, t time.Duration) (Hit, bool) {
	if victim < 0 {
		return Hit{}, false
	}
	pose, _ := tr.History.At(victim, t)
	return Hit{Victim: victim, Part: h.part, Dist: h.dist, Point: h.point, Local: h.local, Pose: pose}, true
}

// A candidate is a player whose swept box the ray enters, at enter.
type candidate struct {
	id    int
	enter float64
}

// tracePose returns the nearest part of player id's pose at t the ray
// hits within maxDist.
func (tr *Tracer) tracePose(pr *probe, maxDist float64, t time.Duration, shooter, id int) (partHit, bool) {
	if tr.Hittable != nil && !tr.Hittable(shooter, id) {
		return partHit{}, false
	}
	p := tr.Params
	lift := geom.Vec3{Z: p.Height / 2}
	a, b, frac, ok := tr.History.straddle(id, t)
	if !ok {
		return partHit{}, false
	}
	// The pose's bounding sphere, then its parts.
	st := hitboxState(a, b, frac)
	if !pr.near(maxDist, st.Pos.Add(lift), pr.bound) {
		return partHit{}, false
	}
	return traceBody(pr, maxDist, &st, p, pr.body)
}

// hitboxState returns the parts of game.Interpolate(*a, *b, frac) that
// game.Hitboxes reads (position, yaw and flags), bit for bit, and zero
// for the rest: a shot tests many poses but keeps at most one.
func hitboxState(a, b *game.PlayerState, frac float64) game.PlayerState {
	switch {
	case frac == 0:
		return game.PlayerState{Pos: a.Pos, Yaw: a.Yaw, Flags: a.Flags}
	case a.Teleport != b.Teleport: // the nearer record, unblended
		if frac < 0.5 {
			return game.PlayerState{Pos: a.Pos, Yaw: a.Yaw, Flags: a.Flags}
		}
		return game.PlayerState{Pos: b.Pos, Yaw: b.Yaw, Flags: b.Flags}
	}
	flags := a.Flags
	if frac >= 0.5 {
		flags = b.Flags
	}
	dy := int16(b.Yaw - a.Yaw) // shorter arc, wrapping at a full turn
	return game.PlayerState{
		Pos:   a.Pos.Lerp(b.Pos, frac),
		Yaw:   a.Yaw + uint16(int32(math.RoundToEven(float64(dy)*frac))),
		Flags: flags,
	}
}

// sweepMargin (metres) pads the swept boxes against rounding: far larger
// than any float error at map scale, far smaller than a body part.
const sweepMargin = 1e-3

// slabs is a ray prepared for many ray-box tests against boxes grown by
// a pad below and above: the slab method (Kay and Kajiya, "Ray Tracing
// Complex Scenes", 1986), with the pads folded into the origin so a test
// is two subtractions and two products per axis.
type slabs struct {
	inv      [3]float64 // 1 / direction, a zero component made tiny
	oLo, oHi [3]float64 // origin moved by the pads toward each plane
}

// newSlabs prepares r for tests against boxes grown by below under their
// minimum corner and by above over their maximum.
func newSlabs(r geom.Ray, below, above geom.Vec3) slabs {
	// A zero component becomes tiny rather than giving 0 * Inf = NaN: the
	// slab then holds the whole line or none of it, as it should.
	inv := func(d float64) float64 {
		if d == 0 {
			d = 1e-300
		}
		return 1 / d
	}
	// (min - below) - o = min - (o + below), (max + above) - o = max - (o - above).
	lo, hi := r.Origin.Add(below), r.Origin.Sub(above)
	return slabs{
		inv: [3]float64{inv(r.Dir.X), inv(r.Dir.Y), inv(r.Dir.Z)},
		oLo: [3]float64{lo.X, lo.Y, lo.Z},
		oHi: [3]float64{hi.X, hi.Y, hi.Z},
	}
}

// axis returns axis a of s for the boxes b: the planes the ray crosses
// first (near) and last (far), with the origin moved toward each (the
// minimum corners first for a ray going up the axis, the maximum ones for
// a ray going down), and 1 / direction. The ray enters box i's slab at
// (near[i] - oNear) * inv and leaves it at (far[i] - oFar) * inv.
func (s *slabs) axis(b *sweptBoxes, a int) (near, far []float64, oNear, oFar, inv float64) {
	n := len(b.ok)
	lo, hi := b.c[2*a*n:(2*a+1)*n], b.c[(2*a+1)*n:(2*a+2)*n]
	if s.inv[a] >= 0 {
		return lo, hi, s.oLo[a], s.oHi[a], s.inv[a]
	}
	return hi, lo, s.oHi[a], s.oLo[a], s.inv[a]
}

// A probe is a shot's ray prepared for the sphere tests of the broad
// phase, with what they share: 1 / |Dir|², and the radius of a sphere
// around a standing player's hitboxes.
type probe struct {
	r     geom.Ray
	inv2  float64
	bound float64
	body  *body
}

func newProbe(r geom.Ray, p *game.Params) probe {
	bd := bodyFor(p)
	return probe{r: r, inv2: 1 / r.Dir.Len2(), bound: bd.bound, body: bd}
}

// near reports whether the ray passes within rad of c before maxDist: a
// cheaper, conservative form of geom.RaySphere for the broad phase (every
// radius it is given has room to spare for rounding).
func (pr *probe) near(maxDist float64, c geom.Vec3, rad float64) bool {
	// Comparisons rather than max and min, with the same answer: a NaN
	// stays NaN and fails the test, and the sign of a zero moves no point.
	d := c.Sub(pr.r.Origin).Dot(pr.r.Dir) * pr.inv2
	if d < 0 {
		d = 0
	}
	if d > maxDist {
		d = maxDist
	}
	return pr.r.At(d).Sub(c).Len2() <= rad*rad
}

// TracePlayer returns the nearest part of the player in state st the ray
// hits within maxDist, testing the sphere around its hitboxes first so a
// ray passing far from the player costs one sphere test.
func TracePlayer(r geom.Ray, maxDist float64, st game.PlayerState, p *game.Params) (Hit, bool) {
	if _, _, ok := geom.RaySphere(r, maxDist, geom.Sphere{C: st.Pos.Add(geom.Vec3{Z: p.Height / 2}), R: boundRadius(p)}); !ok {
		return Hit{}, false
	}
	return TraceParts(r, maxDist, st, p)
}

// TraceParts returns the nearest part of the player in state st the ray
// hits within maxDist, testing every part.
func TraceParts(r geom.Ray, maxDist float64, st game.PlayerState, p *game.Params) (Hit, bool) {
	h, ok := traceParts(r, maxDist, &st, p, nil)
	if !ok {
		return Hit{}, false
	}
	return Hit{Part: h.part, Dist: h.dist, Point: h.point, Local: h.local, Pose: st}, true
}

// A partHit is a Hit without its victim and pose.
type partHit struct {
	part         game.PartKind
	dist         float64
	point, local geom.Vec3
}

// traceParts is TraceParts; with a probe of r, a part whose bounding
// sphere (a margin larger, against rounding) the ray misses is not tested
// exactly: a shot at a torso costs one capsule test, not four.
func traceParts(r geom.Ray, maxDist float64, st *game.PlayerState, p *game.Params, pr *probe) (partHit, bool) {
	parts := game.Hitboxes(*st, p)
	return testParts(r, maxDist, parts[:], pr)
}

// testParts returns the nearest of parts the ray hits within maxDist, the
// later of two at the same distance, as traceParts tests them.
func testParts(r geom.Ray, maxDist float64, parts []game.Part, pr *probe) (partHit, bool) {
	var best partHit
	found := false
	for i := range parts {
		part := &parts[i]
		c := &part.Shape
		// Half the segment's length bounded by the sum of its components,
		// which spares a square root and only ever widens the sphere.
		if pr != nil && !pr.near(maxDist, part.Origin, c.R+l1(c.B.Sub(c.A))/2+sweepMargin) {
			continue
		}
		d, _, ok := geom.RayCapsule(r, maxDist, part.Shape)
		if !ok {
			continue
		}
		pt := r.Origin.AddScaled(r.Dir, d)
		best = partHit{part: part.Kind, dist: d, point: pt, local: part.ToLocal(pt)}
		found, maxDist = true, d
	}
	return best, found
}

// l1 returns the sum of the magnitudes of v's components, at least its
// length.
func l1(v geom.Vec3) float64 { return math.Abs(v.X) + math.Abs(v.Y) + math.Abs(v.Z) }

// BehindCover is SBC detection (shot behind cover): it re-applies an
// impact, stored in the hit part's frame, to that part's pose in the
// victim state st, and reports whether world geometry blocks the segment
// from that point to the shooter's eye. Only boxes block: neither player
// does. Using the part rather than the player's origin catches a head
// ducked or a body turned behind cover even when the player did not move.
// The victim's client runs it on its predicted pose and its view of the
// shooter; the server runs it on the state that came with an appeal.
func BehindCover(st game.PlayerState, part game.PartKind, local, shooterEye geom.Vec3, g *geom.Grid, p *game.Params) bool {
	if int(part) >= game.NumParts {
		return false
	}
	pt := game.Hitboxes(st, p)[part].ToWorld(local)
	return g.SegmentBlocked(pt, shooterEye)
}

// BehindCoverBody is BehindCover for a game's body (Body, traced by a
// Rewinder): it re-applies an impact, stored in the body's frame
// (RewindHit's Local), to the entity at pose, and reports whether world
// geometry blocks the segment from that point to the shooter's eye.
func BehindCoverBody(pose Pose, local, shooterEye geom.Vec3, g *geom.Grid) bool {
	return g.SegmentBlocked(pose.ToWorld(local), shooterEye)
}
