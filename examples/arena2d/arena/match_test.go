package arena_test

import (
	"testing"
	"time"

	"github.com/lagkit/lagkit/examples/arena2d/arena"
	"github.com/lagkit/lagkit/match"
)

// playSimulated plays a simulated match of four of the arena's own bots
// through lagkit's match harness (match.Config.BotPolicy and Game), 80
// ms of round trip each, under the arena's own rules, refereed as a live
// match is.
func playSimulated(t *testing.T, seed uint64) (*match.Result, arena.Record) {
	t.Helper()
	ref := arena.NewReferee()
	res, err := match.Run(match.Config{
		Bots: 4, Duration: 40 * time.Second, Seed: seed, BaseRTTms: 80,
		InterpDelay: 50 * time.Millisecond,
		BotPolicy:   arena.NewBot,
		Game: match.Game{
			World: arena.Map(), Step: arena.Step, State: arena.Decl.Layout, Cmd: arena.CmdDecl.CmdLayout, Spawn: arena.Spawn, Died: arena.Died, Rules: arena.NewRules,
			Body: arena.PlayerBody, Shots: ref, OnTick: ref.Tick,
		},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return res, ref.Record()
}

// TestSimulatedMatch: the arena's bots, made by their bot.Maker, play a
// match in lagkit's simulated harness: they break the crate with a
// rewound shot, the breaker is granted the shield, and they kill each
// other, the kills the referee made being the match's tallies; the
// same seed plays the same match, bit for bit.
func TestSimulatedMatch(t *testing.T) {
	res, r := playSimulated(t, 7)
	if r.BrokenBy < 0 || r.Looted != r.BrokenBy {
		t.Fatalf("crate broken by %d, shield granted to %d: %+v", r.BrokenBy, r.Looted, r)
	}
	// 80 ms of round trip and 50 of interpolation behind the tick.
	if r.BrokenRewind < 100*time.Millisecond || r.BrokenRewind > time.Second {
		t.Errorf("the breaking shot was rewound %v", r.BrokenRewind)
	}
	if len(r.Kills) == 0 {
		t.Fatalf("no kills: %+v", r)
	}
	kills := 0
	for _, p := range res.Players {
		kills += p.Kills
	}
	if kills != len(r.Kills) {
		t.Errorf("the match tallied %d kills, the referee made %d", kills, len(r.Kills))
	}
	if res.Match.Map != "arena2d" || res.Match.Mode != "arena" {
		t.Errorf("played %s on %s", res.Match.Mode, res.Match.Map)
	}
	again, r2 := playSimulated(t, 7)
	if again.Match.StateHash != res.Match.StateHash || len(r2.Kills) != len(r.Kills) {
		t.Errorf("seed 7 twice: hashes %s and %s, %d and %d kills", res.Match.StateHash, again.Match.StateHash, len(r.Kills), len(r2.Kills))
	}
	if other, _ := playSimulated(t, 8); other.Match.StateHash == res.Match.StateHash {
		t.Errorf("seeds 7 and 8 played the same match")
	}
	t.Logf("%d shots, %d on the crate, broken by %d (rewound %v), %d hits on players, %d kills; state %s",
		r.Shots, r.CrateHits, r.BrokenBy, r.BrokenRewind, r.PlayerHits, len(r.Kills), res.Match.StateHash[:16])
}
