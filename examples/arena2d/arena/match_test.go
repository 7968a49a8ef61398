package arena_test

import (
	"testing"
	"time"

	"github.com/lagkit/lagkit/examples/arena2d/arena"
	"github.com/lagkit/lagkit/lagcomp"
	"github.com/lagkit/lagkit/match"
	"github.com/lagkit/lagkit/server"
)

// playSimulated plays a simulated match of four of the arena's own bots
// through lagkit's match harness (match.Config.BotPolicy and Game), 80
// ms of round trip each, under the arena's own rules, refereed as a live
// match is.
func playSimulated(t *testing.T, seed uint64) (*match.Result, arena.Record) {
	t.Helper()
	res, r, _ := playWarped(t, seed, 0)
	return res, r
}

// playWarped plays playSimulated's match with a time warp window of
// warp (0: none, as playSimulated) under lag compensation policy none,
// and returns what time warp did too.
func playWarped(t *testing.T, seed uint64, warp time.Duration) (*match.Result, arena.Record, server.TimeWarpStats) {
	t.Helper()
	ref := arena.NewReferee()
	var stats server.TimeWarpStats
	cfg := match.Config{
		Bots: 4, Duration: 40 * time.Second, Seed: seed, BaseRTTms: 80,
		InterpDelay: 50 * time.Millisecond,
		BotPolicy:   arena.NewBot,
		Game: match.Game{
			World: arena.Map(), Step: arena.Step, State: arena.Decl.Layout, Cmd: arena.CmdDecl.CmdLayout, Spawn: arena.Spawn, Rules: arena.NewRules,
			Body: arena.PlayerBody, GameShots: true,
			OnTick: func(s *server.Server, rd *server.Ready) {
				ref.Tick(s, rd)
				stats = s.TimeWarpStats()
			},
		},
	}
	if warp > 0 {
		cfg.TimeWarp, cfg.Policy = warp, lagcomp.Config{Name: "none"}
	}
	res, err := match.Run(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	return res, ref.Record(), stats
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

// TestSimulatedMatchTimeWarp: the arena plays under time warp (200 ms,
// policy none) in the simulated harness. Every bot's command reaches
// the server after the tick it was issued at, so the server re-runs the
// arena's own step (its blink, its shield and crate state, its reach
// command) from there; the shots those commands fire reach the referee
// warped, at their ticks, and it traces them in the re-simulated world
// and hits, kills and breaks the crate with them; the damage and the
// shield it takes (Server.Damage, Server.Edit) are replayed by later
// warps over those ticks rather than lost or refused. The same seed
// plays the same match twice, bit for bit, and not the match without
// time warp.
func TestSimulatedMatchTimeWarp(t *testing.T) {
	res, r, st := playWarped(t, 7, 200*time.Millisecond)
	if st.Warps == 0 || st.Resimulated == 0 || st.Late == 0 {
		t.Fatalf("no warps: %+v", st)
	}
	if r.Shots == 0 || r.Warped < r.Shots/2 || r.WarpedHits == 0 {
		t.Fatalf("%d shots, %d warped, %d warped hits on players", r.Shots, r.Warped, r.WarpedHits)
	}
	if st.Replayed == 0 {
		t.Errorf("no damage or edit replayed by a warp: %+v", st)
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
	again, r2, st2 := playWarped(t, 7, 200*time.Millisecond)
	if again.Match.StateHash != res.Match.StateHash || len(r2.Kills) != len(r.Kills) || st2 != st {
		t.Errorf("seed 7 twice under time warp: hashes %s and %s, %d and %d kills, %+v and %+v",
			res.Match.StateHash, again.Match.StateHash, len(r.Kills), len(r2.Kills), st, st2)
	}
	if plain, _ := playSimulated(t, 7); plain.Match.StateHash == res.Match.StateHash {
		t.Errorf("time warp played the match without it")
	}
	t.Logf("%d shots, %d warped (%d hits on players), %d kills, crate broken by %d; %+v; state %s",
		r.Shots, r.Warped, r.WarpedHits, len(r.Kills), r.BrokenBy, st, res.Match.StateHash[:16])
}
