package scaling

import (
	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/lagcomp"
)

// Scaled returns the parts of player st's hitboxes scaled by f about
// each part's origin: radii and segments f times as large.
func Scaled(st game.PlayerState, p *game.Params, f float64) [game.NumParts]game.Part {
	parts := game.Hitboxes(st, p)
	for i := range parts {
		pt := &parts[i]
		o := pt.Origin
		pt.Shape.A = o.Add(pt.Shape.A.Sub(o).Scale(f))
		pt.Shape.B = o.Add(pt.Shape.B.Sub(o).Scale(f))
		pt.Shape.R *= f
	}
	return parts
}

// Target is a player a scaled shot may hit: its id and its pose at the
// time the shot is tested.
type Target = lagcomp.Target

// Trace tests ray r against the targets' hitboxes scaled by f, within
// maxDist and short of the first box of grid the ray meets. It returns
// the nearest part hit, with Local the impact brought back to the true
// part's frame (divided by f), so the victim's client finds the spot on
// its own body for SBC detection; Victim is the target's ID.
func Trace(r geom.Ray, maxDist float64, targets []Target, f float64, grid *geom.Grid, p *game.Params) (lagcomp.Hit, bool) {
	if wall, ok := grid.Raycast(r, maxDist); ok {
		maxDist = wall.Dist
	}
	var best lagcomp.Hit
	found := false
	for _, t := range targets {
		parts := Scaled(t.Pose, p, f)
		for i := range parts {
			d, _, ok := geom.RayCapsule(r, maxDist, parts[i].Shape)
			if !ok {
				continue
			}
			pt := r.Origin.AddScaled(r.Dir, d)
			best = lagcomp.Hit{Victim: t.ID, Part: parts[i].Kind, Dist: d, Point: pt, Local: parts[i].ToLocal(pt).Scale(1 / f), Pose: t.Pose}
			found, maxDist = true, d
		}
	}
	return best, found
}
