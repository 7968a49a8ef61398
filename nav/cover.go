package nav

import (
	"cmp"
	"slices"

	"github.com/lagkit/lagkit/geom"
)

// CoverSpot is a place to hide from a threat.
type CoverSpot struct {
	// Pos is the feet position, a cell centre on its floor.
	Pos geom.Vec3
	// Crouch is set for low cover: the spot hides a crouched player's eye
	// but not a standing one's (or only a crouched player fits there).
	Crouch bool
	// Dist is the straight-line distance from the position Cover was asked
	// about.
	Dist float64
}

// Cover appends to dst the cover spots within maxDist of from, nearest
// first (ties in a fixed order), and returns the extended slice. A spot is
// a walkable cell beside a box at least 0.9 m above its floor where the
// segment from threat (an eye position) to the eye of a player standing
// there, or crouching for low cover, meets a box. Distances are straight
// lines, not walks: a spot behind a wall may be a longer walk away, which
// Path then finds. Cover does not allocate when dst has room.
func (g *Grid) Cover(from, threat geom.Vec3, maxDist float64, dst []CoverSpot) []CoverSpot {
	if g == nil || !from.IsFinite() || !threat.IsFinite() || !(maxDist >= 0) {
		return dst
	}
	x0, y0, x1, y1, ok := g.colRange(from.X, from.Y, maxDist)
	if !ok {
		return dst
	}
	base := len(dst)
	for y := y0; y <= y1; y++ {
		// g.cover is in column order, so each row's run is one slice.
		lo, hi := int32(y*g.nx+x0), int32(y*g.nx+x1)
		i, _ := slices.BinarySearchFunc(g.cover, lo, g.colCmp)
		for ; i < len(g.cover) && g.nodes[g.cover[i]].col <= hi; i++ {
			n := g.cover[i]
			pos := g.point(n)
			d := pos.Dist(from)
			if d > maxDist {
				continue
			}
			crouch := g.nodes[n].crouch
			if !crouch && g.boxes.SegmentBlocked(threat, pos.Add(geom.V(0, 0, g.p.EyeHeight))) {
				dst = append(dst, CoverSpot{pos, false, d})
			} else if g.boxes.SegmentBlocked(threat, pos.Add(geom.V(0, 0, g.p.CrouchEyeHeight))) {
				dst = append(dst, CoverSpot{pos, true, d})
			}
		}
	}
	// The stable sort keeps equally distant spots in column order.
	slices.SortStableFunc(dst[base:], func(a, b CoverSpot) int { return cmp.Compare(a.Dist, b.Dist) })
	return dst
}

// colCmp orders floor n by column against col.
func (g *Grid) colCmp(n, col int32) int { return cmp.Compare(g.nodes[n].col, col) }
