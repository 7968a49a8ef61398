package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/lagkit/lagkit/client"
	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/reckoning"
	"github.com/lagkit/lagkit/sim"
)

func newSimCmd() *cobra.Command {
	var (
		cfg      sim.Config
		rttMS    float64
		jitterMS float64
		display  string
		repl     string
		asJSON   bool
	)
	cmd := &cobra.Command{
		Use:   "sim",
		Short: "Simulate a server and scripted players over emulated links, faster than real time",
		Long: `sim runs the authoritative server and N client cores on a virtual clock,
joined by emulated links, with scripted players walking between random
waypoints (crouching and jumping now and then). It reports prediction and
interpolation error, bandwidth and a digest of the authoritative state:
the same seed gives the same digest. --tick-cpu also reports the server
tick's CPU time (tick_cpu_us), read from the thread's CPU clock.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkSimFlags(cmd.Flags(), cfg, rttMS, jitterMS); err != nil {
				return err
			}
			if repl != "full" && cmd.Flags().Changed("display") {
				return usagef("--display applies only with --replication full: threshold replication's clients draw the others by its own reckoning")
			}
			cfg.RTT = time.Duration(rttMS * float64(time.Millisecond))
			cfg.Jitter = time.Duration(jitterMS * float64(time.Millisecond))
			d, err := client.Displays.Lookup(display)
			if err != nil {
				return usageError{fmt.Errorf("--display: %w", err)}
			}
			cfg.Display = d
			rep, err := reckoning.NewReplication(repl, cfg.Map)
			if err != nil {
				return usageError{fmt.Errorf("--replication: %w", err)}
			}
			// The walkers wander with no team play, so led reckoning
			// judges them all against the map's every-team trend map.
			cfg.Replication = rep.Policy
			res, err := sim.Run(cfg)
			if err != nil {
				return err
			}
			if asJSON {
				enc := json.NewEncoder(cmd.OutOrStdout())
				return enc.Encode(res)
			}
			res.WriteTable(cmd.OutOrStdout())
			return nil
		},
	}
	f := cmd.Flags()
	f.IntVar(&cfg.Players, "players", 8, "number of simulated players")
	f.DurationVar(&cfg.Duration, "duration", 60*time.Second, "simulated time")
	f.Uint64Var(&cfg.Seed, "seed", 1, "random seed")
	f.IntVar(&cfg.TickRate, "tick", 64, "server tick rate (20-128 Hz)")
	f.Float64Var(&rttMS, "rtt", 0, "round-trip latency in ms, split evenly between directions")
	f.Float64Var(&jitterMS, "jitter", 0, "delay jitter (standard deviation) per direction in ms")
	f.Float64Var(&cfg.Loss, "loss", 0, "packet loss probability per direction (0-1)")
	f.StringVar(&cfg.Map, "map", "metro", "map name (metro, arena, courtyard)")
	f.StringVar(&display, "display", "interpolate", "how clients draw remote players: "+oneOf(client.Displays.Names()))
	f.StringVar(&repl, "replication", "full", "replication: "+oneOf(reckoning.Replications.Names())+" (full sends every state in every snapshot; dead and led are threshold replication under dead or led reckoning; clients then dead reckon)")
	f.BoolVar(&cfg.TickCPU, "tick-cpu", false, "also measure each server tick on the thread's CPU clock (tick_cpu_us; two system calls a tick, so off by default)")
	f.BoolVar(&asJSON, "json", false, "print one JSON object instead of a table")
	return cmd
}

// checkSimFlags rejects values the simulation would otherwise read as
// "use the default" and values out of range, naming the flag, so what
// runs is what was asked for.
func checkSimFlags(f *pflag.FlagSet, cfg sim.Config, rttMS, jitterMS float64) error {
	err := cmp.Or(
		positive(f, "players", cfg.Players, game.PlayersRange),
		positive(f, "duration", cfg.Duration, "more than 0, such as 30s"),
		positive(f, "tick", cfg.TickRate, game.TickRateRange+" (Hz)"),
		within("players", cfg.Players, 1, game.MaxPlayers, ""),
		within("tick", cfg.TickRate, game.MinTickRate, game.MaxTickRate, " (Hz)"),
		within("rtt", rttMS, 0, 10000, " (ms)"),
		within("jitter", jitterMS, 0, 10000, " (ms)"),
		within("loss", cfg.Loss, 0, 1, ""),
	)
	if err == nil && cfg.Duration > game.MaxDuration {
		err = usagef("--duration %v: want at most 24h", cfg.Duration)
	}
	return err
}

// positive rejects a flag given as zero or less, which lagkit's packages
// would otherwise read as "use the default".
func positive[T int | float64 | time.Duration](f *pflag.FlagSet, name string, v T, want string) error {
	if f.Changed(name) && !(v > 0) {
		return usagef("--%s %v: want %s", name, v, want)
	}
	return nil
}

// nonZero rejects a flag given as zero where zero means "use the
// default" and negative values mean something of their own.
func nonZero(f *pflag.FlagSet, name string, v float64, want string) error {
	if f.Changed(name) && (v == 0 || v != v) {
		return usagef("--%s %v: want %s", name, v, want)
	}
	return nil
}
