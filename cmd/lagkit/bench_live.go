package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/pflag"

	"github.com/lagkit/lagkit/bench"
	"github.com/lagkit/lagkit/livebench"
)

// liveBenchOptions are lagkit bench's flags for the live server: --live
// measures it against the core, --capacity counts the matches it holds.
type liveBenchOptions struct {
	live, capacity bool
	transports     []string
	bots, tickRate int
	duration       time.Duration
}

func (o *liveBenchOptions) register(f *pflag.FlagSet) {
	f.BoolVar(&o.live, "live", false, "measure the live server instead: its CPU per tick against the core's tick, with --bots bots in a child process over each --transport")
	f.BoolVar(&o.capacity, "capacity", false, "measure how many 10-player 128 Hz matches of bots one server holds with tick-start lateness p99 ≤ 1 ms and no overrun")
	f.StringSliceVar(&o.transports, "transport", []string{"udp", "wt", "wss"}, "with --live: the transports measured (udp, wt, wss)")
	f.IntVar(&o.bots, "bots", 64, "with --live: bots in the match")
	f.IntVar(&o.tickRate, "tick-rate", 64, "with --live: the match's tick rate in Hz")
	f.DurationVar(&o.duration, "duration", 20*time.Second, "with --live or --capacity: how long each server is measured")
}

// botsChild runs this program's bots command as the benchmark's child
// process.
func botsChild(ctx context.Context, b livebench.Bots) *exec.Cmd {
	exe, err := os.Executable()
	if err != nil {
		exe = os.Args[0]
	}
	cmd := exec.CommandContext(ctx, exe, append([]string{"bots"}, b.Args()...)...)
	cmd.Stdout = io.Discard
	return cmd
}

// liveFigures is what lagkit bench --live prints with --json.
type liveFigures struct {
	RayCapsuleNS float64             `json:"ray_capsule_ns"`
	Runs         []*livebench.Result `json:"runs,omitempty"`
	Capacity     *livebench.Capacity `json:"capacity,omitempty"`
}

// run measures what o asks and prints it.
func (o *liveBenchOptions) run(ctx context.Context, w io.Writer, asJSON bool) error {
	if o.live == o.capacity {
		return usagef("--live and --capacity are two benchmarks: give one")
	}
	out := &liveFigures{RayCapsuleNS: bench.RayCapsuleNS()}
	if o.capacity {
		cfg := livebench.Config{Players: 10, TickRate: 128, Duration: o.duration, Child: botsChild}
		c, err := livebench.MeasureCapacity(ctx, cfg, time.Millisecond, 64)
		if err != nil {
			return err
		}
		out.Capacity = c
	}
	for _, t := range o.transports {
		if !o.live {
			break
		}
		r, err := livebench.Run(ctx, livebench.Config{Transport: strings.TrimSpace(t), Players: o.bots, TickRate: o.tickRate, Duration: o.duration, Child: botsChild})
		if err != nil {
			return err
		}
		out.Runs = append(out.Runs, r)
	}
	if asJSON {
		return json.NewEncoder(w).Encode(out)
	}
	printLive(w, out)
	return nil
}

// liveGoals are the goals of the live server's CPU per tick, in core
// ticks, by transport.
var liveGoals = map[string]float64{"udp": 1.5, "wt": 2.5}

func printLive(w io.Writer, f *liveFigures) {
	ref := f.RayCapsuleNS / 1e3 // µs
	fmt.Fprintf(w, "reference: one ray-capsule test %.1f ns (figures in µs and in ray-capsule tests, rc)\n", f.RayCapsuleNS)
	if len(f.Runs) > 0 {
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "transport\tbots\tserver CPU per tick\tcore tick\tratio (goal)\tmatch goroutine per tick\tlateness p99\toverruns\tper client\tallocations per datagram")
		for _, r := range f.Runs {
			goal := "-"
			if g, ok := liveGoals[r.Transport]; ok {
				met := "met"
				if r.Ratio > g {
					met = "not met"
				}
				goal = fmt.Sprintf("≤ %gx, %s", g, met)
			}
			perDG := 0.0
			if r.DatagramsPerTick > 0 {
				perDG = r.AllocsPerTick / r.DatagramsPerTick
			}
			fmt.Fprintf(tw, "%s\t%d at %d Hz\t%.0f µs (%.0f rc)\t%.0f µs (%.0f rc)\t%.2fx (%s)\t%.0f µs\t%.0f µs\t%d of %d\t%.0f B/s\t%.2f\n",
				r.Transport, r.Players, r.TickRate, r.CPUPerTickUS, r.CPUPerTickUS/ref, r.CoreTickUS, r.CoreTickUS/ref, r.Ratio, goal,
				r.MatchCPUPerTickUS, r.LatenessP99US, r.Overruns, r.Ticks, r.BytesPerSPerClient, perDG)
		}
		tw.Flush()
	}
	if c := f.Capacity; c != nil {
		for _, r := range c.Tried {
			fmt.Fprintf(w, "  %d matches: lateness p99 %.0f µs, %d overruns, server CPU %.2f cores, %.0f µs (%.0f rc) a match tick: %.1f matches per core\n",
				r.Matches, r.LatenessP99US, r.Overruns, r.Cores, r.CPUPerTickUS, r.CPUPerTickUS/ref, r.MatchesPerCore)
		}
		if c.Best == nil {
			fmt.Fprintf(w, "capacity: not even %d 10-player 128 Hz match held tick-start lateness p99 ≤ %.0f µs with no overrun\n", c.Tried[0].Matches, c.MaxLatenessUS)
			return
		}
		b := c.Best
		fmt.Fprintf(w, "capacity: %d 10-player 128 Hz matches held (lateness p99 %.0f µs ≤ %.0f µs, no overrun) on %.2f cores of server CPU: %.1f matches per core (goal ≥ 20)\n",
			c.Held, b.LatenessP99US, c.MaxLatenessUS, b.Cores, b.MatchesPerCore)
	}
}
