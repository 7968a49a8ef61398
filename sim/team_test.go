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

// squadState is a team game's state of a player: the commands it ran,
// which its step counts and its owner predicts, and the target the
// server marked for it, both for its team mates' eyes; and a badge for
// everyone's.
type squadState struct {
	Steps uint16 `lagkit:"team"`
	Mark  uint8  `lagkit:"team"`
	Badge uint8
}

var squadDecl = game.MustDeclare[squadState]()

func squadStep(s game.PlayerState, cmd game.UserCmd, ctx *game.StepCtx) (game.PlayerState, bool) {
	s, fired := ctx.Step(s, cmd)
	squadDecl.Of(&s).Steps++
	return s, fired
}

// squadMatch plays four runners (two teams under twoTeams, none under
// rules nil) and an entity in slot 100 with team fields, the server
// marking each player and the entity at 1 s; it returns the driver
// after 6 s and the owners' mispredictions of the team fields from 2 s
// on, over how many predictions.
func squadMatch(t *testing.T, rules func(server.RulesEnv) (server.Rules, error)) (d *sim.Driver, wrong, of int) {
	t.Helper()
	link := netem.Config{Latency: 30 * time.Millisecond, Loss: 0.02}
	var players []sim.PlayerConfig
	for i := range 4 {
		players = append(players, sim.PlayerConfig{Brain: lapper{side: int8(20 * (i - 2))}, Up: link, Down: link, JoinAt: time.Duration(i) * 10 * time.Millisecond})
	}
	d, err := sim.NewDriver(server.Config{Map: world.Field(), Seed: 2, Step: squadStep, Game: squadDecl.Layout, Rules: rules}, players, 3)
	if err != nil {
		t.Fatal(err)
	}
	d.Run(time.Second, nil)
	for _, p := range d.Players {
		id := p.Client.ID()
		if err := d.Server.Edit(id, func(st *game.PlayerState) {
			sq := squadDecl.Of(st)
			sq.Mark, sq.Badge = uint8(10+id), uint8(id)
		}); err != nil {
			t.Fatal(err)
		}
	}
	var crate game.PlayerState
	crate.Pos = geom.V(5, 5, 0)
	squadDecl.Set(&crate, squadState{Steps: 9, Mark: 9, Badge: 100})
	if err := d.Server.SetEntity(100, crate, nil); err != nil {
		t.Fatal(err)
	}
	d.Run(2*time.Second, nil)
	d.Run(6*time.Second, sim.ClientReadys(func(_ time.Duration, _ int, _ *sim.Player, r *client.Ready) {
		wrong += r.Mispredicted("Steps") + r.Mispredicted("Mark") + r.Mispredicted("Badge")
		of += r.Predictions
	}))
	return d, wrong, of
}

// TestTeamFields: fields sent to the team reach the owner, who predicts
// them without a misprediction, and its team mates, who draw them; an
// enemy, and every player in free-for-all, holds them zero, and an
// entity's go to no one; the fields sent to all reach everyone.
func TestTeamFields(t *testing.T) {
	for _, tc := range []struct {
		name  string
		rules func(server.RulesEnv) (server.Rules, error)
	}{
		{"teams", func(server.RulesEnv) (server.Rules, error) { return twoTeams{}, nil }},
		{"free-for-all", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, wrong, of := squadMatch(t, tc.rules)
			if wrong != 0 || of < 500 {
				t.Errorf("the owners mispredicted their team fields %d times in %d predictions", wrong, of)
			}
			now, mates := d.Now(), 0
			for _, p := range d.Players {
				c := p.Client
				me := c.Predicted()
				if got := squadDecl.Get(&me); got.Mark != uint8(10+c.ID()) || got.Steps == 0 {
					t.Errorf("player %d predicts its own %+v", c.ID(), got)
				}
				for _, o := range d.Players {
					id := o.Client.ID()
					if id == c.ID() {
						continue
					}
					st, ok := c.Remote(id, c.ViewTime(now))
					if !ok {
						t.Fatalf("player %d does not draw player %d", c.ID(), id)
					}
					got := squadDecl.Get(&st)
					_, team, _ := d.Server.PlayerState(id)
					mate := tc.rules != nil && team == c.Team()
					switch {
					case got.Badge != uint8(id):
						t.Errorf("player %d draws player %d's badge %d", c.ID(), id, got.Badge)
					case mate && (got.Mark != uint8(10+id) || got.Steps < 300):
						t.Errorf("player %d draws its team mate %d with %+v", c.ID(), id, got)
					case !mate && (got.Mark != 0 || got.Steps != 0):
						t.Errorf("player %d draws player %d, not a team mate, with %+v", c.ID(), id, got)
					}
					if mate {
						mates++
					}
				}
				st, ok := c.Remote(100, c.ViewTime(now))
				if got := squadDecl.Get(&st); !ok || got != (squadState{Badge: 100}) {
					t.Errorf("player %d draws the entity (%v) with %+v", c.ID(), ok, got)
				}
			}
			if want := map[bool]int{true: 4, false: 0}[tc.rules != nil]; mates != want {
				t.Errorf("%d pairs of team mates, want %d", mates, want)
			}
		})
	}
}
