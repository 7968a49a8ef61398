package lagcomp

import (
	"math"
	"math/rand/v2"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
)

// A CrowdShot is one precomputed shot at a Crowd: shooter's slot, its
// ray and the server time it rewinds to.
type CrowdShot struct {
	Shooter int
	Ray     geom.Ray
	T       time.Duration
}

// Crowd records 64 players circling on metro's station floor for 1.25 s at
// 128 Hz, one full history and then some, every fifth crouching and every
// sixteenth respawning elsewhere about 150 ms before the end. It returns a
// tracer over it with count shots: each from a random player's eye, aimed
// within half a metre of another random player's torso as it stood about
// 150 ms before the newest tick (a 100 ms interpolation delay and a 50 ms
// round trip). The walls and pillars of grid (metro's, which the
// players' lattice is laid out for; the caller loads the map, so lagcomp
// needs no map code) and other players stand in the way of many of them.
// It is the load of the rewind benchmarks (lagcomp's and `lagkit bench`).
func Crowd(grid *geom.Grid, count int) (*Tracer, []CrowdShot) {
	const (
		players = 64
		rate    = 128
	)
	p := game.DefaultParams()
	dt := game.TickDuration(rate)
	h := NewHistory(dt, time.Second, players)
	rng := rand.New(rand.NewPCG(1, 2))
	type walker struct {
		centre     geom.Vec3
		phase, dir float64
	}
	walkers := make([]walker, players)
	for i := range walkers {
		// An 8 x 8 lattice over the station floor, each player circling
		// 2 m around its point at 4 m/s (2 rad/s).
		walkers[i] = walker{
			centre: geom.V(-26+float64(i%8)*52/7, -10+float64(i/8)*20/7, 0),
			phase:  rng.Float64() * 2 * math.Pi,
			dir:    float64(1 - 2*rng.IntN(2)),
		}
	}
	const ticks = rate + rate/4
	for n := uint32(1); n <= ticks; n++ {
		h.Begin(n)
		for i, w := range walkers {
			a := w.phase + w.dir*2*h.TickTime(n).Seconds()
			sin, cos := math.Sincos(a)
			st := game.PlayerState{
				Pos:    game.SnapPos(w.centre.Add(geom.V(2*cos, 2*sin, 0))),
				Vel:    geom.V(-4*w.dir*sin, 4*w.dir*cos, 0),
				Yaw:    game.YawUnits(a + w.dir*math.Pi/2),
				Flags:  game.FlagOnGround,
				Health: game.MaxHealth,
			}
			if i%5 == 0 {
				st.Flags |= game.FlagCrouched
			}
			if i%16 == 3 && n > ticks-20 {
				st.Pos.X, st.Teleport = -st.Pos.X, 1
			}
			h.Set(i, st)
		}
	}
	tr := &Tracer{History: h, Grid: grid, Params: &p}
	now := h.TickTime(ticks)
	shots := make([]CrowdShot, count)
	for k := range shots {
		shooter := rng.IntN(players)
		victim := (shooter + 1 + rng.IntN(players-1)) % players
		t := now - 150*time.Millisecond + time.Duration(rng.IntN(int(dt)))
		self, _ := h.At(shooter, now)
		target, _ := h.At(victim, t)
		eye := game.EyePos(self, &p)
		aim := game.Hitboxes(target, &p)[game.PartTorso].Origin.Add(geom.V(rng.Float64()-0.5, rng.Float64()-0.5, rng.Float64()-0.5))
		shots[k] = CrowdShot{Shooter: shooter, Ray: geom.Ray{Origin: eye, Dir: aim.Sub(eye).Norm()}, T: t}
	}
	return tr, shots
}
