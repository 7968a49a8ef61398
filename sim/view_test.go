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

// mudSlot holds the mud: an entity whose position marks a patch 2 m
// across in which the players wade at half speed.
const mudSlot = 120

// mudStep is lagkit's step at half the command's speed for a player
// standing in the mud, as the step's view of the match shows it.
func mudStep(s game.PlayerState, cmd game.UserCmd, ctx *game.StepCtx) (game.PlayerState, bool) {
	if mud, ok := ctx.View.Entity(mudSlot); ok && s.Pos.Sub(mud.Pos).Len() < 2 {
		cmd.Forward, cmd.Side = cmd.Forward/2, cmd.Side/2
	}
	return ctx.Step(s, cmd)
}

// eastward runs along +X.
type eastward struct{}

func (eastward) Input(time.Duration, *client.Client) game.UserCmd { return game.UserCmd{Forward: 127} }

// runMud plays a runner through the mud at (6, 0) for 3 s over 50 ms
// links, its client seeing the entities from slot first on, and returns
// where it ended and how many of its predictions had the position wrong.
func runMud(t *testing.T, first int, mud bool) (geom.Vec3, int) {
	t.Helper()
	link := netem.Config{Latency: 50 * time.Millisecond}
	d, err := sim.NewDriver(server.Config{Map: world.Field(), MaxClients: 4, Seed: 2, Step: mudStep},
		[]sim.PlayerConfig{{Brain: eastward{}, Up: link, Down: link, Client: client.Config{FirstEntity: first}}}, 3)
	if err != nil {
		t.Fatal(err)
	}
	if mud {
		if err := d.Server.SetEntity(mudSlot, game.PlayerState{Pos: geom.V(6, 0, 0)}, nil); err != nil {
			t.Fatal(err)
		}
	}
	d.Run(500*time.Millisecond, nil)
	d.Server.Place(0, geom.V(0, 0, 0), 0)
	d.Run(time.Second, nil)
	tl := newTold(1) // from here on
	d.Run(4*time.Second, sim.ClientReadys(tl.observe))
	st, _, _ := d.Server.PlayerState(0)
	return st.Pos, tl.wrong[0]["pos"]
}

// TestStepSeesEntities: a step slows a player in the mud an entity
// marks, on the server and in the owner's prediction alike: the runner
// ends behind one on dry ground, and its client, which sees the mud in
// its snapshots, predicts every step exactly; a client that does not
// look at the mud's slot mispredicts as it wades.
func TestStepSeesEntities(t *testing.T) {
	dry, _ := runMud(t, 0, false)
	wet, wrong := runMud(t, 0, true)
	if !(wet.X < dry.X-0.5) {
		t.Fatalf("through the mud to x %.2f, on dry ground to %.2f", wet.X, dry.X)
	}
	if wrong != 0 {
		t.Fatalf("the runner's position mispredicted %d times", wrong)
	}
	blind, blindWrong := runMud(t, mudSlot+1, true)
	t.Logf("dry %.2f, wet %.2f (%d wrong), blind %d wrong", dry.X, wet.X, wrong, blindWrong)
	if blind != wet || blindWrong == 0 {
		t.Fatalf("a client blind to the mud: ended at %v (the server's %v), %d mispredictions", blind, wet, blindWrong)
	}
}
