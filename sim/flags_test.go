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

// TestGameFlags: the game's own flags (game.GameFlags) are the game's
// alone. The server writes them into a player's predicted state
// (Server.Edit); every client sees them on the others and the owner
// predicts them (once an edit has reached it, as a correction, no flags
// mispredicted); a death and a respawn keep them (the netcode never
// writes them), and the game clears them when it chooses.
func TestGameFlags(t *testing.T) {
	link := netem.Config{Latency: 30 * time.Millisecond}
	var players []sim.PlayerConfig
	for i := range 3 {
		players = append(players, sim.PlayerConfig{Brain: lapper{side: int8(30 * (i - 1))}, Up: link, Down: link, JoinAt: time.Duration(i) * 10 * time.Millisecond})
	}
	d, err := sim.NewDriver(server.Config{Map: world.Field(), Seed: 5, RespawnDelay: 300 * time.Millisecond, SpawnProtection: time.Millisecond}, players, 5)
	if err != nil {
		t.Fatal(err)
	}
	told := newTold(len(players))
	d.Run(time.Second, nil)
	marks := map[int]game.StateFlags{0: game.FlagGame, 1: game.FlagGame2, 2: game.GameFlags}
	for id, f := range marks {
		if err := d.Server.Edit(id, func(st *game.PlayerState) { st.Flags |= f }); err != nil {
			t.Fatal(err)
		}
	}
	// seen fails unless every client's own prediction and its view of
	// every other player carry exactly the game flags want gives.
	seen := func(when string, want map[int]game.StateFlags) {
		t.Helper()
		for _, p := range d.Players {
			me := p.Client.ID()
			if st, _, _ := d.Server.PlayerState(me); st.Flags&game.GameFlags != want[me] {
				t.Errorf("%s: player %d has game flags %08b on the server, want %08b", when, me, st.Flags&game.GameFlags, want[me])
			}
			if got := p.Client.Predicted().Flags & game.GameFlags; got != want[me] {
				t.Errorf("%s: player %d predicts game flags %08b, want %08b", when, me, got, want[me])
			}
			for _, o := range d.Players {
				id := o.Client.ID()
				if id == me {
					continue
				}
				st, ok := p.Client.Remote(id, p.Client.ViewTime(d.Now()))
				if got := st.Flags & game.GameFlags; !ok || got != want[id] {
					t.Errorf("%s: player %d sees player %d's game flags %08b (drawn %v), want %08b", when, me, id, got, ok, want[id])
				}
			}
		}
	}
	d.Run(1500*time.Millisecond, nil)
	seen("marked", marks)
	// Predicted from then on: no flag is wrong.
	d.Run(2500*time.Millisecond, sim.ClientReadys(told.observe))
	for i := range players {
		if told.of[i] < 50 {
			t.Fatalf("player %d: only %d predictions measured", i, told.of[i])
		}
		if w := told.wrong[i]["flags"]; w != 0 {
			t.Errorf("player %d: %d flags mispredicted of %d predictions", i, w, told.of[i])
		}
	}

	// A death and a respawn keep them.
	if killed, err := d.Server.Damage(2, 1000, 0); !killed || err != nil {
		t.Fatalf("player 2 not killed: %v", err)
	}
	d.Run(3500*time.Millisecond, nil)
	if st, _, _ := d.Server.PlayerState(2); st.Has(game.FlagDead) || st.Teleport < 2 {
		t.Fatalf("player 2 not respawned: flags %08b, teleport %d", st.Flags, st.Teleport)
	}
	seen("respawned", marks)

	// The game clears one.
	if err := d.Server.Edit(2, func(st *game.PlayerState) { st.Flags &^= game.FlagGame }); err != nil {
		t.Fatal(err)
	}
	d.Run(4500*time.Millisecond, nil)
	seen("cleared", map[int]game.StateFlags{0: game.FlagGame, 1: game.FlagGame2, 2: game.GameFlags &^ game.FlagGame})
}
