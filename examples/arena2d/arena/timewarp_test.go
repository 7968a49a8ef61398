package arena_test

import (
	"testing"
	"time"

	"github.com/lagkit/lagkit/examples/arena2d/arena"
	"github.com/lagkit/lagkit/lagcomp"
	"github.com/lagkit/lagkit/netem"
	"github.com/lagkit/lagkit/server"
	"github.com/lagkit/lagkit/sim"
)

// warpObserver referees the match and keeps the server's shot records,
// and how many of them were warped hits on players judged at a tick
// before the one that handed them over (late: in the past).
type warpObserver struct {
	refereed
	shots []server.ShotRecord
	late  int
}

func (o *warpObserver) ServerReady(now time.Duration, s *server.Server, r *server.Ready) {
	o.refereed.ServerReady(now, s, r)
	o.shots = append(o.shots, r.Shots...)
	for _, rec := range r.Shots {
		if rec.Warped && rec.Registered && rec.Victim >= 0 && rec.Time < s.Time() {
			o.late++
		}
	}
}

// playWarped plays the arena under time warp (250 ms, policy none) with
// two bots of two teams over 60 ms links, its shots resolved by the
// arena's referee, until one has killed the other three times or 90 s
// have passed.
func playWarped(t *testing.T, seed uint64) (*sim.Driver, *warpObserver, arena.Record) {
	t.Helper()
	link := netem.Config{Latency: 60 * time.Millisecond}
	ref := arena.NewReferee()
	var players []sim.PlayerConfig
	for i := range 2 {
		cc := arena.ClientConfig("bot")
		cc.Name = []string{"bot0", "bot1"}[i]
		players = append(players, sim.PlayerConfig{Client: cc, Brain: &arena.Bot{}, Up: link, Down: link})
	}
	d, err := sim.NewDriver(server.Config{
		Map: arena.Map(), Seed: seed, Rules: arena.NewRules,
		Step: arena.Step, Game: arena.Decl.Layout, Cmd: arena.CmdDecl.CmdLayout, Spawn: arena.Spawn, Died: arena.Died, Body: arena.PlayerBody, Shots: ref,
		TimeWarp: 250 * time.Millisecond, Policy: lagcomp.Config{Name: "none"},
	}, players, seed)
	if err != nil {
		t.Fatal(err)
	}
	obs := &warpObserver{refereed: refereed{r: ref, missed: map[string]int{}}}
	for at := time.Second; at <= 90*time.Second; at += time.Second {
		d.Run(at, obs)
		if len(ref.Record().Kills) >= 3 {
			break
		}
	}
	return d, obs, ref.Record()
}

// TestArenaUnderTimeWarp: the arena's own shot resolution works under
// time warp. The bots' commands reach the server a link's latency late
// and run at the ticks their clients issued them: re-simulations hand
// the referee the shots of the re-run ticks, and a late shot hits where
// its victim stood at its tick (a warped record, at its command's
// tick). Every hit is reported to the referee once, so its kills are
// the rules' tally, and the same seed plays the same match.
func TestArenaUnderTimeWarp(t *testing.T) {
	d, obs, r := playWarped(t, 5)
	st := d.Server.TimeWarpStats()
	if st.Late == 0 || st.Warps == 0 {
		t.Fatalf("time warp stats %+v: no late command was inserted", st)
	}
	if len(r.Kills) == 0 {
		t.Fatalf("after %v no kill: %+v", d.Now(), r)
	}
	if obs.late == 0 {
		t.Fatalf("of %d shot records none is a hit on a player judged at a past tick", len(obs.shots))
	}
	if ts := d.Server.Rules().TeamScore(); ts[0]+ts[1] != len(r.Kills) {
		t.Errorf("the rules scored %v, the referee made %d kills", ts, len(r.Kills))
	}
	hits := 0
	for id := range 2 {
		if info, ok := d.Server.Client(id); ok {
			hits += info.Hits
		}
	}
	if r.PlayerHits < hits {
		t.Errorf("the referee heard of %d hits on players, the server counts %d landed", r.PlayerHits, hits)
	}
	d2, _, r2 := playWarped(t, 5)
	if d2.Server.StateHash() != d.Server.StateHash() || len(r2.Kills) != len(r.Kills) {
		t.Errorf("seed 5 twice: different matches")
	}
	t.Logf("%v: %+v; %d late hits; %+v", d.Now(), r, obs.late, st)
}
