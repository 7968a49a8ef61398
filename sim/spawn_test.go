package sim_test

import (
	"testing"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/netem"
	"github.com/lagkit/lagkit/server"
	"github.com/lagkit/lagkit/sim"
	"github.com/lagkit/lagkit/world"
)

// kitState is a team game's loadout: the kit of the player's team, for
// everyone to see, and its charges, its own.
type kitState struct {
	Kit     uint8 `lagkit:"max=2"`
	Charges uint8 `lagkit:"owner,max=7"`
}

var kitDecl = game.MustDeclare[kitState]()

// teamKit is the loadout of team: the first team's rifle of three
// charges, the second's launcher of one.
func teamKit(team int) kitState {
	if team == 0 {
		return kitState{Kit: 1, Charges: 3}
	}
	return kitState{Kit: 2, Charges: 1}
}

// TestSpawnByTeam: the respawn rule (server.Config.Spawn) is told each
// player's team, as the server's rules gave it, at its first spawn and
// at each respawn after a death: each team gets its own loadout, on the
// server and, through the snapshots, in its client's prediction.
func TestSpawnByTeam(t *testing.T) {
	link := netem.Config{Latency: 30 * time.Millisecond}
	type call struct{ id, team int }
	var calls []call
	var players []sim.PlayerConfig
	for i := range 4 {
		players = append(players, sim.PlayerConfig{Brain: lapper{side: int8(30 * (i - 2))}, Up: link, Down: link, JoinAt: time.Duration(i) * 10 * time.Millisecond})
	}
	d, err := sim.NewDriver(server.Config{
		Map: world.Field(), Seed: 4, Game: kitDecl.Layout,
		Rules:        func(server.RulesEnv) (server.Rules, error) { return twoTeams{}, nil },
		RespawnDelay: 500 * time.Millisecond, SpawnProtection: time.Millisecond,
		Spawn: func(id, team int, st *game.PlayerState) {
			calls = append(calls, call{id, team})
			kitDecl.Set(st, teamKit(team))
		},
	}, players, 4)
	if err != nil {
		t.Fatal(err)
	}
	// check fails unless every player holds its team's loadout, on the
	// server and in its client's prediction, and the rule was called
	// for each, in slot order, with its team.
	check := func(when string) {
		t.Helper()
		teams := map[int]int{}
		for _, p := range d.Players {
			id := p.Client.ID()
			st, team, ok := d.Server.PlayerState(id)
			teams[id] = team
			want := teamKit(team)
			pred := p.Client.Predicted()
			if got := kitDecl.Get(&st); !ok || got != want {
				t.Errorf("%s: player %d of team %d holds %+v on the server, want %+v", when, id, team, got, want)
			}
			if got := kitDecl.Get(&pred); got != want || p.Client.Team() != team {
				t.Errorf("%s: player %d of team %d (its client's %d) predicts %+v, want %+v", when, id, team, p.Client.Team(), got, want)
			}
		}
		if teams[0] == teams[1] || teams[0] != teams[2] || teams[1] != teams[3] {
			t.Fatalf("%s: teams %v, want two of two", when, teams)
		}
		if len(calls) != 4 {
			t.Fatalf("%s: the rule ran %d times, want once a player: %v", when, len(calls), calls)
		}
		for i, c := range calls {
			if c.id != i || c.team != teams[i] {
				t.Fatalf("%s: call %d was for player %d of team %d: %v", when, i, c.id, c.team, calls)
			}
		}
	}
	d.Run(time.Second, nil)
	check("joined")

	// Each spends its charges, and dies.
	calls = calls[:0]
	for _, p := range d.Players {
		id := p.Client.ID()
		if err := d.Server.Edit(id, func(st *game.PlayerState) { kitDecl.Of(st).Charges = 0 }); err != nil {
			t.Fatal(err)
		}
		if killed, err := d.Server.Damage(id, 1000, id); !killed || err != nil {
			t.Fatalf("player %d not killed: %v", id, err)
		}
	}
	d.Run(1200*time.Millisecond, nil)
	for _, p := range d.Players {
		if st, _, _ := d.Server.PlayerState(p.Client.ID()); kitDecl.Get(&st).Charges != 0 || len(calls) != 0 {
			t.Fatalf("player %d respawned before the delay: %+v, %v", p.Client.ID(), kitDecl.Get(&st), calls)
		}
	}
	d.Run(2*time.Second, nil)
	check("respawned")
}
