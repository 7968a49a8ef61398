package delay

import (
	"errors"
	"math"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
)

// fov makes two players interact while either has the other within its
// horizontal field of view with a clear line of sight from eye to eye
// through the map ([atd]'s field-of-view trigger, occlusion respected).
type fov struct {
	cosHalf float64 // cosine of half the field of view
	grid    *geom.Grid
	params  *game.Params
}

func newFOV(_ Config, env Env) (Trigger, error) {
	if env.Grid == nil || env.Params == nil || env.FOVDeg <= 0 {
		return nil, errors.New("delay: trigger fov needs the map, the movement rules and a field of view")
	}
	return fov{cosHalf: math.Cos(float64(env.FOVDeg) / 2 * math.Pi / 180), grid: env.Grid, params: env.Params}, nil
}

func (f fov) Interact(a, b *game.PlayerState, _ bool) bool {
	ea, eb := game.EyePos(*a, f.params), game.EyePos(*b, f.params)
	return (f.facing(a, ea, eb) || f.facing(b, eb, ea)) && !f.grid.SegmentBlocked(ea, eb)
}

// facing reports whether the point to lies within the horizontal field of
// view of a player in state st, whose eye is at eye.
func (f fov) facing(st *game.PlayerState, eye, to geom.Vec3) bool {
	dx, dy := to.X-eye.X, to.Y-eye.Y
	l := math.Hypot(dx, dy)
	if l == 0 {
		return true
	}
	yaw := game.AngleToRad(int32(st.Yaw))
	return (dx*math.Cos(yaw)+dy*math.Sin(yaw))/l >= f.cosHalf
}
