package sim

import (
	"math"
	"testing"
	"time"

	"github.com/lagkit/lagkit/internal/cputime"
	"github.com/lagkit/lagkit/reckoning"
	"github.com/lagkit/lagkit/server"
)

func run(t *testing.T, cfg Config) *Result {
	t.Helper()
	r, err := Run(cfg)
	if err != nil {
		t.Fatalf("seed %d: %v", cfg.Seed, err)
	}
	return r
}

// TestDeterministic: the same seed gives the same result bit for bit; a
// different seed gives a different one.
func TestDeterministic(t *testing.T) {
	cfg := Config{Players: 6, Duration: 4 * time.Second, Seed: 7, RTT: 120 * time.Millisecond,
		Jitter: 15 * time.Millisecond, Loss: 0.05}
	a, b := run(t, cfg), run(t, cfg)
	a.WallS, b.WallS, a.TickTimeUS, b.TickTimeUS, a.TickCPUUS, b.TickCPUUS = 0, 0, 0, 0, 0, 0
	if *a != *b {
		t.Fatalf("seed %d gave different results:\n%+v\n%+v", cfg.Seed, a, b)
	}
	cfg.Seed = 8
	c := run(t, cfg)
	if c.StateHash == a.StateHash {
		t.Fatalf("seeds 7 and 8 gave the same state hash %s", a.StateHash)
	}
}

// TestPredictionIsExact: prediction runs the server's own movement code on
// the same quantised inputs, so without loss it matches the server exactly.
func TestPredictionIsExact(t *testing.T) {
	r := run(t, Config{Players: 6, Duration: 6 * time.Second, Seed: 3, RTT: 100 * time.Millisecond})
	if r.PredictionSamples < 1000 {
		t.Fatalf("only %d prediction samples", r.PredictionSamples)
	}
	if r.PredictionErrorP99M >= 0.001 {
		t.Fatalf("prediction error p99 %.5f m, want < 0.001 (mean %.5f)", r.PredictionErrorP99M, r.PredictionErrorMeanM)
	}
	if r.InterpErrorMeanM >= 0.05 {
		t.Fatalf("interpolation error mean %.4f m, want < 0.05", r.InterpErrorMeanM)
	}
	if r.CommandsLost != 0 {
		t.Fatalf("%d commands lost without loss", r.CommandsLost)
	}
}

// TestLossyLinkIsTolerated: with jitter and 5% loss the redundancy keeps
// prediction close and nothing stalls.
func TestLossyLinkIsTolerated(t *testing.T) {
	r := run(t, Config{Players: 6, Duration: 6 * time.Second, Seed: 5, RTT: 150 * time.Millisecond,
		Jitter: 20 * time.Millisecond, Loss: 0.05})
	if r.PredictionErrorMeanM >= 0.05 {
		t.Fatalf("prediction error mean %.4f m, want < 0.05", r.PredictionErrorMeanM)
	}
	if want := uint32(6 * 64); r.Ticks != want {
		t.Fatalf("ran %d ticks, want %d", r.Ticks, want)
	}
}

func TestConfigErrors(t *testing.T) {
	for _, cfg := range []Config{
		{Players: -1}, {Players: 500}, {Loss: 2}, {RTT: -time.Second}, {Map: "nowhere"}, {TickRate: 500},
	} {
		if _, err := Run(cfg); err == nil {
			t.Errorf("%+v accepted", cfg)
		}
	}
}

// TestThresholdReplication: with dead reckoning at the default threshold,
// players' states are sent far less often than every snapshot, the
// bandwidth drops, and the dead-reckoned view stays within about the
// threshold of the truth.
func TestThresholdReplication(t *testing.T) {
	base := Config{Players: 6, Duration: 10 * time.Second, Seed: 2, RTT: 60 * time.Millisecond}
	full := run(t, base)
	base.Replication = reckoning.Dead{}
	dr := run(t, base)
	perSnapshot := float64(base.Players-1) * 64 // states a client gets per second in full
	if math.Abs(full.UpdatesPerSPerClient-perSnapshot) > 0.05*perSnapshot {
		t.Fatalf("full replication sent %.1f states/s per client, want about %.0f", full.UpdatesPerSPerClient, perSnapshot)
	}
	if dr.UpdatesPerSPerClient <= 0 || dr.UpdatesPerSPerClient > perSnapshot/5 {
		t.Fatalf("%.1f updates/s per client, want well under the %.0f of full replication", dr.UpdatesPerSPerClient, perSnapshot)
	}
	if dr.BytesPerSPerClient >= full.BytesPerSPerClient {
		t.Fatalf("threshold replication used %.0f B/s, full %.0f B/s", dr.BytesPerSPerClient, full.BytesPerSPerClient)
	}
	if dr.InterpErrorMeanM > reckoning.DefaultEta {
		t.Fatalf("dead-reckoned view off by %.3f m on average, more than the %.3f m threshold", dr.InterpErrorMeanM, reckoning.DefaultEta)
	}
	if dr.PredictionErrorP99M != 0 {
		t.Fatalf("own prediction error %v under threshold replication", dr.PredictionErrorP99M)
	}
}

// TestRunReadsCPUClockOnlyWhenAsked checks that a run reads the thread's
// CPU clock (two system calls a server tick) only with Config.TickCPU.
func TestRunReadsCPUClockOnlyWhenAsked(t *testing.T) {
	cfg := Config{Players: 2, Duration: 2 * time.Second, Seed: 4}
	reads := cputime.Reads()
	plain, err := Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if n := cputime.Reads() - reads; n != 0 || plain.TickCPUUS != 0 {
		t.Errorf("a run that asked for no CPU time read the clock %d times (tick CPU %v µs)", n, plain.TickCPUUS)
	}
	cfg.TickCPU = true
	reads = cputime.Reads()
	asked, err := Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if n := cputime.Reads() - reads; n == 0 || n > 2*uint64(asked.Ticks) {
		t.Errorf("asked for the CPU time: %d clock reads over %d ticks, want two for each run of ticks", n, asked.Ticks)
	}
	if _, ok := cputime.Thread(); ok && asked.TickCPUUS <= 0 {
		t.Errorf("asked on a system with a thread clock: %v µs a tick", asked.TickCPUUS)
	}
	if asked.StateHash != plain.StateHash {
		t.Errorf("measuring changed the run: %s, unmeasured %s", asked.StateHash, plain.StateHash)
	}
}

// TestBandwidthUnderLoss: 64 players over a 100 ms, 5% loss link, where
// events are resent and baselines are older, stay within the server's
// default bandwidth per client on average: what a snapshot spends past
// its credit is paid back by the next ones, not forgiven.
func TestBandwidthUnderLoss(t *testing.T) {
	if testing.Short() {
		t.Skip("64 players for 3 s")
	}
	r := run(t, Config{Players: 64, Duration: 3 * time.Second, Seed: 1, RTT: 100 * time.Millisecond,
		Jitter: 5 * time.Millisecond, Loss: 0.05})
	if r.BytesPerSPerClient > server.DefaultBandwidth {
		t.Fatalf("%.0f B/s per client over the %d B/s budget", r.BytesPerSPerClient, server.DefaultBandwidth)
	}
	if r.UpdatesPerSPerClient < 1000 {
		t.Fatalf("only %.0f updates a second per client: the budget starved the states", r.UpdatesPerSPerClient)
	}
}
