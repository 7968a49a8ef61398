package server_test

// The tests and benchmarks of time warp in fixture.WarpCrowd's crowd:
// players walking in circles, turning and firing in bursts, with the
// ring full of movement, shots, projectiles and hits. They are in
// package server_test because internal/fixture imports server; the few
// internals they reach are in export_test.go.

import (
	"bytes"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/internal/fixture"
	"github.com/lagkit/lagkit/server"
)

// warpCrowd returns fixture.WarpCrowd's server with n players.
func warpCrowd(b testing.TB, n int) *server.Server {
	s, err := fixture.WarpCrowd(n)
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// crowdRun is what a series of warps in the crowd produced.
type crowdRun struct {
	hash    string
	records []server.ShotRecord
	out     [][]byte // every datagram sent, in order
}

// sameCrowdRuns reports where the pruned run differs from the full one.
func sameCrowdRuns(t *testing.T, full, pruned crowdRun) {
	t.Helper()
	if full.hash != pruned.hash {
		t.Errorf("state digest %s, pruned %s", full.hash, pruned.hash)
	}
	if len(full.records) != len(pruned.records) {
		t.Errorf("%d shot records, pruned %d", len(full.records), len(pruned.records))
	}
	for i := range min(len(full.records), len(pruned.records)) {
		if full.records[i] != pruned.records[i] {
			t.Errorf("shot record %d differs:\n full   %+v\n pruned %+v", i, full.records[i], pruned.records[i])
			break
		}
	}
	if len(full.out) != len(pruned.out) {
		t.Errorf("%d datagrams, pruned %d", len(full.out), len(pruned.out))
	}
	for i := range min(len(full.out), len(pruned.out)) {
		if !bytes.Equal(full.out[i], pruned.out[i]) {
			t.Errorf("datagram %d differs", i)
			break
		}
	}
}

// BenchmarkTimeWarp measures one warp: re-simulating the last rewind
// milliseconds for one late player among entities players, everyone
// moving and firing. Its cost should grow linearly with both (the study's
// JavaScript time warp grew as rewind x entities^2).
func BenchmarkTimeWarp(b *testing.B) {
	for _, n := range []int{10, 25, 50, 100} {
		s := warpCrowd(b, n)
		for _, ms := range []int{0, 50, 100, 200, 300} {
			ticks := int(math.Round(float64(ms) * float64(time.Millisecond) / float64(s.TickDuration())))
			b.Run(fmt.Sprintf("entities=%d/rewind=%dms", n, ms), func(b *testing.B) {
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					if _, err := s.Resimulate(i%n, ticks); err != nil {
						b.Fatal(err)
					}
					i++
				}
			})
		}
	}
}

// BenchmarkTimeWarpTurned measures one warp whose late player's
// commands differ from those the ticks ran with: each warp turns its aim
// over the whole window (the next warp turns it back), so that its
// movement, shots and projectiles change and everything they meet is
// judged again, as when a late command is inserted.
func BenchmarkTimeWarpTurned(b *testing.B) {
	for _, n := range []int{10, 25, 50, 100} {
		s := warpCrowd(b, n)
		ticks := int(math.Round(float64(300*time.Millisecond) / float64(s.TickDuration())))
		b.Run(fmt.Sprintf("entities=%d/rewind=300ms", n), func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				id := i % n
				server.TurnWarpCmds(s, id, ticks)
				if _, err := s.Resimulate(id, ticks); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}

// TestTimeWarpCostIsLinear checks the bound lagkit sets on time warp's
// cost against the JavaScript study's:
//
//	"A JavaScript study measured time-warp cost growing as n x m² (n =
//	time rolled back, m = entities) and saturating at ~45 bots: we must
//	do far better (linear in n x m or less) and show it."
//
// A crowd of m players moving and firing rifles and pistols (BenchmarkTimeWarp's
// scene) is re-simulated n ticks deep for each player in turn; the players
// tested against rays, segments and blasts per warp, divided by n x m,
// stay within a factor 1.5 over m from 10 to 80 and n from 8 to 32 ticks,
// where n x m² would grow it eightfold. BenchmarkTimeWarp and lagkit
// experiment timewarp measure the wall time.
//
// Reference: [timewarp], cost of re-simulation (docs/references.md).
func TestTimeWarpCostIsLinear(t *testing.T) {
	lo, hi := 1e18, 0.0
	for _, m := range []int{10, 80} {
		s := warpCrowd(t, m)
		for _, n := range []int{8, 32} {
			before := s.TimeWarpStats().Tested
			for id := range m {
				if got, err := s.Resimulate(id, n); err != nil || got != n {
					t.Fatalf("Resimulate(%d, %d) = %d, %v", id, n, got, err)
				}
			}
			perWarp := float64(s.TimeWarpStats().Tested-before) / float64(m)
			ratio := perWarp / float64(n*m)
			t.Logf("m=%d n=%d: %.0f players tested per warp, %.2f per n x m", m, n, perWarp, ratio)
			lo, hi = min(lo, ratio), max(hi, ratio)
		}
	}
	if lo <= 0 || hi > 1.5*lo {
		t.Fatalf("players tested per warp over n x m ranges from %.2f to %.2f: not linear in n x m", lo, hi)
	}
}

// TestWarpStopsAtRestart: after Server.Restart no warp re-runs a tick
// before it: the projectiles the restart dropped stay gone, the counters
// it zeroed stay zero, and a command issued before it, arriving late,
// runs at the next tick and is counted too old.
func TestWarpStopsAtRestart(t *testing.T) {
	s := warpCrowd(t, 10)
	if len(s.Projectiles(nil)) == 0 {
		t.Fatal("scene: no projectile in flight before the restart")
	}
	restart := s.Tick()
	s.Restart()
	for id := range 10 {
		if n, err := s.Resimulate(id, 19); err != nil || n != 0 {
			t.Fatalf("Resimulate(%d, 19) right after the restart re-ran %d ticks (%v), want none", id, n, err)
		}
	}
	if p := s.Projectiles(nil); len(p) != 0 {
		t.Fatalf("%d projectiles the restart dropped fly again", len(p))
	}
	// A command arrives 6 ticks late by its player's measured latency:
	// issued 5 ticks before the restart.
	server.SetLatency(s, 0, 6)
	now := s.NextTick()
	cmd := game.UserCmd{Tick: restart + 1, Duration: s.TickDuration(), Forward: 127, Buttons: game.BtnFire}
	before := s.TimeWarpStats()
	server.SendCmds(t, s, now-time.Microsecond, server.Peer(0), []game.UserCmd{cmd})
	s.Advance(now)
	if got := s.TimeWarpStats(); got.TooOld != before.TooOld+1 || got.Warps != before.Warps {
		t.Errorf("a command from before the restart: too old %d, warps %d; want %d, %d", got.TooOld, got.Warps, before.TooOld+1, before.Warps)
	}
	for range 3 {
		s.Advance(s.NextTick())
	}
	if n, err := s.Resimulate(1, 19); err != nil || n != 4 {
		t.Errorf("Resimulate(1, 19) 4 ticks after the restart re-ran %d ticks (%v), want 4", n, err)
	}
	for id := range 10 {
		if c, _ := s.Client(id); id != 0 && (c.Shots != 0 || c.Hits != 0 || c.HitsTaken != 0) {
			t.Errorf("player %d after the restart: %d shots, %d hits, %d taken; want none", id, c.Shots, c.Hits, c.HitsTaken)
		}
	}
}

// TestTimeWarpPruningIsExactInACrowd: in BenchmarkTimeWarpTurned's
// crowd, warps whose late player turns its aim over the window give the
// same state digest, shot records, datagrams and counters with pruning
// as without.
func TestTimeWarpPruningIsExactInACrowd(t *testing.T) {
	const n, ticks = 30, 19
	var runs [2]crowdRun
	var stats [2]server.TimeWarpStats
	for k, exhaustive := range []bool{true, false} {
		s := warpCrowd(t, n)
		server.SetWarpExhaustive(s, exhaustive)
		for id := range 2 * n {
			id %= n
			server.TurnWarpCmds(s, id, ticks)
			if _, err := s.Resimulate(id, ticks); err != nil {
				t.Fatal(err)
			}
			r := s.Ready()
			for _, d := range r.Messages {
				runs[k].out = append(runs[k].out, append([]byte{byte(d.To)}, d.Data...))
			}
			runs[k].records = append(runs[k].records, r.Shots...)
		}
		runs[k].hash, stats[k] = s.StateHash(), s.TimeWarpStats()
	}
	full, pruned := runs[0], runs[1]
	t.Logf("%+v; %d records", stats[0], len(full.records))
	// Pruning tests fewer players (Tested) and lets shots stand whole
	// (Stood); every other counter is the same.
	full0, pruned0 := stats[0], stats[1]
	full0.Stood, full0.Tested, pruned0.Stood, pruned0.Tested = 0, 0, 0, 0
	if full0 != pruned0 || stats[1].Tested >= stats[0].Tested {
		t.Errorf("time warp counters %+v, pruned %+v: want the same but fewer players tested", stats[0], stats[1])
	}
	sameCrowdRuns(t, full, pruned)
	if stats[0].Rejudged == 0 || len(full.records) == 0 {
		t.Fatalf("the turned warps re-judged nothing: the test shows nothing")
	}
}
