package sim_test

import (
	"errors"
	"testing"
	"time"

	"github.com/lagkit/lagkit/client"
	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/lagcomp"
	"github.com/lagkit/lagkit/netem"
	"github.com/lagkit/lagkit/server"
	lkshooter "github.com/lagkit/lagkit/shooter"
	"github.com/lagkit/lagkit/shooter/mode"
	"github.com/lagkit/lagkit/sim"
	"github.com/lagkit/lagkit/world"
)

// lootState is a game's state of a player: charges it spends one a
// second while it holds a game button, handed out at spawn and granted
// by the server as loot; and a buff only the server decides.
type lootState struct {
	Charges uint16        `lagkit:"owner,max=1000"`
	Next    time.Duration `lagkit:"owner,q=1ms,max=2m"` // until a charge may be spent
	Buffed  bool
}

var lootDecl = game.MustDeclare[lootState]()

func lootStep(s game.PlayerState, cmd game.UserCmd, ctx *game.StepCtx) (game.PlayerState, bool) {
	s, fired := ctx.Step(s, cmd)
	ls := lootDecl.Of(&s)
	ls.Next = max(0, ls.Next-cmd.Duration)
	if cmd.Buttons.Has(game.BtnGame) && ls.Charges > 0 && ls.Next == 0 {
		ls.Charges--
		ls.Next = time.Second
	}
	return s, fired
}

// spender holds the game button for its first two and a half seconds.
type spender struct{}

func (spender) Input(now time.Duration, _ *client.Client) game.UserCmd {
	var cmd game.UserCmd
	if now < 2500*time.Millisecond {
		cmd.Buttons = game.BtnGame
	}
	return cmd
}

// lootReferee grants 10 charges and the buff once, at 3 s, and places
// the player at 5 s.
type lootReferee struct {
	sim.NoObserver
	granted, placed bool
	err             error
	told            *told
}

func (r *lootReferee) Delivered(now time.Duration, i int, p *sim.Player, rd *client.Ready) {
	r.told.observe(now, i, p, rd)
}
func (r *lootReferee) ServerTicked(now time.Duration, s *server.Server) {
	if now >= 3*time.Second && !r.granted {
		r.granted = true
		r.err = s.Edit(0, func(st *game.PlayerState) {
			ls := lootDecl.Of(st)
			ls.Charges += 10
			ls.Buffed = true
		})
	}
	if now >= 5*time.Second && !r.placed {
		r.placed = true
		s.Place(0, geom.V(3, 3, 0), 0)
	}
}

// TestServerEditsGameState: the game's spawn rule hands out a loadout;
// the owner predicts spending it; the server grants loot into the
// predicted state between ticks (Edit), which the owner's prediction
// takes up from its next snapshots; a placement keeps the state, and
// nothing else about it is mispredicted.
func TestServerEditsGameState(t *testing.T) {
	link := netem.Config{Latency: 40 * time.Millisecond}
	spawns := 0
	d, err := sim.NewDriver(server.Config{
		Map: world.Field(), Seed: 3, Step: lootStep, Game: lootDecl.Layout,
		Spawn: func(_, _ int, st *game.PlayerState) {
			spawns++
			if ls := lootDecl.Of(st); ls.Charges == 0 {
				ls.Charges = 3 // the loadout of a player with none left
			}
		},
	}, []sim.PlayerConfig{{Brain: spender{}, Up: link, Down: link}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Server.Edit(5, func(*game.PlayerState) {}); !errors.Is(err, server.ErrNoPlayer) {
		t.Fatalf("edit of an empty slot: %v", err)
	}
	ref := &lootReferee{told: newTold(1)}
	c := d.Players[0].Client
	d.Run(2900*time.Millisecond, ref)
	// Three charges at spawn, spent a second apart from the first
	// command on: all three within two and a half seconds.
	if pred := c.Predicted(); lootDecl.Get(&pred).Charges != 0 || lootDecl.Get(&pred).Buffed {
		got := lootDecl.Get(&pred)
		t.Fatalf("before the grant the client predicts %+v", got)
	}
	d.Run(4*time.Second, ref)
	if ref.err != nil {
		t.Fatal(ref.err)
	}
	pred := c.Predicted()
	if got := lootDecl.Get(&pred); got.Charges != 10 || !got.Buffed {
		t.Fatalf("after the grant the client predicts %+v", got)
	}
	if st, _, _ := d.Server.PlayerState(0); lootDecl.Get(&st).Charges != 10 {
		t.Fatalf("server holds %+v", lootDecl.Get(&st))
	}
	d.Run(6*time.Second, ref)
	st, _, _ := d.Server.PlayerState(0)
	if got := lootDecl.Get(&st); got.Charges != 10 || !got.Buffed || spawns != 2 {
		t.Fatalf("after a placement (%d spawns) the server holds %+v", spawns, got)
	}
	if w := ref.told.wrong[0]; w["Charges"] > 1 || w["Next"] != 0 || w["Buffed"] > 1 {
		t.Fatalf("mispredicted charges %d, next %d, buffed %d", w["Charges"], w["Next"], w["Buffed"])
	}
}

// ctxState records, each command, what the step's context says.
type ctxState struct {
	Tick uint32        `lagkit:"owner"`
	Time time.Duration `lagkit:"owner"`
	Slot uint8         `lagkit:"owner"`
	Team uint8         `lagkit:"owner"`
}

var ctxDecl = game.MustDeclare[ctxState]()

func ctxStep(s game.PlayerState, cmd game.UserCmd, ctx *game.StepCtx) (game.PlayerState, bool) {
	s, fired := ctx.Step(s, cmd)
	ctxDecl.Set(&s, ctxState{Tick: ctx.Tick, Time: ctx.Time, Slot: uint8(ctx.Slot), Team: uint8(ctx.Team)})
	return s, fired
}

// TestStepContext: the context a step reads (its command's tick and
// time, its slot and team) is the same on the server, live and when
// time warp re-runs a tick, and in the owner's prediction: four
// players of two teams, firing into each other over lossy links,
// never mispredict it.
func TestStepContext(t *testing.T) {
	link := netem.Config{Latency: 60 * time.Millisecond, Loss: 0.05}
	var players []sim.PlayerConfig
	for range 4 {
		players = append(players, sim.PlayerConfig{Brain: spender{}, Up: link, Down: link})
	}
	d, err := sim.NewDriver(server.Config{
		Map: world.Field(), Seed: 8, Step: ctxStep, Game: ctxDecl.Layout,
		Rules: lkshooter.Rules(mode.Config{Mode: mode.TDM}), TimeWarp: 200 * time.Millisecond, Policy: lagcomp.Config{Name: "none"},
	}, players, 2)
	if err != nil {
		t.Fatal(err)
	}
	tl := newTold(len(players))
	d.Run(4*time.Second, sim.ClientReadys(tl.observe))
	teams := map[int]bool{}
	for i, p := range d.Players {
		c := p.Client
		of := tl.of[i]
		for _, f := range []string{"Tick", "Time", "Slot", "Team"} {
			if n := tl.wrong[i][f]; n > 0 {
				t.Errorf("player %d: %s mispredicted %d times of %d", i, f, n, of)
			}
		}
		if of < 100 {
			t.Fatalf("player %d: %d predictions measured", i, of)
		}
		st, team, _ := d.Server.PlayerState(c.ID())
		got := ctxDecl.Get(&st)
		if int(got.Slot) != c.ID() || int(got.Team) != team || got.Tick == 0 || got.Time != time.Duration(got.Tick)*d.Server.TickDuration() {
			t.Errorf("player %d in slot %d, team %d: the server's step saw %+v", i, c.ID(), team, got)
		}
		teams[team] = true
	}
	if len(teams) != 2 {
		t.Fatalf("teams %v", teams)
	}
}
