package experiment

import (
	"math"
	"slices"

	"github.com/lagkit/lagkit/stats"
)

// peekKey is a cell of the peek design without its replicate.
type peekKey struct{ p, d, s float64 }

func peekKeyOf(c Cell) peekKey {
	return peekKey{param(c, "peeker_rtt_ms"), param(c, "defender_rtt_ms"), param(c, "start_m")}
}

// summarisePeek sums up the peek design: per cell the measured and
// predicted advantage and the peeker's share of wins; slopes of both on
// each player's round trip; paired tests of swapped cells; and the
// advantage by start distance.
func summarisePeek(r *Results, cells []CellResult) {
	g := group(cells)
	tbl := Table{Name: "peek_cells", Title: "Per cell (pooled over seeds): the peeker's advantage measured and as Riot's account predicts, and who won",
		Columns: []string{"condition", "peeker_rtt_ms", "defender_rtt_ms", "start_m", "rounds", "duels", "advantage_ms", "advantage_ms_ci95",
			"expected_ms", "advantage_error_ms", "shot_lead_ms", "peeker_first_hit_share", "peeker_win_share"}}
	var allErr, allAbs []float64
	for _, name := range g.names {
		k := peekKeyOf(g.cells[name][0].Cell)
		met := map[string]float64{
			"rounds": g.sum(name, "rounds"), "duels": g.sum(name, "duels"),
			"advantage_ms":           g.ratio(name, "advantage_sum_ms", "duels"),
			"expected_ms":            g.mean(name, "expected_ms"),
			"shot_lead_ms":           g.ratio(name, "shot_lead_sum_ms", "shot_pairs"),
			"peeker_first_hit_share": safeDiv(g.sum(name, "peeker_first_hits"), g.sum(name, "peeker_first_hits")+g.sum(name, "defender_first_hits")),
			"peeker_win_share":       safeDiv(g.sum(name, "peeker_kills"), g.sum(name, "peeker_kills")+g.sum(name, "defender_kills")),
			"peeker_saw_first_share": g.ratio(name, "peeker_saw_first", "duels"),
		}
		met["advantage_error_ms"] = met["advantage_ms"] - met["expected_ms"]
		allErr, allAbs = append(allErr, met["advantage_error_ms"]), append(allAbs, math.Abs(met["advantage_error_ms"]))
		r.Conditions = append(r.Conditions, g.condition(name, "cells (seeds)", len(g.cells[name]), met))
		tbl.Rows = append(tbl.Rows, []string{name, fnum(k.p), fnum(k.d), fnum(k.s), fnum(met["rounds"]), fnum(met["duels"]),
			fnum(met["advantage_ms"]), fnum(g.ci(name, "advantage_ms")), fnum(met["expected_ms"]), fnum(met["advantage_error_ms"]),
			fnum(met["shot_lead_ms"]), fnum(met["peeker_first_hit_share"]), fnum(met["peeker_win_share"])})
	}
	r.Tables = append(r.Tables, tbl)

	all := map[string]float64{"mean_error_ms": stats.Mean(allErr), "mean_abs_error_ms": stats.Mean(allAbs)}
	slopes := Table{Name: "peek_slopes", Title: "Least-squares slopes over every cell and seed: each measure against each player's round trip (per ms of round trip)",
		Columns: []string{"measure", "per_peeker_rtt_ms", "per_defender_rtt_ms", "r_squared", "n"}}
	for _, m := range []string{"advantage_ms", "shot_lead_ms", "peeker_win_share"} {
		var xp, xd, y []float64
		for _, c := range cells {
			k := peekKeyOf(c.Cell)
			xp, xd, y = append(xp, k.p), append(xd, k.d), append(y, c.Metrics[m])
		}
		bp, bd, r2, ok := fit2(xp, xd, y)
		if !ok {
			continue
		}
		all[m+"_slope_peeker"], all[m+"_slope_defender"], all[m+"_r2"] = bp, bd, r2
		slopes.Rows = append(slopes.Rows, []string{m, fnum(bp), fnum(bd), fnum(r2), fnum(float64(len(y)))})
	}
	if _, ok := all["peeker_win_share_slope_peeker"]; ok {
		all["defender_dominant"] = b2f(math.Abs(all["peeker_win_share_slope_defender"]) > math.Abs(all["peeker_win_share_slope_peeker"]))
		all["advantage_defender_dominant"] = b2f(math.Abs(all["advantage_ms_slope_defender"]) > math.Abs(all["advantage_ms_slope_peeker"]))
	}
	r.Tables = append(r.Tables, slopes)

	// By start distance, pooled over latencies.
	byStart := Table{Name: "peek_by_start", Title: "The advantage and the peeker's win share by start distance (pooled over latencies and seeds)",
		Columns: []string{"start_m", "duels", "advantage_ms", "peeker_win_share"}}
	var starts []float64
	for _, c := range cells {
		if s := param(c.Cell, "start_m"); !slices.Contains(starts, s) {
			starts = append(starts, s)
		}
	}
	slices.Sort(starts)
	var advByStart []float64
	for _, s := range starts {
		var duels, adv, pk, dk float64
		for _, c := range cells {
			if param(c.Cell, "start_m") == s {
				duels += c.Metrics["duels"]
				adv += c.Metrics["advantage_sum_ms"]
				pk += c.Metrics["peeker_kills"]
				dk += c.Metrics["defender_kills"]
			}
		}
		advByStart = append(advByStart, safeDiv(adv, duels))
		byStart.Rows = append(byStart.Rows, []string{fnum(s), fnum(duels), fnum(safeDiv(adv, duels)), fnum(safeDiv(pk, pk+dk))})
	}
	if len(advByStart) > 1 {
		// Strictly: a tie with a farther start is not the smallest.
		all["nearest_start_smallest"] = b2f(slices.Min(advByStart[1:]) > advByStart[0])
	}
	r.Tables = append(r.Tables, byStart)
	r.Conditions = append(r.Conditions, Condition{Name: "all", Metrics: all, N: len(cells), NUnit: "cells"})

	// By latency pair, pooled over starts, for the plot.
	byLat := Table{Name: "peek_by_latency", Title: "Measured and predicted advantage by round trips (pooled over starts and seeds)",
		Columns: []string{"peeker_rtt_ms", "defender_rtt_ms", "advantage_ms", "expected_ms", "peeker_win_share"}}
	type pd struct{ p, d float64 }
	var pairs []pd
	sums := map[pd]*[5]float64{}
	for _, c := range cells {
		k := peekKeyOf(c.Cell)
		key := pd{k.p, k.d}
		if sums[key] == nil {
			sums[key] = &[5]float64{}
			pairs = append(pairs, key)
		}
		s := sums[key]
		s[0] += c.Metrics["duels"]
		s[1] += c.Metrics["advantage_sum_ms"]
		s[2] += c.Metrics["expected_ms"] * c.Metrics["duels"]
		s[3] += c.Metrics["peeker_kills"]
		s[4] += c.Metrics["defender_kills"]
	}
	slices.SortFunc(pairs, func(a, b pd) int {
		if a.p != b.p {
			return cmpF(a.p, b.p)
		}
		return cmpF(a.d, b.d)
	})
	for _, key := range pairs {
		s := sums[key]
		byLat.Rows = append(byLat.Rows, []string{fnum(key.p), fnum(key.d), fnum(safeDiv(s[1], s[0])), fnum(safeDiv(s[2], s[0])), fnum(safeDiv(s[3], s[3]+s[4]))})
	}
	r.Tables = append(r.Tables, byLat)

	// Swapped cells: the same two round trips, the higher one the
	// peeker's (A) or the defender's (B), same start and seed.
	for _, m := range []string{"advantage_ms", "peeker_win_share", "shot_lead_ms"} {
		var xa, xb []float64
		byKey := map[[4]float64]CellResult{}
		for _, c := range cells {
			k := peekKeyOf(c.Cell)
			byKey[[4]float64{k.p, k.d, k.s, float64(c.Cell.Replicate)}] = c
		}
		for _, c := range cells {
			k := peekKeyOf(c.Cell)
			if k.p <= k.d {
				continue
			}
			if w, ok := byKey[[4]float64{k.d, k.p, k.s, float64(c.Cell.Replicate)}]; ok {
				xa, xb = append(xa, c.Metrics[m]), append(xb, w.Metrics[m])
			}
		}
		sortPaired(xa, xb)
		n := len(r.Tests)
		AddPaired(r, m, "peeker_slower", "defender_slower", xa, xb, "swapped cells paired by start and seed: A has the higher round trip on the peeker, B the same on the defender")
		for i := n; i < len(r.Tests); i++ {
			if m == "advantage_ms" || m == "peeker_win_share" {
				r.Tests[i].Family = "primary"
			}
		}
	}

	r.Plots = append(r.Plots,
		Plot{Name: "peek_advantage", Title: "The peeker's advantage against the defender's round trip, one line per peeker round trip", Kind: "line",
			Table: "peek_by_latency", X: "defender_rtt_ms", Y: "advantage_ms", Series: "peeker_rtt_ms", XLabel: "defender round trip (ms)", YLabel: "advantage (ms)",
			Caption: "Measured advantage (the defender's first sight less the peeker's), mean over duels of every start and seed."},
		Plot{Name: "peek_win_share", Title: "The peeker's share of wins against the defender's round trip", Kind: "line",
			Table: "peek_by_latency", X: "defender_rtt_ms", Y: "peeker_win_share", Series: "peeker_rtt_ms", XLabel: "defender round trip (ms)", YLabel: "peeker's win share",
			Caption: "Share of rounds with a kill that the peeker won, over every start and seed."},
	)
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func cmpF(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// fit2 fits y = a + b1 x1 + b2 x2 by least squares and returns b1, b2
// and R², or false when the design is degenerate.
func fit2(x1, x2, y []float64) (b1, b2, r2 float64, ok bool) {
	n := float64(len(y))
	if len(y) < 3 {
		return 0, 0, 0, false
	}
	m1, m2, my := stats.Mean(x1), stats.Mean(x2), stats.Mean(y)
	var s11, s22, s12, s1y, s2y, syy float64
	for i := range y {
		a, b, c := x1[i]-m1, x2[i]-m2, y[i]-my
		s11, s22, s12, s1y, s2y, syy = s11+a*a, s22+b*b, s12+a*b, s1y+a*c, s2y+b*c, syy+c*c
	}
	det := s11*s22 - s12*s12
	if det == 0 || n == 0 {
		return 0, 0, 0, false
	}
	b1 = (s22*s1y - s12*s2y) / det
	b2 = (s11*s2y - s12*s1y) / det
	if syy == 0 {
		return b1, b2, 1, true
	}
	return b1, b2, (b1*s1y + b2*s2y) / syy, true
}
