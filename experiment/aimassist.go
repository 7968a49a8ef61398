package experiment

import (
	"fmt"
	"slices"

	"github.com/lagkit/lagkit/lagcomp"
	"github.com/lagkit/lagkit/shooter/aimassist"
)

// assistModes are the aim assistance experiment's conditions.
var assistModes = []string{aimassist.None, aimassist.Magnetism, aimassist.AreaCursor}

func assistDesign(quick bool) (rtts []float64, reps int, seconds float64) {
	if quick {
		return []float64{0, 200}, 2, 20
	}
	return []float64{0, 50, 100, 150, 200, 250}, 3, 60
}

var _ = register(&Experiment{
	Name:  "aimassist",
	Title: "Do bullet magnetism and an area cursor give a lagged shooter its hits back, and at whose cost?",
	Design: "The scaling experiment's range (one bot shooting at a target bot walking a lane 15 m away at 1.5 m/s, into " +
		"cover on every pass; a hitscan gun of no spread, 1 degree of aim error per axis; 15.625 ms interpolation, 64 Hz; " +
		"the target at 20 ms) with the shooter at round trips 0 to 250 ms, no lag compensation, under no assistance, " +
		"bullet magnetism (a miss within 0.5 degrees of a hitbox, widened by 2.5 degrees per second of round trip, bent " +
		"onto it when the line of fire is clear) and an area cursor (the part whose centre lies within 1 degree of the " +
		"line of fire, whatever the latency), after Vicencio-Moreira et al.'s two most effective assists. Per condition " +
		"the shooter's accuracy against the same bots' at 0 ms without assistance, the share of hits the assistance " +
		"found, and the victim's side: the share of registered hits the target's client saw behind cover. --quick plays " +
		"0 and 200 ms and fewer seconds.",
	Cells: func(quick bool) []Cell {
		rtts, reps, secs := assistDesign(quick)
		var cells []Cell
		for rep := range reps {
			for _, l := range rtts {
				for _, m := range assistModes {
					cells = append(cells, Cell{Index: len(cells), Condition: fmt.Sprintf("%s-rtt%g", m, l), Replicate: rep,
						Params: map[string]any{"assist": m, "rtt_ms": l, "policy": "none", "seconds": secs}})
				}
			}
		}
		return cells
	},
	RunCell: func(c Cell) (CellResult, error) {
		return runRange(rangeRun{seed: c.Seed, rtt: param(c, "rtt_ms"), seconds: param(c, "seconds"),
			policy: lagcomp.Config{Name: "none"}, assist: aimassist.Config{Name: fmt.Sprint(c.Params["assist"])}})
	},
	Summarise: summariseAssist,
})

// summariseAssist compares the modes at each round trip with the same
// bots unassisted at 0 ms.
func summariseAssist(r *Results, cells []CellResult) {
	g := group(cells)
	base := g.ratio("none-rtt0", "hits", "shots")
	tbl := Table{Name: "aimassist", Title: "Accuracy, assisted hits and shots behind cover per hit by assistance and round trip (pooled over seeds)",
		Columns: []string{"assist", "rtt_ms", "shots", "hit_accuracy", "hit_accuracy_ci95", "accuracy_vs_0ms", "assisted_hit_share", "sbc_per_hit"}}
	for _, name := range g.names {
		c0 := g.cells[name][0].Cell
		acc := g.ratio(name, "hits", "shots")
		met := map[string]float64{"shots": g.sum(name, "shots"), "hits": g.sum(name, "hits"), "hit_accuracy": acc,
			"accuracy_vs_0ms": safeDiv(acc, base), "assisted_hit_share": g.ratio(name, "assisted_hits", "hits"),
			"sbc_per_hit": g.ratio(name, "sbc", "hits_received"), "sbc": g.sum(name, "sbc"), "hits_received": g.sum(name, "hits_received")}
		r.Conditions = append(r.Conditions, g.condition(name, "cells (seeds)", len(g.cells[name]), met))
		tbl.Rows = append(tbl.Rows, []string{fmt.Sprint(c0.Params["assist"]), fnum(param(c0, "rtt_ms")), fnum(met["shots"]), fnum(acc),
			fnum(g.ci(name, "hit_accuracy")), fnum(met["accuracy_vs_0ms"]), fnum(met["assisted_hit_share"]), fnum(met["sbc_per_hit"])})
	}
	r.Tables = append(r.Tables, tbl)
	var rtts []float64
	for _, c := range cells {
		if l := param(c.Cell, "rtt_ms"); !slices.Contains(rtts, l) {
			rtts = append(rtts, l)
		}
	}
	slices.Sort(rtts)
	top := rtts[len(rtts)-1]
	for _, m := range assistModes[1:] {
		for _, l := range []float64{0, 200, top} {
			a, b := fmt.Sprintf("none-rtt%g", l), fmt.Sprintf("%s-rtt%g", m, l)
			if len(g.cells[a]) > 0 && len(g.cells[b]) > 0 && (l != top || top != 200) {
				pairedTests(r, g, "hit_accuracy", "hit_accuracy", a, b)
				pairedTests(r, g, "sbc_per_hit", "sbc_per_hit", a, b)
			}
		}
	}
	r.Plots = append(r.Plots, Plot{Name: "aimassist_accuracy", Title: "Hit accuracy against round trip, one line per assistance", Kind: "line",
		Table: "aimassist", X: "rtt_ms", Y: "hit_accuracy", Series: "assist", XLabel: "shooter's round trip (ms)", YLabel: "hit accuracy",
		Caption: "Registered hits per shot without lag compensation, pooled over seeds."})
}
