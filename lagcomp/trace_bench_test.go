package lagcomp

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/world"
)

// benchShot is one precomputed shot of the rewind benchmark.
type benchShot struct {
	shooter int
	ray     geom.Ray
	t       time.Duration
}

// crowd records 64 players circling on the metro map for 1.25 s at
// 128 Hz, one full history and then some, every fifth crouching and every
// sixteenth respawning elsewhere about 150 ms before the end. It returns a
// tracer over it with count shots: each from a random player's eye, aimed
// within half a metre of another random player's torso as it stood about
// 150 ms before the newest tick (a 100 ms interpolation delay and a 50 ms
// round trip). Walls, pillars and other players stand in the way of many
// of them.
func crowd(b testing.TB, count int) (*Tracer, []benchShot) {
	m, err := world.Load("metro")
	if err != nil {
		b.Fatal(err)
	}
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
	tr := &Tracer{History: h, Grid: m.Grid, Params: &p}
	now := h.TickTime(ticks)
	shots := make([]benchShot, count)
	for k := range shots {
		shooter := rng.IntN(players)
		victim := (shooter + 1 + rng.IntN(players-1)) % players
		t := now - 150*time.Millisecond + time.Duration(rng.IntN(int(dt)))
		self, _ := h.At(shooter, now)
		target, _ := h.At(victim, t)
		eye := game.EyePos(self, &p)
		aim := game.Hitboxes(target, &p)[game.PartTorso].Origin.Add(geom.V(rng.Float64()-0.5, rng.Float64()-0.5, rng.Float64()-0.5))
		shots[k] = benchShot{shooter: shooter, ray: geom.Ray{Origin: eye, Dir: aim.Sub(eye).Norm()}, t: t}
	}
	return tr, shots
}

// BenchmarkRewindTrace64 is the cost of one rewound shot on a full
// server: 64 players with a second of 128 Hz history on the metro map.
func BenchmarkRewindTrace64(b *testing.B) {
	tr, shots := crowd(b, 256)
	hits := 0
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		s := &shots[i%len(shots)]
		if _, ok := tr.Trace(s.ray, 200, s.t, s.shooter); ok {
			hits++
		}
	}
	if hits == 0 {
		b.Fatal("no shot hit anyone: the benchmark measures nothing")
	}
}

// BenchmarkBehindCover is the cost of SBC detection for one hit, as the
// server runs it on every hit and every denial and the victim's client on
// every hit it receives.
func BenchmarkBehindCover(b *testing.B) {
	tr, shots := crowd(b, 256)
	type sbc struct {
		st    game.PlayerState
		part  game.PartKind
		local geom.Vec3
		eye   geom.Vec3
	}
	var cases []sbc
	for _, s := range shots {
		if h, ok := tr.Trace(s.ray, 200, s.t, s.shooter); ok {
			newest, _ := tr.History.Newest()
			now, _ := tr.History.At(h.Victim, tr.History.TickTime(newest))
			cases = append(cases, sbc{now, h.Part, h.Local, s.ray.Origin})
		}
	}
	if len(cases) == 0 {
		b.Fatal("no hits to check")
	}
	behind := 0
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		c := &cases[i%len(cases)]
		if BehindCover(c.st, c.part, c.local, c.eye, tr.Grid, tr.Params) {
			behind++
		}
	}
	_ = behind
}
