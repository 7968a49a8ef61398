package sim_test

import (
	"testing"
	"time"

	"github.com/lagkit/lagkit/client"
	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/netem"
	"github.com/lagkit/lagkit/server"
	"github.com/lagkit/lagkit/sim"
	"github.com/lagkit/lagkit/world"
)

// forward walks straight ahead.
type forward struct{}

func (forward) Input(time.Duration, *client.Client) game.UserCmd {
	return game.UserCmd{Forward: 127}
}

// skate is a movement rule of a game's own: lagkit's step, then a glide
// of 2 cm a command along the velocity.
func skate(s game.PlayerState, cmd game.UserCmd, ctx *game.StepCtx) (game.PlayerState, bool) {
	s, fired := ctx.Step(s, cmd)
	if s.Vel.X != 0 || s.Vel.Y != 0 {
		d := geom.V(s.Vel.X, s.Vel.Y, 0).Norm().Scale(0.02)
		s.Pos = game.SnapPos(s.Pos.Add(d))
	}
	return s, fired
}

// walk runs one player walking forward for 3 s over a 100 ms round trip
// with 5% loss under step (nil: the default) and returns how far it went
// and its prediction errors.
func walk(t *testing.T, step game.StepFunc) (float64, []float64) {
	t.Helper()
	link := netem.Config{Latency: 50 * time.Millisecond, Loss: 0.05}
	d, err := sim.NewDriver(server.Config{Map: world.Field(), Step: step, Seed: 1},
		[]sim.PlayerConfig{{Brain: forward{}, Up: link, Down: link}}, 9)
	if err != nil {
		t.Fatal(err)
	}
	tl := newTold(1)
	var start geom.Vec3
	started := false
	for at := 100 * time.Millisecond; at <= 3*time.Second; at += 100 * time.Millisecond {
		d.Run(at, sim.ClientReadys(tl.observe))
		if st, _, ok := d.Server.PlayerState(0); ok && !started {
			start, started = st.Pos, true
		}
	}
	st, _, _ := d.Server.PlayerState(0)
	return st.Pos.Dist(start), tl.errs[0]
}

// TestCustomStep: a server and its clients take the game's movement rule:
// the server moves players by it and the client predicts with it, without
// error over a lossy link.
func TestCustomStep(t *testing.T) {
	base, _ := walk(t, nil)
	far, errs := walk(t, skate)
	if far < base+1 {
		t.Fatalf("the skating player went %.2f m, the walking one %.2f m: the server did not run the game's step", far, base)
	}
	if len(errs) < 50 {
		t.Fatalf("only %d prediction samples", len(errs))
	}
	for i, e := range errs {
		if e != 0 {
			t.Fatalf("prediction error %d is %v m, want 0", i, e)
		}
	}
}
