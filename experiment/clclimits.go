package experiment

import (
	"fmt"
	"time"

	"github.com/lagkit/lagkit/lagcomp"
	"github.com/lagkit/lagkit/match"
	"github.com/lagkit/lagkit/shooter/mode"
)

// clcCaps are the swept caps: round-trip caps (no distance cap) and
// rollback-distance caps (no round-trip cap).
var (
	clcRTTCaps      = []float64{100, 150, 200, 250, 300}
	clcRollbackCaps = []float64{0.25, 0.5, 0.75, 1.0, 1.5}
)

// clcTopRTT is the highest round trip of the sweep's players: above the
// highest cap, so that every cap refuses someone (with the players
// spread to exactly 300 ms, clc's inclusive 300 ms cap refused no one
// and played tlc's match).
const clcTopRTT = 350

var _ = register(&Experiment{
	Bots:  true,
	Name:  "clc-limits",
	Title: "What do conditional lag compensation's caps cost?",
	Design: "Capture the flag on metro, 12 bots with round trips spread evenly from 20 to " +
		"350 ms (above the highest cap, so that every cap refuses someone), under clc with one cap per condition: a " +
		"round-trip cap from 100 to 300 ms (shooters above it are not compensated at all), or " +
		"a rollback-distance cap from 0.25 to 1.5 m (a hit that would move its victim back " +
		"further is tested against the present instead). Each cap trades shots behind cover " +
		"(sbc_per_hit, registered hits behind cover on the victim's screen) against shots " +
		"refused compensation (not_compensated_fraction); tlc is the uncapped reference.",
	Cells: func(quick bool) []Cell {
		reps, minutes := 4, 10
		if quick {
			reps, minutes = 1, 3
		}
		var cells []Cell
		add := func(rep int, name string, p map[string]any) {
			p["minutes"] = minutes
			cells = append(cells, Cell{Index: len(cells), Condition: name, Replicate: rep, Params: p})
		}
		for rep := range reps {
			add(rep, "tlc", map[string]any{"policy": "tlc", "sweep": "reference"})
			for _, c := range clcRTTCaps {
				add(rep, fmt.Sprintf("max_rtt_%.0fms", c), map[string]any{"policy": "clc", "sweep": "rtt cap", "max_rtt_ms": c})
			}
			for _, c := range clcRollbackCaps {
				add(rep, fmt.Sprintf("max_rollback_%.2fm", c), map[string]any{"policy": "clc", "sweep": "rollback cap", "max_rollback_m": c})
			}
		}
		return cells
	},
	RunCell: func(c Cell) (CellResult, error) {
		pol := lagcomp.Config{Name: c.Params["policy"].(string)}
		if pol.Name == "clc" {
			pol.MaxRTTms, pol.MaxRollbackM = param(c, "max_rtt_ms"), param(c, "max_rollback_m")
			if pol.MaxRTTms == 0 {
				pol.MaxRTTms = -1 // a rollback-cap condition: no round-trip cap
			}
		}
		return playMatch(match.Config{
			Map: "metro", Mode: mode.CTF, Bots: 12, Seed: c.Seed, BotPolicy: c.Bots, Latency: spreadRTTs(12, 20, clcTopRTT), Policy: pol,
			Duration: time.Duration(param(c, "minutes") * float64(time.Minute)),
		})
	},
	Summarise: func(r *Results, cells []CellResult) {
		g := group(cells)
		tbl := Table{Name: "clc_limits", Title: "Shots behind cover against shots refused compensation",
			Columns: []string{"condition", "sweep", "cap", "not_compensated_fraction", "sbc_per_hit", "hit_accuracy", "hits_received"}}
		for _, name := range g.names {
			c0 := g.cells[name][0].Cell
			met := map[string]float64{
				"not_compensated_fraction": g.ratio(name, "shots_not_compensated", "shots"),
				"sbc_per_hit":              g.ratio(name, "sbc", "hits_received"),
				"hit_accuracy":             g.ratio(name, "hits", "shots"),
				"hits_received":            g.sum(name, "hits_received"),
				"sbc":                      g.sum(name, "sbc"),
			}
			r.Conditions = append(r.Conditions, g.condition(name, "matches", len(g.cells[name]), met))
			cap := param(c0, "max_rtt_ms") + param(c0, "max_rollback_m")
			tbl.Rows = append(tbl.Rows, []string{name, fmt.Sprint(c0.Params["sweep"]), fmt.Sprint(cap),
				fnum(met["not_compensated_fraction"]), fnum(met["sbc_per_hit"]), fnum(met["hit_accuracy"]), fnum(met["hits_received"])})
		}
		r.Tables = append(r.Tables, tbl)
		var xs, ys []float64
		for _, c := range cells {
			xs, ys = append(xs, c.Metrics["not_compensated_fraction"]), append(ys, c.Metrics["sbc_per_hit"])
		}
		addPearson(r, "sbc_per_hit", "not_compensated_fraction", "sbc_per_hit", xs, ys, "all cells")
		r.Plots = append(r.Plots, Plot{Name: "clc_limits", Title: "SBC per hit against shots refused compensation", Kind: "line",
			Table: "clc_limits", X: "not_compensated_fraction", Y: "sbc_per_hit", Series: "sweep",
			XLabel: "fraction of shots not compensated", YLabel: "SBC per hit"})
	},
})

// spreadRTTs gives n players round trips evenly from lo to hi ms in slot
// order; teams alternate by slot, so each team spans the whole range.
func spreadRTTs(n int, lo, hi float64) map[int]float64 {
	out := map[int]float64{}
	for i := range n {
		out[i] = lo + (hi-lo)*float64(i)/float64(max(n-1, 1))
	}
	return out
}
