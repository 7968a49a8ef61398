package game

import (
	"math"

	"github.com/lagkit/lagkit/geom"
)

// PartView is one hitbox as a page draws it (JSON): a capsule from A to B
// of radius R, a sphere when A equals B. The player's page, the rewind
// view and the study admin's spectator all draw hitboxes from it.
type PartView struct {
	Kind string     `json:"kind"`
	A    [3]float64 `json:"a"`
	B    [3]float64 `json:"b"`
	R    float64    `json:"r"`
}

// PartViews returns the hitboxes of a player in state s (see Hitboxes),
// their ends rounded to a tenth of a millimetre: finer than any page
// draws, and the JSON of such a float is shorter, and quicker to write
// and to parse, than the shortest exact form of the float.
func PartViews(s PlayerState, p *Params) []PartView {
	hb := Hitboxes(s, p)
	out := make([]PartView, len(hb))
	for i, h := range hb {
		out[i] = PartView{Kind: h.Kind.String(), A: roundedVec(h.Shape.A), B: roundedVec(h.Shape.B), R: h.Shape.R}
	}
	return out
}

func roundedVec(v geom.Vec3) [3]float64 {
	r := func(x float64) float64 { return math.Round(x*1e4) / 1e4 }
	return [3]float64{r(v.X), r(v.Y), r(v.Z)}
}
