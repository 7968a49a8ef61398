package experiment

import (
	"fmt"
	"time"

	"github.com/lagkit/lagkit/lagcomp"
	"github.com/lagkit/lagkit/match"
	"github.com/lagkit/lagkit/mode"
)

// rollbackGrid is the study's RTT x speed grid: round trips of 0 to
// 250 ms at walking speed, and five speeds whose round trip makes the
// greatest possible rollback 1 m.
func rollbackGrid() [][2]float64 {
	var grid [][2]float64 // {rtt ms, speed m/s}
	for _, rtt := range []float64{0, 50, 100, 150, 200, 250} {
		grid = append(grid, [2]float64{rtt, 4})
	}
	for _, v := range []float64{4.5, 5, 5.5, 6, 6.5} {
		grid = append(grid, [2]float64{1000 / v, v})
	}
	return grid
}

var _ = register(&Experiment{
	Name:  "rollback",
	Title: "How far are victims moved back?",
	Design: "Team deathmatch on metro, 12 bots at one round trip and one running speed per " +
		"condition, under tlc: round trips 0 to 250 ms at 4 m/s, and five speeds from 4.5 to " +
		"6.5 m/s at the round trip that makes RTT x speed = 1 m. As in the study's timeline, " +
		"shooters draw the newest snapshot (no interpolation delay), so a shot rewinds by the " +
		"round trip and the greatest possible rollback is RTT x speed (plus up to one tick of " +
		"command queueing). rollback_m is the distance between the victim's rewound and " +
		"current positions, over every rewound hit.",
	Cells: func(quick bool) []Cell {
		reps, minutes := 4, 5
		if quick {
			reps, minutes = 1, 2
		}
		var cells []Cell
		for rep := range reps {
			for _, rv := range rollbackGrid() {
				cells = append(cells, Cell{Index: len(cells), Condition: rollbackName(rv[0], rv[1]), Replicate: rep,
					Params: map[string]any{"rtt_ms": rv[0], "speed_mps": rv[1], "max_rollback_m": rv[0] * rv[1] / 1000,
						"policy": "tlc", "map": "metro", "mode": "tdm", "bots": 12, "minutes": minutes}})
			}
		}
		return cells
	},
	RunCell: func(c Cell) (CellResult, error) {
		return playMatch(match.Config{
			Map: "metro", Mode: mode.TDM, Bots: 12, Seed: c.Seed, BaseRTTms: param(c, "rtt_ms"),
			WalkSpeed: param(c, "speed_mps"), InterpDelay: time.Microsecond,
			Duration: time.Duration(param(c, "minutes") * float64(time.Minute)),
			Policy:   lagcomp.Config{Name: "tlc"},
		})
	},
	Summarise: func(r *Results, cells []CellResult) {
		g := group(cells)
		tbl := Table{Name: "rollback", Title: "Rollback by round trip and speed",
			Columns: []string{"condition", "rtt_ms", "speed_mps", "max_possible_m", "rollback_mean_m", "rollback_max_m", "rewind_mean_ms", "sbc_per_hit", "rewound_hits", "grid"}}
		for _, name := range g.names {
			c0 := g.cells[name][0].Cell
			rtt, speed := param(c0, "rtt_ms"), param(c0, "speed_mps")
			mx := 0.0
			for _, c := range g.cells[name] {
				mx = max(mx, c.Metrics["rollback_max_m"])
			}
			n := g.sum(name, "rewound_hits")
			met := map[string]float64{
				"rollback_mean_m": safeDiv(weighted(g, name, "rollback_mean_m", "rewound_hits"), n),
				"rollback_max_m":  mx,
				"rewind_mean_ms":  safeDiv(weighted(g, name, "rewind_mean_ms", "rewound_hits"), n),
				"sbc_per_hit":     g.ratio(name, "sbc", "hits_received"),
				"rewound_hits":    n,
				"max_possible_m":  rtt * speed / 1000,
			}
			r.Conditions = append(r.Conditions, g.condition(name, "matches", len(g.cells[name]), met))
			series := "rtt at 4 m/s"
			if speed != 4 {
				series = "RTT x speed = 1 m"
			}
			tbl.Rows = append(tbl.Rows, []string{name, fnum(rtt), fmt.Sprint(speed), fnum(met["max_possible_m"]),
				fnum(met["rollback_mean_m"]), fnum(met["rollback_max_m"]), fnum(met["rewind_mean_ms"]), fnum(met["sbc_per_hit"]), fnum(n), series})
		}
		r.Tables = append(r.Tables, tbl)
		// Does rollback grow with RTT? Pearson over the 4 m/s cells.
		var xs, ys []float64
		for _, c := range cells {
			if param(c.Cell, "speed_mps") == 4 && c.Metrics["rewound_hits"] > 0 {
				xs, ys = append(xs, param(c.Cell, "rtt_ms")), append(ys, c.Metrics["rollback_mean_m"])
			}
		}
		addPearson(r, "rollback_mean_m", "rtt_ms", "rollback_mean_m", xs, ys, "cells at 4 m/s")
		r.Plots = append(r.Plots, Plot{Name: "rollback", Title: "Mean and greatest rollback against round trip", Kind: "line",
			Table: "rollback", X: "max_possible_m", Y: "rollback_mean_m", Series: "grid", XLabel: "RTT x speed (m)", YLabel: "mean rollback (m)"},
			Plot{Name: "rollback_max", Title: "Greatest rollback against RTT x speed", Kind: "line",
				Table: "rollback", X: "max_possible_m", Y: "rollback_max_m", Series: "grid", XLabel: "RTT x speed (m)", YLabel: "greatest rollback (m)"})
	},
	Published: []Reference{
		{Metric: "rollback_max_m", Condition: rollbackName(250, 4), Value: 1.0, Source: "alc",
			Detail: "greatest possible rollback, RTT × speed: 250 ms at 4 m/s is 1.0 m",
			Why:    "the bound is reached only by a victim running straight at full speed for the whole rewind; lagkit's bots turn, stop and crouch."},
		{Metric: "rollback_mean_m", Condition: rollbackName(250, 4), Value: 0.4, Tolerance: 0.5, Source: "alc",
			Detail: "measured mean rollback about 0.2-0.6 m (0.4 m ± 50% here)", Why: alcWhy},
	},
})

func rollbackName(rtt, speed float64) string { return fmt.Sprintf("rtt%.0f_v%.1f", rtt, speed) }

// weighted returns the sum over a condition's cells of metric times
// weight.
func weighted(g groups, cond, metric, weight string) float64 {
	var s float64
	for _, c := range g.cells[cond] {
		s += c.Metrics[metric] * c.Metrics[weight]
	}
	return s
}
