package main

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"strings"
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

// run measures what o asks and prints it.
func (o *liveBenchOptions) run(ctx context.Context, w io.Writer, asJSON bool) error {
	if o.live == o.capacity {
		return usagef("--live and --capacity are two benchmarks: give one")
	}
	out := &livebench.Report{RayCapsuleNS: bench.RayCapsuleNS()}
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
	out.WriteText(w)
	return nil
}
