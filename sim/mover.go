package sim

import (
	"math"
	"math/rand/v2"
	"time"

	"github.com/lagkit/lagkit/client"
	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/world"
)

// mover is a scripted player: a random-waypoint walker that also crouches
// and jumps, driven only by what its own client predicts, with its own
// seeded generator.
type mover struct {
	rng    *rand.Rand
	m      *world.Map
	params *game.Params

	target     geom.Vec3
	hasTarget  bool
	pitch      int16 // where the player looks up or down on this leg
	crouchTill time.Duration
	nextJump   time.Duration
	checkAt    time.Duration // when progress is next checked
	checkPos   geom.Vec3
	query      []int
}

func newMover(seed uint64, m *world.Map, p *game.Params) *mover {
	return &mover{
		rng:    rand.New(rand.NewPCG(seed, seed^0xda3e39cb94b95bdb)),
		m:      m,
		params: p,
		query:  make([]int, 0, 64),
	}
}

// pickTarget chooses a random open spot on the ground and a view pitch
// for the walk there.
func (mv *mover) pickTarget() {
	b := mv.m.Bounds
	mv.target = geom.V(b.Center().X, b.Center().Y, 0)
	for range 64 {
		p := geom.V(
			b.Min.X+1+mv.rng.Float64()*(b.Max.X-b.Min.X-2),
			b.Min.Y+1+mv.rng.Float64()*(b.Max.Y-b.Min.Y-2),
			0)
		if mv.open(p) {
			mv.target = p
			break
		}
	}
	mv.hasTarget = true
	mv.pitch = game.PitchUnits((mv.rng.Float64() - 0.5) * 0.4)
}

// open reports whether a standing player fits at p with no box overlapping
// its bounds.
func (mv *mover) open(p geom.Vec3) bool {
	r := mv.params.Radius
	region := geom.AABB{Min: p.Sub(geom.V(r, r, 0)), Max: p.Add(geom.V(r, r, mv.params.Height))}
	mv.query = mv.m.Grid.Query(region, mv.query[:0])
	return len(mv.query) == 0
}

// Input returns the next command's input for the player, steering by the
// state its client predicts.
func (mv *mover) Input(now time.Duration, c *client.Client) game.UserCmd {
	st := c.Predicted()
	if !mv.hasTarget {
		mv.pickTarget()
		mv.checkAt, mv.checkPos = now+2*time.Second, st.Pos
	}
	to := mv.target.Sub(st.Pos)
	to.Z = 0
	if to.Len() < 0.5 {
		mv.pickTarget()
		to = mv.target.Sub(st.Pos)
		to.Z = 0
	}
	if now >= mv.checkAt {
		// Stuck against something: walk somewhere else.
		if d := st.Pos.Sub(mv.checkPos); math.Hypot(d.X, d.Y) < 0.5 {
			mv.pickTarget()
		}
		mv.checkAt, mv.checkPos = now+2*time.Second, st.Pos
	}
	var cmd game.UserCmd
	cmd.Yaw = game.YawUnits(math.Atan2(to.Y, to.X))
	// Turn the view towards this leg's pitch at up to 90 degrees a second.
	const maxTurn = game.AngleUnits / 4 / 64
	cmd.Pitch = st.Pitch + max(-maxTurn, min(maxTurn, mv.pitch-st.Pitch))
	cmd.Forward = 127
	if now >= mv.crouchTill && mv.rng.Float64() < 0.002 {
		mv.crouchTill = now + time.Duration(500+mv.rng.IntN(1500))*time.Millisecond
	}
	if now < mv.crouchTill {
		cmd.Buttons |= game.BtnCrouch
	}
	if now >= mv.nextJump {
		if mv.nextJump != 0 {
			cmd.Buttons |= game.BtnJump
		}
		mv.nextJump = now + time.Duration(1000+mv.rng.IntN(4000))*time.Millisecond
	}
	return cmd
}
