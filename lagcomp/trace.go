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
// grows with the number of players, not with history depth: each player's
// pose at t is one O(1) lookup, and only players whose bounding sphere the
// ray crosses have their parts tested. The pose at t lies between the two
// records that straddle t, so a sphere around both bounds it too: players
// the ray passes far from are skipped before their pose is interpolated.
func (tr *Tracer) Trace(r geom.Ray, maxDist float64, t time.Duration, shooter int) (Hit, bool) {
	if wall, ok := tr.Grid.Raycast(r, maxDist); ok {
		maxDist = wall.Dist
	}
	p := tr.Params
	br := boundRadius(p)
	lift := geom.Vec3{Z: p.Height / 2}
	var best Hit
	found := false
	for id := 0; id < tr.History.maxPlayers; id++ {
		if id == shooter || (tr.Hittable != nil && !tr.Hittable(shooter, id)) {
			continue
		}
		a, b, frac, ok := tr.History.straddle(id, t)
		if !ok || !nearRay(r, maxDist, a.Pos.Lerp(b.Pos, 0.5).Add(lift), br+a.Pos.Dist(b.Pos)/2) {
			continue
		}
		st := *a
		if frac > 0 {
			st = game.Interpolate(*a, *b, frac)
		}
		if h, ok := TracePlayer(r, maxDist, st, p); ok {
			h.Victim = id
			best, found, maxDist = h, true, h.Dist
		}
	}
	return best, found
}

// nearRay reports whether the ray passes within rad of c before maxDist:
// a cheaper, conservative form of geom.RaySphere for the broad phase.
func nearRay(r geom.Ray, maxDist float64, c geom.Vec3, rad float64) bool {
	d := min(max(c.Sub(r.Origin).Dot(r.Dir)/r.Dir.Len2(), 0), maxDist)
	return r.At(d).Sub(c).Len2() <= rad*rad
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
// hits within maxDist.
func TraceParts(r geom.Ray, maxDist float64, st game.PlayerState, p *game.Params) (Hit, bool) {
	parts := game.Hitboxes(st, p)
	var best Hit
	found := false
	for _, part := range parts {
		d, _, ok := geom.RayCapsule(r, maxDist, part.Shape)
		if !ok {
			continue
		}
		pt := r.Origin.AddScaled(r.Dir, d)
		best = Hit{Part: part.Kind, Dist: d, Point: pt, Local: part.ToLocal(pt), Pose: st}
		found, maxDist = true, d
	}
	return best, found
}

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
