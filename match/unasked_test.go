package match

import (
	"testing"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/internal/cputime"
	"github.com/lagkit/lagkit/server"
	"github.com/lagkit/lagkit/sim"
	"github.com/lagkit/lagkit/world"
)

// TestObserverWatchesDuelsOnlyWhenAsked checks that a match's observer
// builds a duel watcher only for a Config that asks for duels: the
// watcher's line-of-sight tests were a tenth of a default match's time.
func TestObserverWatchesDuelsOnlyWhenAsked(t *testing.T) {
	m, err := world.Load("metro")
	if err != nil {
		t.Fatal(err)
	}
	params := game.DefaultParams()
	d, err := sim.NewDriver(server.Config{Map: m, TickRate: 64, MaxClients: 2, Movement: &params, Seed: 1}, nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, asked := range []bool{false, true} {
		cfg, err := (&Config{Duels: asked}).withDefaults()
		if err != nil {
			t.Fatal(err)
		}
		if got := cfg.observer(d, m.Grid, &params).duels != nil; got != asked {
			t.Errorf("Duels %v: the observer watches duels: %v", asked, got)
		}
	}
}

// TestMatchMeasuresOnlyWhatItIsAsked plays a match as lagkit match does
// by default and checks that it follows no duels and reads no thread CPU
// clock, then the same match asking for both: the same outcome, with
// duels and the server tick's CPU time.
func TestMatchMeasuresOnlyWhatItIsAsked(t *testing.T) {
	cfg := Config{Map: "metro", Bots: 4, Duration: 5 * time.Second, Seed: 3, BaseRTTms: DefaultBaseRTTms}
	reads := cputime.Reads()
	plain, err := Run(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := cputime.Reads() - reads; n != 0 {
		t.Errorf("a match that asked for no CPU time read the thread's CPU clock %d times", n)
	}
	if plain.Duels != nil || plain.DuelList != nil || plain.TickCPUUS != 0 {
		t.Errorf("a match that asked for neither reported duels %v (%d) or tick CPU %v µs", plain.Duels, len(plain.DuelList), plain.TickCPUUS)
	}

	cfg.Duels, cfg.TickCPU = true, true
	reads = cputime.Reads()
	asked, err := Run(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if asked.Match.StateHash != plain.Match.StateHash {
		t.Errorf("watching changed the match: state hash %s, unwatched %s", asked.Match.StateHash, plain.Match.StateHash)
	}
	if asked.Duels == nil || asked.Duels.Count != len(asked.DuelList) || asked.Duels.Count == 0 {
		t.Errorf("asked for duels: summary %+v, %d duels", asked.Duels, len(asked.DuelList))
	}
	if n := cputime.Reads() - reads; n == 0 {
		t.Errorf("asked for the tick's CPU time: no clock read")
	}
	if _, ok := cputime.Thread(); ok && asked.TickCPUUS <= 0 {
		t.Errorf("asked for the tick's CPU time on a system with a thread clock: %v µs", asked.TickCPUUS)
	}
}
