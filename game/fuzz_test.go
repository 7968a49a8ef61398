package game

import (
	"math"
	"testing"
	"time"

	"github.com/lagkit/lagkit/geom"
)

// FuzzMove runs a few steps of one command from an arbitrary state in a
// room full of boxes. Move must not panic, must return finite states on the
// grids with velocities within MaxVelocity, and a player that starts clear
// of every box must stay clear.
func FuzzMove(f *testing.F) {
	p := DefaultParams()
	boxes := room(2, 150)
	g := geom.NewGrid(boxes, 2)
	nan, inf := math.NaN(), math.Inf(1)
	seeds := []struct {
		x, y, z, vx, vy, vz float64
		flags               StateFlags
		dur                 int64 // µs
		yaw                 uint16
		fwd, side           int8
		buttons             Buttons
	}{
		{0, 0, 0, 0, 0, 0, FlagOnGround, 15625, 0, 127, 0, 0},
		{9.1, 0, 0, 4, 0, 0, FlagOnGround, 15625, 0, 127, 127, BtnJump},
		{2, 3, 1.5, 0, 0, -30, 0, 250000, 1000, -128, -128, BtnCrouch},
		{-3, -3, 0.5, 50, 50, 50, FlagCrouched, 7812, 40000, 127, 0, BtnSprint | BtnJump},
		{nan, 1, inf, inf, nan, -inf, 0xff, -1, 0, 0, 0, 0xffff},
		{1e300, -1e300, 1e-300, 0, 0, 0, 0, 1 << 40, 0, 127, 0, 0},
	}
	for _, s := range seeds {
		f.Add(s.x, s.y, s.z, s.vx, s.vy, s.vz, uint8(s.flags), s.dur, s.yaw, s.fwd, s.side, uint16(s.buttons))
	}
	f.Fuzz(func(t *testing.T, x, y, z, vx, vy, vz float64, flags uint8, dur int64, yaw uint16, fwd, side int8, buttons uint16) {
		s := PlayerState{Pos: geom.V(x, y, z), Vel: geom.V(vx, vy, vz), Flags: StateFlags(flags)}
		cmd := UserCmd{
			Duration: time.Duration(dur) * time.Microsecond,
			Yaw:      yaw,
			Pitch:    int16(yaw),
			Forward:  fwd,
			Side:     side,
			Buttons:  Buttons(buttons),
		}
		gap0, _ := minGap(s, &p, boxes)
		clear := s.Pos.IsFinite() && gap0 >= 0
		for i := range 4 {
			s = Move(s, cmd, g, &p)
			if !s.Pos.IsFinite() || !s.Vel.IsFinite() || !onGrid(s) {
				t.Fatalf("step %d: state %+v", i, s)
			}
			if v := s.Vel; math.Abs(v.X) > p.MaxVelocity || math.Abs(v.Y) > p.MaxVelocity || math.Abs(v.Z) > p.MaxVelocity {
				t.Fatalf("step %d: velocity %v beyond MaxVelocity", i, v)
			}
			if gp, box := minGap(s, &p, boxes); clear && gp < -1e-9 {
				t.Fatalf("step %d: %+v overlaps box %d by %g", i, s, box, -gp)
			}
		}
	})
}
