package main

import (
	"encoding/json"

	"github.com/spf13/cobra"

	"github.com/lagkit/lagkit/bench"
)

func newBenchCmd() *cobra.Command {
	var quick, asJSON bool
	var live liveBenchOptions
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Measure lagkit's performance figures against their goals",
		Long: `bench runs lagkit's main benchmarks in this process and prints each
figure with its goal: rewind and trace per shot with 64 players (against
one ray-capsule test measured in the same run), snapshot encoding per
client, server-to-client bandwidth and interpolation error with 64
players (on a clean link, and over a 100 ms round trip with 5% loss), the
99th percentile and allocations of a server tick with 128 players at
128 Hz, a time warp re-simulating 300 ms for one late player among 100
(with the exponent of its cost in players, fitted over 10 to 100 in the
same run), and the time of the 12-bot 10-minute capture the flag match
that lagkit match plays by default.
--quick shortens the simulated runs for CI: the 64-player sims to 5 s,
the match to one minute (scaled to ten), fewer time warps and ticks.
--live measures the live server instead: a match of --bots bots at
--tick-rate over loopback UDP, WebTransport and WebSocket, the bots played
by lagkit bots in a child process, and reports the server process's CPU
per tick against the same match's tick in the simulation driver measured
in the same run. --capacity finds how many 10-player 128 Hz matches of
bots one server holds with tick-start lateness p99 at most 1 ms and no
overrun. Every figure is also given in units of one ray-capsule test
measured in the same run, which a machine's speed does not change.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if live.live || live.capacity {
				return live.run(cmd.Context(), cmd.OutOrStdout(), asJSON)
			}
			figs, err := bench.Run(quick)
			if err != nil {
				return err
			}
			if asJSON {
				return json.NewEncoder(cmd.OutOrStdout()).Encode(figs)
			}
			bench.Print(cmd.OutOrStdout(), figs)
			return nil
		},
	}
	cmd.Flags().BoolVar(&quick, "quick", false, "shorter runs: 5 s sims, a one-minute match scaled to ten")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON list of figures instead of a table")
	live.register(cmd.Flags())
	return cmd
}
