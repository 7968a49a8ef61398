// Package bench measures lagkit's performance figures against their
// goals in this process: the figures `lagkit bench` prints. Each figure
// that depends on the machine's speed is also read against an anchor
// measured in the same run, or as the exponent of its growth.
package bench

import (
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/internal/fixture"
	"github.com/lagkit/lagkit/match"
	"github.com/lagkit/lagkit/shooter/mode"
	"github.com/lagkit/lagkit/sim"
	"github.com/lagkit/lagkit/wire"
	"github.com/lagkit/lagkit/world"
)

// Figure is one measured figure: what was measured, its goal, and where
// a figure is best read against another measured in the same run (its
// anchor), the ratio of the two.
type Figure struct {
	Name   string  `json:"name"`
	Value  float64 `json:"value"`
	Unit   string  `json:"unit"`
	Goal   float64 `json:"goal"` // at most this
	Anchor string  `json:"anchor,omitempty"`
	// Ratio is Value over the anchor's value, and RatioGoal its goal.
	Ratio     float64 `json:"ratio,omitempty"`
	RatioGoal float64 `json:"ratio_goal,omitempty"`
	// Exponent is the power by which Value grows with ExponentOf (a
	// size), fitted in the same run, and ExponentGoal its goal.
	Exponent     float64 `json:"exponent,omitempty"`
	ExponentOf   string  `json:"exponent_of,omitempty"`
	ExponentGoal float64 `json:"exponent_goal,omitempty"`
	Note         string  `json:"note,omitempty"`
	// InRayCapsule is a timed figure in units of one ray-capsule test
	// measured in the same run, and GoalInRayCapsule its goal in the
	// same units (both 0 for figures that are no time): figures that
	// hold on any machine. The goal is the absolute one over the
	// ray-capsule test of the machine where it was set, or, where lagkit
	// has done better since and is to hold it (encoding, the tick, the
	// match), what it measured then.
	InRayCapsule     float64 `json:"in_ray_capsule_tests,omitempty"`
	GoalInRayCapsule float64 `json:"goal_in_ray_capsule_tests,omitempty"`
	Met              bool    `json:"met"`
}

// goalRayCapsuleNS is one ray-capsule test on the machine where the
// absolute goals were set (README, Performance: 43 to 46 ns), the value
// at which the rewind's two goals, 0.5 µs and 11 tests, agree: a goal
// in ray-capsule tests is the absolute goal over it.
const goalRayCapsuleNS = 500.0 / 11

// The goals in ray-capsule tests that lagkit reached and holds, below
// what its absolute goals give (docs/performance.md): encoding a
// snapshot (34.8 tests), the server tick's 99th percentile (40.7k) and
// the default 12-bot match (52.2M; 66M from its 3 s).
const (
	encodeGoalUnits = 34.8
	tickGoalUnits   = 40.7e3
	matchGoalUnits  = 52.2e6
)

// unitNS is how many nanoseconds a timed figure's unit is; 0 for
// figures that are no time.
func unitNS(unit string) float64 {
	switch unit {
	case "ns":
		return 1
	case "µs":
		return 1e3
	case "ms":
		return 1e6
	case "s":
		return 1e9
	}
	return 0
}

// Meets reports whether f meets its goal (in ray-capsule tests for a
// timed figure, which holds on any machine), and its ratio and exponent
// goals if it has them.
func (f Figure) Meets() bool {
	within := f.Value <= f.Goal
	if f.GoalInRayCapsule > 0 {
		within = f.InRayCapsule <= f.GoalInRayCapsule
	}
	return within && (f.RatioGoal == 0 || f.Ratio <= f.RatioGoal) &&
		(f.ExponentGoal == 0 || f.Exponent <= f.ExponentGoal)
}

// nsPerOp runs f as a benchmark and returns its nanoseconds per
// operation.
func nsPerOp(f func(b *testing.B)) float64 {
	r := testing.Benchmark(f)
	if r.N == 0 {
		return 0
	}
	return float64(r.T.Nanoseconds()) / float64(r.N)
}

// Run measures every figure, each with Met set. With quick the simulated
// runs are shorter (5 s sims, a one-minute match scaled to ten), with
// fewer time warps and ticks, for CI.
func Run(quick bool) ([]Figure, error) {
	var figs []Figure
	for _, measure := range []func(bool) ([]Figure, error){rewindFigure, snapshotFigures, serverFigures, matchFigure} {
		// The reference is measured beside each group of figures, the
		// faster of just before and just after: a shared machine's load
		// changes over a run, and a figure in tests should divide by
		// the reference under the same load.
		before := RayCapsuleNS()
		got, err := measure(quick)
		if err != nil {
			return nil, err
		}
		ref := min(before, RayCapsuleNS())
		for _, f := range got {
			if u := unitNS(f.Unit); u > 0 && ref > 0 {
				f.InRayCapsule = f.Value * u / ref
				if f.GoalInRayCapsule == 0 {
					f.GoalInRayCapsule = f.Goal * u / goalRayCapsuleNS
				}
			}
			f.Met = f.Meets()
			figs = append(figs, f)
		}
	}
	return figs, nil
}

// rewindFigure measures the rewind and trace of a shot, anchored on one
// ray-capsule test: the ratio is what this machine's speed does not
// change.
func rewindFigure(bool) ([]Figure, error) {
	metro, err := world.Load("metro")
	if err != nil {
		return nil, err
	}
	tr, shots := fixture.Crowd(metro.Grid, 256)
	ray := geom.Ray{Origin: geom.V(-5, 0.3, 0.2), Dir: geom.V(1, 0.05, 0.02).Norm()}
	capsule := geom.Capsule{A: geom.V(0, 0, -0.5), B: geom.V(0, 0, 0.5), R: 0.4}
	var sink bool
	// Each measured three times, the two in turn, and the fastest of
	// each kept: on a shared machine the other processes only ever add
	// time, and a ratio of two measurements made a minute apart would
	// mostly measure how busy the machine was.
	rewind, rayNS := math.Inf(1), math.Inf(1)
	for range 3 {
		rewind = min(rewind, nsPerOp(func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				s := &shots[i%len(shots)]
				tr.Trace(s.Ray, 200, s.T, s.Shooter)
			}
		}))
		rayNS = min(rayNS, nsPerOp(func(b *testing.B) {
			for b.Loop() {
				_, _, hit := geom.RayCapsule(ray, 100, capsule)
				sink = sink != hit
			}
		}))
	}
	return []Figure{{Name: "rewind + trace per shot, 64 players, 1 s of 128 Hz history", Value: rewind, Unit: "ns",
		Goal: 500, Anchor: "ray-capsule test", Ratio: rewind / rayNS, RatioGoal: 11,
		Note: fmt.Sprintf("ray-capsule %.1f ns", rayNS)}}, nil
}

// snapshotFigures measures snapshot encoding, and the bandwidth at 64
// players on a clean link and a lossy one.
func snapshotFigures(quick bool) ([]Figure, error) {
	// 63 walkers turning, against a baseline 6 ticks old.
	base := wire.Walkers(1000, true)
	snap := wire.Walkers(1006, true)
	snap.Baseline = base.Tick
	buf := make([]byte, 0, wire.MaxDatagram)
	var size int
	enc := nsPerOp(func(b *testing.B) {
		for b.Loop() {
			out, err := wire.AppendSnapshot(buf[:0], snap, base, wire.MaxDatagram)
			if err != nil {
				b.Fatal(err)
			}
			size = len(out)
		}
	})
	figs := []Figure{{Name: "snapshot encode per client, 64 players", Value: enc, Unit: "ns", Goal: 2000, GoalInRayCapsule: encodeGoalUnits,
		Note: fmt.Sprintf("%d bytes", size)}}
	simDur := 20 * time.Second
	if quick {
		simDur = 5 * time.Second
	}
	res, err := sim.Run(sim.Config{Players: 64, Duration: simDur, Seed: 1})
	if err != nil {
		return nil, err
	}
	figs = append(figs, Figure{Name: "server → client bandwidth, 64 players, 64 Hz", Value: res.BytesPerSPerClient, Unit: "B/s", Goal: 16000,
		Note: fmt.Sprintf("interpolation error %.2f mm over %v; server tick %.0f µs", res.InterpErrorMeanM*1000, simDur, res.TickTimeUS)})
	// The same over a lossy, jittery link: resent events and older
	// baselines must stay within the budget too.
	lossy, err := sim.Run(sim.Config{Players: 64, Duration: simDur / 2, Seed: 1, RTT: 100 * time.Millisecond, Jitter: 5 * time.Millisecond, Loss: 0.05})
	if err != nil {
		return nil, err
	}
	return append(figs, Figure{Name: "bandwidth, 64 players, 100 ms round trip, 5% loss", Value: lossy.BytesPerSPerClient, Unit: "B/s", Goal: 16000,
		Note: fmt.Sprintf("interpolation error %.2f mm over %v", lossy.InterpErrorMeanM*1000, simDur/2)}), nil
}

// serverFigures measures a whole server tick at 128 players and 128 Hz
// (its 99th percentile and allocations) and a time warp among 100
// players, with how its cost grows with them.
func serverFigures(quick bool) ([]Figure, error) {
	p99, allocs, err := tickFigures(quick)
	if err != nil {
		return nil, err
	}
	warp, err := timeWarpFigure(quick)
	if err != nil {
		return nil, err
	}
	return []Figure{{Name: "server tick p99, 128 players, 128 Hz", Value: p99, Unit: "ms", Goal: 2.34, GoalInRayCapsule: tickGoalUnits,
		Note: fmt.Sprintf("best of three rounds; %.2f allocations a tick", allocs)}, warp}, nil
}

// matchFigure times the 12-bot capture the flag match as lagkit match
// plays it by default.
func matchFigure(quick bool) ([]Figure, error) {
	matchDur := 10 * time.Minute
	if quick {
		matchDur = time.Minute
	}
	var merr error
	matchNS := nsPerOp(func(b *testing.B) {
		for b.Loop() {
			if _, err := match.Run(match.Config{Map: "metro", Mode: mode.CTF, Bots: 12, Duration: matchDur, Seed: 1, BaseRTTms: match.DefaultBaseRTTms}, nil); err != nil {
				merr = err
				b.SkipNow()
			}
		}
	})
	if merr != nil {
		return nil, merr
	}
	perTen := matchNS / 1e9 * float64(10*time.Minute) / float64(matchDur)
	return []Figure{{Name: "12-bot 10-minute CTF on metro", Value: perTen, Unit: "s", Goal: 3, GoalInRayCapsule: matchGoalUnits,
		Note: fmt.Sprintf("%.0fx real time, from %v simulated", (10*time.Minute).Seconds()/perTen, matchDur)}}, nil
}

// tickFigures runs three rounds of ticks of a server with 128 players at
// 128 Hz on metro (fixture.TickLoad) and returns the lowest of the rounds'
// 99th percentiles of tick time in milliseconds (other processes on the
// machine only add time) and the allocations per tick.
func tickFigures(quick bool) (p99ms, allocs float64, err error) {
	m, err := world.Load("metro")
	if err != nil {
		return 0, 0, err
	}
	l, err := fixture.NewTickLoad(m, 128, 128)
	if err != nil {
		return 0, 0, err
	}
	ticks := 10 * 128
	if quick {
		ticks = 2 * 128
	}
	times := make([]time.Duration, ticks)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	p99 := time.Duration(math.MaxInt64)
	for range 3 {
		for i := range times {
			start := time.Now()
			if err := l.Tick(); err != nil {
				return 0, 0, err
			}
			times[i] = time.Since(start)
		}
		slices.Sort(times)
		p99 = min(p99, times[ticks*99/100])
	}
	runtime.ReadMemStats(&after)
	return float64(p99.Nanoseconds()) / 1e6, float64(after.Mallocs-before.Mallocs) / float64(3*ticks), nil
}

// Print writes figs as a table for people: each figure's value, goal,
// ratio or exponent and whether it is met.
func Print(w io.Writer, figs []Figure) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "figure\tnow\tgoal\tin ray-capsule tests (goal)\tratio (goal)\tmet\tnote")
	for _, f := range figs {
		ratio := ""
		switch {
		case f.Anchor != "":
			ratio = fmt.Sprintf("%.1fx %s (≤ %gx)", f.Ratio, f.Anchor, f.RatioGoal)
		case f.ExponentOf != "":
			ratio = fmt.Sprintf("%s exponent %.2f (≤ %g)", f.ExponentOf, f.Exponent, f.ExponentGoal)
		}
		met := "no"
		if f.Met {
			met = "yes"
		}
		value := fmt.Sprintf("%.3g", f.Value)
		if f.Value >= 1000 {
			value = fmt.Sprintf("%.0f", f.Value)
		}
		inRef := ""
		if f.InRayCapsule > 0 {
			inRef = fmt.Sprintf("%s (≤ %s)", figure(f.InRayCapsule), figure(f.GoalInRayCapsule))
		}
		fmt.Fprintf(tw, "%s\t%s %s\t≤ %g %s\t%s\t%s\t%s\t%s\n", f.Name, value, f.Unit, f.Goal, f.Unit, inRef, ratio, met, f.Note)
	}
	tw.Flush()
}

// RayCapsuleNS measures one ray-capsule test, the reference workload
// every timed figure is also given in: the fastest of three
// measurements, since other processes only ever add time.
func RayCapsuleNS() float64 {
	ray := geom.Ray{Origin: geom.V(-5, 0.3, 0.2), Dir: geom.V(1, 0.05, 0.02).Norm()}
	capsule := geom.Capsule{A: geom.V(0, 0, -0.5), B: geom.V(0, 0, 0.5), R: 0.4}
	var sink bool
	best := math.Inf(1)
	for range 3 {
		best = min(best, nsPerOp(func(b *testing.B) {
			for b.Loop() {
				_, _, hit := geom.RayCapsule(ray, 100, capsule)
				sink = sink != hit
			}
		}))
	}
	return best
}

// figure prints v to three significant digits, or whole when larger.
func figure(v float64) string {
	if v >= 1000 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.3g", v)
}
