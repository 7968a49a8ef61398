package game

import (
	"math/rand/v2"
	"testing"

	"github.com/lagkit/lagkit/geom"
)

// BenchmarkMove walks a player around a 20 m room holding 150 boxes,
// turning now and then and sometimes crouching: most steps meet boxes
// nearby, slide along them or climb steps.
func BenchmarkMove(b *testing.B) {
	p := DefaultParams()
	boxes := room(1, 150)
	g := geom.NewGrid(boxes, 2)
	rng := rand.New(rand.NewPCG(1, 1))
	cmds := make([]UserCmd, 4096)
	cmd := forward(0)
	for i := range cmds {
		if rng.IntN(32) == 0 {
			cmd.Yaw = uint16(rng.Uint32())
			cmd.Buttons = 0
			if rng.IntN(4) == 0 {
				cmd.Buttons = BtnCrouch
			}
		}
		cmds[i] = cmd
	}
	s := spawnClear(b, rng, &p, boxes)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		s = Move(s, cmds[i%len(cmds)], g, &p)
	}
}

// BenchmarkMoveOpen is the cheapest case: walking on open ground.
func BenchmarkMoveOpen(b *testing.B) {
	p := DefaultParams()
	s := standing(0, 0)
	cmd := forward(30)
	b.ReportAllocs()
	for b.Loop() {
		s = Move(s, cmd, nil, &p)
		if s.Pos.X > 1000 {
			s = standing(0, 0)
		}
	}
}

func BenchmarkHitboxes(b *testing.B) {
	p := DefaultParams()
	s := PlayerState{Pos: geom.V(1, 2, 0), Yaw: 12345, Flags: FlagCrouched}
	b.ReportAllocs()
	var sink [NumParts]Part
	for b.Loop() {
		s.Yaw += 7
		sink = Hitboxes(s, &p)
	}
	_ = sink
}

var sinkState PlayerState

// BenchmarkInterpolate blends two states of a moving, turning player, as
// a client drawing remote players does for each of them every frame.
func BenchmarkInterpolate(b *testing.B) {
	hist := [2]PlayerState{
		PlayerState{Pos: geom.V(1, 2, 0), Vel: geom.V(4, 1, 0), Yaw: 100, Pitch: -20, Flags: FlagOnGround, Health: 80, Game: State{20, 3000}},
		PlayerState{Pos: geom.V(1.06, 2.02, 0), Vel: geom.V(4, 1.1, 0), Yaw: 160, Pitch: -10, Flags: FlagOnGround, Health: 80, Game: State{19, 1000}},
	}
	b.ReportAllocs()
	frac := 0.0
	for b.Loop() {
		frac += 0.013
		if frac > 1 {
			frac = 0
		}
		sinkState = Interpolate(hist[0], hist[1], frac)
	}
}

// BenchmarkStep is one command of a player running on open ground, as
// the server and the player's own client run it every tick.
func BenchmarkStep(b *testing.B) {
	p := DefaultParams()
	s := standing(0, 0)
	cmd := forward(30)
	b.ReportAllocs()
	for b.Loop() {
		s = Step(s, cmd, nil, &p)
		if s.Pos.X > 1000 {
			s.Pos = geom.Vec3{}
		}
	}
}
