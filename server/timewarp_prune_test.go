package server

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/lagcomp"
	"github.com/lagkit/lagkit/shooter/mode"
	"github.com/lagkit/lagkit/shooter/weapon"
	"github.com/lagkit/lagkit/timewarp"
	"github.com/lagkit/lagkit/world/worldtest"
)

// runLateScene plays seed's random scene under a 300 ms time warp: 4 to
// 10 players close together on the open map, with every shipped weapon,
// walking, turning towards a random enemy, switching weapons and firing
// at random; about half of them send their commands 1 to 16 ticks late,
// so that most ticks start a warp. exhaustive turns time warp's pruning
// off; hitscanOnly warps hitscan shots alone.
func runLateScene(t *testing.T, seed uint64, exhaustive, hitscanOnly bool) (equivRun, TimeWarpStats) {
	t.Helper()
	return runLateSceneOf(t, seed, exhaustive, hitscanOnly, nil)
}

// runLateSceneOf is runLateScene with the server's config changed by
// with (nil: none).
func runLateSceneOf(t *testing.T, seed uint64, exhaustive, hitscanOnly bool, with func(*Config)) (equivRun, TimeWarpStats) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 11))
	n := 4 + rng.IntN(7)
	kind := mode.FFA
	if rng.IntN(2) == 0 {
		kind = mode.TDM
	}
	cfg := Config{
		Map: worldtest.Open(t), MaxClients: n, Seed: seed, TimeWarp: 300 * time.Millisecond,
		Policy: lagcomp.Config{Name: "none"}, Rules: modeRules(mode.Config{Mode: kind}),
		Limits: Limits{AckTimeout: time.Minute},

		TimeWarpHitscanOnly: hitscanOnly,
	}
	if with != nil {
		with(&cfg)
	}
	s, err := New(armed(cfg, weapon.Defaults()...))
	if err != nil {
		t.Fatalf("seed %d: %v", seed, err)
	}
	s.warp.d.Exhaustive = exhaustive
	ids := make([]int, n)
	late := make([]uint32, n)
	for i := range n {
		ids[i] = join(t, s, 0, Peer(i))
		s.Place(ids[i], geom.V(rng.Float64()*20-10, rng.Float64()*20-10, 0), rng.Float64()*2*math.Pi)
		if rng.IntN(2) == 0 {
			late[i] = 1 + uint32(rng.IntN(16))
			setLatency(s, ids[i], late[i])
		}
	}
	run := equivRun{weapons: map[uint8]bool{}}
	cmds := make([]game.UserCmd, n)
	target := make([]int, n)
	issued := make([][]game.UserCmd, n) // each player's commands by tick
	for i := range cmds {
		cmds[i].Weapon = uint8(rng.IntN(len(weapon.Defaults())))
	}
	const last = 720
	for tick := uint32(1); tick <= last+16; tick++ {
		now := s.NextTick()
		for i := range n {
			if tick <= last {
				cmd := sceneCmd(rng, s, ids, i, &cmds[i], target)
				cmd.Tick, cmd.Duration = tick, s.TickDuration()
				issued[i] = append(issued[i], cmd)
			}
			if m := tick - min(tick, late[i]); m >= 1 && m <= last {
				sendCmds(t, s, now-time.Microsecond, Peer(i), []game.UserCmd{issued[i][m-1]})
			}
		}
		run.collect(s.Advance(now))
	}
	run.hash = s.StateHash()
	return run, s.TimeWarpStats()
}

// outcomes is st without the counters of the work pruning saves (shots
// that stood, players tested): what warps that judge every shot and
// projectile one by one find too.
func outcomes(st TimeWarpStats) TimeWarpStats {
	st.Stood, st.Tested = 0, 0
	return st
}

// TestTimeWarpPruningIsExact: time warp's pruning (timewarp_prune.go)
// changes nothing: random scenes with late players, every weapon, hits
// re-judged and kills give the same state digest, shot records, logged
// events, datagrams and time warp counters (but those of the work
// saved), bit for bit, as warps that judge every shot and projectile
// one by one.
func TestTimeWarpPruningIsExact(t *testing.T) {
	seeds := 10
	if testing.Short() {
		seeds = 3
	}
	var total TimeWarpStats
	weapons, kills := map[uint8]bool{}, 0
	for seed := uint64(1); seed <= uint64(seeds); seed++ {
		full, fullStats := runLateScene(t, seed, true, false)
		pruned, prunedStats := runLateScene(t, seed, false, false)
		for w := range full.weapons {
			weapons[w] = true
		}
		kills += full.kills
		total.Warps += fullStats.Warps
		total.Rejudged += fullStats.Rejudged
		total.Stood += prunedStats.Stood
		if outcomes(fullStats) != outcomes(prunedStats) {
			t.Errorf("seed %d: time warp counters %+v, pruned %+v", seed, fullStats, prunedStats)
		}
		sameRuns(t, fmt.Sprintf("seed %d", seed), "full", "pruned", full, pruned)
	}
	t.Logf("%d warps, %d outcomes re-judged, %d shots stood, %d kills, weapons %v", total.Warps, total.Rejudged, total.Stood, kills, weapons)
	if len(weapons) != len(weapon.Defaults()) || kills == 0 || total.Warps == 0 || total.Rejudged == 0 || total.Stood == 0 {
		t.Fatalf("the scenes fired weapons %v, made %d kills, %d warps, %d re-judged outcomes and %d shots that stood: want every weapon, kills, warps, re-judging and shots standing", weapons, kills, total.Warps, total.Rejudged, total.Stood)
	}
}

// TestTimeWarpGameShotsPruningIsExact: with a game's own resolver
// (lineShots, through the players' bodies), letting recorded shots
// stand without handing them to the resolver again changes nothing
// either: random scenes with late players give the same state digest,
// shot records, logged events, datagrams and counters (but for the
// shots that stood and the players tested, which count the work done)
// as warps that hand every recorded shot to the resolver again.
func TestTimeWarpGameShotsPruningIsExact(t *testing.T) {
	seeds := 8
	if testing.Short() {
		seeds = 3
	}
	var stood, handed, handedAll, registered, rejudged int
	for seed := uint64(1); seed <= uint64(seeds); seed++ {
		game := func(reg, rejudged *int) func(*Config) {
			return func(c *Config) {
				c.Body = lagcomp.Parts{{Shape: lagcomp.Circle{R: 0.4}, Damage: 10}}
				c.Shots = lineShots{damage: 12, registered: reg, rejudged: rejudged}
			}
		}
		var reg, regAll int
		full, fullStats := runLateSceneOf(t, seed, true, false, game(&regAll, &handedAll))
		pruned, prunedStats := runLateSceneOf(t, seed, false, false, game(&reg, &handed))
		stood += prunedStats.Stood
		registered += reg
		rejudged += fullStats.Rejudged
		if reg != regAll {
			t.Errorf("seed %d: Hit reported %d hits registered, %d handing every shot again", seed, reg, regAll)
		}
		fullStats.Stood, fullStats.Tested, prunedStats.Stood, prunedStats.Tested = 0, 0, 0, 0
		if fullStats != prunedStats {
			t.Errorf("seed %d: time warp counters %+v, pruned %+v", seed, fullStats, prunedStats)
		}
		sameRuns(t, fmt.Sprintf("seed %d", seed), "full", "pruned", full, pruned)
	}
	t.Logf("%d shots stood, %d handed again (every one: %d), %d hits, %d outcomes re-judged", stood, handed, handedAll, registered, rejudged)
	if stood == 0 || handed == 0 || registered == 0 || rejudged == 0 {
		t.Fatalf("%d shots stood, %d handed again, %d hits, %d outcomes re-judged: want some of each", stood, handed, registered, rejudged)
	}
}

// TestTimeWarpHitscanOnlyPruningIsExact: with time warp of hitscan
// shots only, late players' shots inserted at their issue ticks and
// kills, pruning changes nothing either: the same state
// digest, shot records, logged events, datagrams and counters as warps
// that judge every shot one by one.
func TestTimeWarpHitscanOnlyPruningIsExact(t *testing.T) {
	seeds := 6
	if testing.Short() {
		seeds = 2
	}
	var total TimeWarpStats
	kills := 0
	for seed := uint64(1); seed <= uint64(seeds); seed++ {
		full, fullStats := runLateScene(t, seed, true, true)
		pruned, prunedStats := runLateScene(t, seed, false, true)
		kills += full.kills
		total.Late += fullStats.Late
		total.Warps += fullStats.Warps
		total.Rejudged += fullStats.Rejudged
		if outcomes(fullStats) != outcomes(prunedStats) {
			t.Errorf("seed %d: time warp counters %+v, pruned %+v", seed, fullStats, prunedStats)
		}
		sameRuns(t, fmt.Sprintf("seed %d", seed), "full", "pruned", full, pruned)
	}
	t.Logf("%d shots inserted, %d warps, %d outcomes re-judged, %d kills", total.Late, total.Warps, total.Rejudged, kills)
	if kills == 0 || total.Late == 0 || total.Warps == 0 {
		t.Fatalf("the scenes made %d kills and inserted %d shots in %d warps: want kills and inserted shots", kills, total.Late, total.Warps)
	}
}

// TestTimeWarpReachIsConservative: the box around the affected players,
// made of the spheres the server bounds their hitboxes by
// (timeWarp.Bound), prunes only what cannot meet them: random rays and
// segments it says stay clear of it miss every affected player's
// hitboxes, and random blasts it says fall short of it splash none of
// them. Likewise a ray misses every player whose sphere timewarp.Near
// leaves out.
func TestTimeWarpReachIsConservative(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	cfg := warpConfig()
	cfg.Map = worldtest.Open(t)
	s, err := New(armed(cfg, weapon.Defaults()...))
	if err != nil {
		t.Fatal(err)
	}
	w := s.warp
	rocket := weapon.Defaults()[4]
	states := make([]game.PlayerState, 6)
	affected := make([]bool, len(states))
	pruned, blasts, far := 0, 0, 0
	for range 2000 {
		var reach timewarp.Reach
		for i := range states {
			st := &states[i]
			st.Pos = geom.V(rng.Float64()*8-4, rng.Float64()*8-4, rng.Float64()*2)
			st.Flags = 0
			if rng.IntN(2) == 0 {
				st.Flags |= game.FlagCrouched
			}
			st.Yaw = uint16(rng.IntN(65536))
			if affected[i] = rng.IntN(3) == 0; affected[i] {
				reach.Add(w.Bound(st))
			}
		}
		// Rays and blasts aimed about a random player, affected or not.
		aim := states[rng.IntN(len(states))].Pos.Add(geom.V(rng.Float64()*3-1.5, rng.Float64()*3-1.5, rng.Float64()*2.5))
		ray := geom.Ray{Origin: geom.V(rng.Float64()*20-10, rng.Float64()*20-10, rng.Float64()*4-1)}
		ray.Dir = aim.Sub(ray.Origin).Norm()
		dist := max(aim.Dist(ray.Origin)+rng.Float64()*2-1, 0)
		if !reach.MeetsRay(ray, dist) {
			pruned++
			for id := range states {
				if !affected[id] {
					continue
				}
				if h, ok := lagcomp.TracePlayer(ray, dist, states[id], s.cfg.Movement); ok {
					t.Fatalf("ray %+v up to %.2f m pruned, but it hits player %d at %.3f m", ray, dist, id, h.Dist)
				}
			}
		}
		for id := range states {
			if c, r := w.Bound(&states[id]); timewarp.Near(ray, dist, c, r) {
				continue
			}
			far++
			if h, ok := lagcomp.TracePlayer(ray, dist, states[id], s.cfg.Movement); ok {
				t.Fatalf("ray %+v up to %.2f m passes player %d by, but it hits it at %.3f m", ray, dist, id, h.Dist)
			}
		}
		centre := aim.Add(geom.V(rng.Float64()*10-5, rng.Float64()*10-5, rng.Float64()*4-2))
		if !reach.BlastNear(centre, rocket.SplashRadius) {
			blasts++
			for id := range states {
				if !affected[id] {
					continue
				}
				if d := s.splash(&Shell{SplashRadius: rocket.SplashRadius, SplashDamage: rocket.SplashDamage}, centre, states[id]); d > 0 {
					t.Fatalf("blast at %v pruned, but it splashes player %d for %d", centre, id, d)
				}
			}
		}
	}
	if pruned < 100 || blasts < 100 || far < 1000 {
		t.Fatalf("%d rays, %d blasts and %d players passed by pruned of 2000: the test shows little", pruned, blasts, far)
	}
}
