package arena_test

import (
	"testing"
	"time"

	"github.com/lagkit/lagkit/examples/arena2d/arena"
	"github.com/lagkit/lagkit/mode"
	"github.com/lagkit/lagkit/netem"
	"github.com/lagkit/lagkit/server"
	"github.com/lagkit/lagkit/shooter"
	"github.com/lagkit/lagkit/sim"
)

// refereed runs the arena's referee with each of the simulated server's
// handovers, as a live match's OnTick does.
type refereed struct{ r *arena.Referee }

func (refereed) Delivered(time.Duration, int, *sim.Player)  {}
func (refereed) Ticked(time.Duration, int, *sim.Player)     {}
func (refereed) ServerTicked(time.Duration, *server.Server) {}
func (o refereed) ServerReady(_ time.Duration, s *server.Server, r *server.Ready) {
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
		Map: arena.Map(), Seed: 4, Rules: shooter.Rules(mode.Config{Mode: mode.TDM}),
		Step: arena.Step, Game: arena.Decl.Layout, Spawn: arena.Spawn, Body: arena.PlayerBody, GameShots: true,
	}, players, 4)
	if err != nil {
		t.Fatal(err)
	}
	obs := refereed{ref}
	missed := map[string]int{}
	predictions := 0
	blinked := false
	for at := time.Second; at <= 60*time.Second; at += time.Second {
		d.Run(at, obs)
		for _, p := range d.Players {
			ms, of := p.Client.Mispredictions()
			predictions += of
			for _, m := range ms {
				missed[m.Field] += m.Wrong
			}
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
		if missed[f] != 0 {
			t.Errorf("%s mispredicted %d times in %d predictions", f, missed[f], predictions)
		}
	}
	if predictions < 300 {
		t.Errorf("%d predictions measured", predictions)
	}
	if !blinked {
		t.Error("no bot predicted a blink's cooldown beyond 32 s")
	}
	if by := lootedBy(bots); r.Looted != r.BrokenBy || by != r.BrokenBy {
		t.Errorf("loot granted to %d, predicted by the bot in slot %d; the crate broken by %d", r.Looted, by, r.BrokenBy)
	}
	t.Logf("%v: %+v; mispredicted %v of %d", d.Now(), r, missed, predictions)
}
