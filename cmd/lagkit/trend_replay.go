package main

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/lagkit/lagkit/reckoning"
)

func newTrendReplayCmd() *cobra.Command {
	var (
		in                  pathInputs
		holdOut, grid       int
		etaMin, eta, etaMax float64
		k                   float64
		frontier            []float64
		asJSON              bool
	)
	cmd := &cobra.Command{
		Use:   "replay [PATHS.csv ...]",
		Short: "Replay recorded paths under dead and led reckoning, as the led reckoning study did",
		Long: `replay plays recorded paths frame by frame through a sender and a receiver
with no network between them, as the led reckoning study did, and reports
each method's updates per second and mean error between where the receiver
has a player and where the player was: pooled over the time replayed, and
per path (the mean and standard deviation over paths of 5 s or more, the
study's unit).

Every --hold-out-th player (in order of player number) is replayed; the
others build the trend maps, one per team, so no replayed path is in its
own trend map. Led reckoning (thresholds --eta-min to --eta-max, blend time
K/η) is compared with dead reckoning at --eta, and dead reckoning is also
replayed at the --frontier thresholds: led reckoning is worth its trend map
where it sends fewer updates than dead reckoning does at the same error,
which the last line reports.

Paths come from path files (CSV with the header time,player,team,x,y,z, as
'lagkit match --paths FILE' writes) or from bot matches played here
(--from-match N, recorded at --path-hz).`,
		Example: `  lagkit trend replay --map metro recorded-play.csv
  lagkit trend replay --map metro --from-match 3 --minutes 5 --json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case !(etaMin > 0 && etaMin <= eta && eta <= etaMax && etaMax <= 10):
				return usagef("--eta-min %v, --eta %v, --eta-max %v: want 0 < eta-min <= eta <= eta-max <= 10 m", etaMin, eta, etaMax)
			case !(k > 0 && k <= 10):
				return usagef("--k %v: want more than 0, up to 10 m·s", k)
			case holdOut < 2:
				return usagef("--hold-out %d: want 2 or more, so some players train the trend maps", holdOut)
			case grid < 1 || grid > reckoning.MaxGrid:
				return usagef("--grid %d: want 1 to %d cells a side", grid, reckoning.MaxGrid)
			}
			for _, e := range frontier {
				if !(e > 0 && e <= 10) {
					return usagef("--frontier %v: want thresholds above 0, up to 10 m", e)
				}
			}
			m, samples, err := in.read(args)
			if err != nil {
				return err
			}
			rep, err := reckoning.Compare(samples, reckoning.CompareConfig{MapName: m.Name, Bounds: m.Bounds, Grid: grid, HoldOut: holdOut,
				EtaMin: etaMin, Eta: eta, EtaMax: etaMax, K: k, Frontier: frontier})
			if err != nil {
				return err
			}
			if asJSON {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(rep)
			}
			return rep.WriteTable(cmd.OutOrStdout())
		},
	}
	f := cmd.Flags()
	in.flags(f, 64)
	f.IntVar(&holdOut, "hold-out", 3, "replay every N-th player; the others build the trend maps")
	f.IntVar(&grid, "grid", reckoning.DefaultGrid, "trend map cells along each axis")
	f.Float64Var(&etaMin, "eta-min", reckoning.DefaultEtaMin, "led reckoning's threshold against the trend (m)")
	f.Float64Var(&eta, "eta", reckoning.DefaultEta, "dead reckoning's threshold, and led reckoning's where there is no trend (m)")
	f.Float64Var(&etaMax, "eta-max", reckoning.DefaultEtaMax, "led reckoning's threshold along the trend (m)")
	f.Float64Var(&k, "k", reckoning.DefaultK, "blend time constant K of B = K/η (m·s); the default is calibrated on bot play no experiment replays (reckoning.DefaultK)")
	f.Float64SliceVar(&frontier, "frontier", without(reckoning.FrontierEtas, reckoning.DefaultEta), "further dead reckoning `thresholds` to replay, comma separated (m)")
	// pflag would print the default as [0.200000,0.300000,...].
	f.Lookup("frontier").DefValue = formatList(without(reckoning.FrontierEtas, reckoning.DefaultEta))
	f.BoolVar(&asJSON, "json", false, "print the results as JSON")
	return cmd
}

func without(xs []float64, v float64) []float64 {
	return slices.DeleteFunc(slices.Clone(xs), func(x float64) bool { return x == v })
}

// formatList writes numbers as a flag takes them: comma separated, each
// in its shortest form.
func formatList(v []float64) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.FormatFloat(x, 'g', -1, 64)
	}
	return strings.Join(s, ",")
}
