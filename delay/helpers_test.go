package delay

import (
	"testing"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/world"
	"github.com/lagkit/lagkit/world/worldtest"
)

const (
	ms   = time.Millisecond
	tick = time.Second / 64
)

// bench is a Delayer and its players, read every 64 Hz tick.
type bench struct {
	t       *testing.T
	d       *Delayer
	players []Player
	team    []int // nil: everyone is everyone's enemy
	n       uint32
}

// newBench returns a delayer for cfg on map m (nil: the open test map)
// with a player in a slot for each one-way latency, all standing at the
// origin facing +X.
func newBench(t *testing.T, m *world.Map, cfg Config, latencies ...time.Duration) *bench {
	t.Helper()
	if m == nil {
		m = worldtest.Open(t)
	}
	p := game.DefaultParams()
	d, err := New(cfg, Env{Slots: len(latencies), Grid: m.Grid, Params: &p, FOVDeg: 90}, tick)
	if err != nil {
		t.Fatal(err)
	}
	b := &bench{t: t, d: d}
	for i, l := range latencies {
		d.Join(i)
		b.players = append(b.players, Player{Present: true, Latency: l, State: game.PlayerState{Flags: game.FlagOnGround, Health: game.MaxHealth}})
	}
	return b
}

// place puts player i at pos facing yaw (radians).
func (b *bench) place(i int, pos geom.Vec3, yaw float64) {
	b.players[i].State.Pos, b.players[i].State.Yaw = pos, game.YawUnits(yaw)
}

// run runs the delayer through ticks more ticks.
func (b *bench) run(ticks uint32) {
	enemies := func(i, j int) bool { return b.team == nil || b.team[i] != b.team[j] }
	for range ticks {
		b.n++
		b.d.Tick(time.Duration(b.n)*tick, b.players, enemies)
	}
}
