package arena_test

import (
	"math"
	"testing"
	"time"

	"github.com/lagkit/lagkit/client"
	"github.com/lagkit/lagkit/examples/arena2d/arena"
	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/netem"
	"github.com/lagkit/lagkit/server"
	"github.com/lagkit/lagkit/sim"
)

// refereed runs the arena's referee with each of the simulated server's
// handovers, as a live match's OnTick does, and counts, field by field,
// the predictions of the clients' handovers that had a field wrong.
type refereed struct {
	r           *arena.Referee
	missed      map[string]int
	predictions int
}

func (o *refereed) Delivered(_ time.Duration, _ int, _ *sim.Player, r *client.Ready) {
	o.predictions += r.Predictions
	for _, m := range r.Mispredictions {
		o.missed[m.Field] += m.Wrong
	}
}
func (*refereed) Ticked(time.Duration, int, *sim.Player, *client.Ready) {}
func (*refereed) ServerTicked(time.Duration, *server.Server)            {}
func (o *refereed) ServerReady(_ time.Duration, s *server.Server, r *server.Ready) {
	o.r.Tick(s, r)
}

// TestArenaStatePredicted: two bots of two teams play the arena on the
// simulator over 60 ms links with 2% loss until the crate breaks and
// one kills the other. The arena's eight declared fields travel; every
// one the players' own step changes (stamina, the dash's wait, ammo,
// reload, the blink's 45 s wait) is predicted exactly; the server
// grants the breaker a shield into its predicted state, which its bot
// sees and raises.
func TestArenaStatePredicted(t *testing.T) {
	link := netem.Config{Latency: 60 * time.Millisecond, Loss: 0.02}
	ref := arena.NewReferee()
	bots := []*arena.Bot{{}, {}}
	var players []sim.PlayerConfig
	for i, b := range bots {
		cc := arena.ClientConfig("bot")
		cc.Name = []string{"bot0", "bot1"}[i]
		players = append(players, sim.PlayerConfig{Client: cc, Brain: b, Up: link, Down: link})
	}
	d, err := sim.NewDriver(server.Config{
		Map: arena.Map(), Seed: 4, Rules: arena.NewRules,
		Step: arena.Step, Game: arena.Decl.Layout, Cmd: arena.CmdDecl.CmdLayout, Spawn: arena.Spawn, Died: arena.Died, Body: arena.PlayerBody, Shots: ref,
	}, players, 4)
	if err != nil {
		t.Fatal(err)
	}
	obs := &refereed{r: ref, missed: map[string]int{}}
	blinked := false
	for at := time.Second; at <= 60*time.Second; at += time.Second {
		d.Run(at, obs)
		for _, p := range d.Players {
			me := p.Client.Predicted()
			if arena.Decl.Of(&me).BlinkWait > 32*time.Second {
				blinked = true
			}
		}
		if r := ref.Record(); r.BrokenBy >= 0 && len(r.Kills) > 0 && blinked {
			break
		}
	}
	r := ref.Record()
	if r.BrokenBy < 0 || len(r.Kills) == 0 {
		t.Fatalf("after %v: %+v", d.Now(), r)
	}
	if len(arena.Decl.Fields()) < 7 {
		t.Fatalf("%d declared fields", len(arena.Decl.Fields()))
	}
	for _, f := range []string{"Stamina", "DashWait", "Ammo", "Reload", "BlinkWait"} {
		if obs.missed[f] != 0 {
			t.Errorf("%s mispredicted %d times in %d predictions", f, obs.missed[f], obs.predictions)
		}
	}
	if obs.predictions < 300 {
		t.Errorf("%d predictions measured", obs.predictions)
	}
	if !blinked {
		t.Error("no bot predicted a blink's cooldown beyond 32 s")
	}
	// The arena's rules scored the kills, every one an enemy's; the
	// crate's wreck is an entity the server and every client's step see.
	if ts := d.Server.Rules().TeamScore(); d.Server.Rules().Name() != "arena" || ts[0]+ts[1] != len(r.Kills) {
		t.Errorf("rules %q scored %v for %d kills", d.Server.Rules().Name(), ts, len(r.Kills))
	}
	if _, ok := d.Server.Entity(arena.WreckSlot); !ok {
		t.Error("no wreck where the crate broke")
	}
	for i, p := range d.Players {
		if _, ok := p.Client.View().Entity(arena.WreckSlot); !ok {
			t.Errorf("bot %d's step does not see the wreck", i)
		}
	}
	if by := lootedBy(bots); r.Looted != r.BrokenBy || by != r.BrokenBy {
		t.Errorf("loot granted to %d, predicted by the bot in slot %d; the crate broken by %d", r.Looted, by, r.BrokenBy)
	}
	t.Logf("%v: %+v; mispredicted %v of %d", d.Now(), r, obs.missed, obs.predictions)
}

// TestBlinkReach: the blink goes as far as the command's declared Reach
// says, at most BlinkLength; a command without one does not blink and
// keeps the cooldown free.
func TestBlinkReach(t *testing.T) {
	m := arena.Map()
	params := game.DefaultParams()
	ctx := &game.StepCtx{Grid: m.Grid, Params: &params}
	start := game.PlayerState{Pos: geom.V(-15, 0, 0), Health: game.MaxHealth}
	for _, tc := range []struct {
		reach, want float64
	}{{2.5, 2.5}, {6, 6}, {0, 0}} {
		cmd := game.UserCmd{Duration: 15625 * time.Microsecond, Buttons: arena.BtnBlink}
		arena.CmdDecl.Of(&cmd).Reach = float32(tc.reach)
		st, _ := arena.Step(start, cmd, ctx)
		if moved := st.Pos.X - start.Pos.X; math.Abs(moved-tc.want) > 0.01 {
			t.Errorf("reach %v: moved %.3f m, want %v", tc.reach, moved, tc.want)
		}
		if waited := arena.Decl.Of(&st).BlinkWait > 0; waited != (tc.want > 0) {
			t.Errorf("reach %v: cooldown %v", tc.reach, arena.Decl.Of(&st).BlinkWait)
		}
	}
	var c game.UserCmd
	arena.CmdDecl.Of(&c).Reach = 7
	if err := arena.CmdDecl.Check(&c.Game); err == nil {
		t.Error("a reach of 7 m passed its check")
	}
}

// TestWreckSlows: the arena's step runs a player standing in the wreck,
// as the step's view of the match shows it, at half speed.
func TestWreckSlows(t *testing.T) {
	m := arena.Map()
	params := game.DefaultParams()
	var view game.MatchView
	view.Add(arena.WreckSlot, game.PlayerState{Pos: geom.V(0, 0, 0)})
	run := func(from geom.Vec3, v *game.MatchView) float64 {
		ctx := &game.StepCtx{Grid: m.Grid, Params: &params, View: v}
		st := game.PlayerState{Pos: from, Flags: game.FlagOnGround, Health: game.MaxHealth}
		for n := uint32(1); n <= 16; n++ {
			st, _ = arena.Step(st, game.UserCmd{Tick: n, Duration: time.Second / 64, Forward: 127}, ctx)
		}
		return st.Pos.X - from.X
	}
	dry, wet, far := run(geom.V(-1, 0, 0), nil), run(geom.V(-1, 0, 0), &view), run(geom.V(-1, 8, 0), &view)
	if !(wet < 0.7*dry) || far != dry {
		t.Fatalf("in 16 ticks: %.3f m on dry ground, %.3f in the wreck, %.3f beside it", dry, wet, far)
	}
}
