package experiment

import (
	"fmt"
	"math"
	"slices"

	"github.com/lagkit/lagkit/shooter/scaling"
	"github.com/lagkit/lagkit/stats"
)

// holdTolerance is how close (relative) accuracy at 200 ms must come to
// the same bots' at 0 ms to count as held.
const holdTolerance = 0.05

// summariseScaling fits the grid's model and compares the techniques.
func summariseScaling(r *Results, cells []CellResult) {
	g := group(cells)
	grid := Table{Name: "scaling_grid", Title: "Hit accuracy by the shooter's round trip and the hitbox scale (no lag compensation; pooled over seeds)",
		Columns: []string{"rtt_ms", "scale", "shots", "hits", "hit_accuracy"}}
	var xl, xl2, xs, xi, y []float64
	for _, name := range g.names {
		c0 := g.cells[name][0].Cell
		if c0.Params["part"] != "grid" {
			continue
		}
		acc := g.ratio(name, "hits", "shots")
		r.Conditions = append(r.Conditions, g.condition(name, "cells (seeds)", len(g.cells[name]), map[string]float64{
			"shots": g.sum(name, "shots"), "hits": g.sum(name, "hits"), "hit_accuracy": acc}))
		grid.Rows = append(grid.Rows, []string{fnum(param(c0, "rtt_ms")), fnum(param(c0, "scale")), fnum(g.sum(name, "shots")), fnum(g.sum(name, "hits")), fnum(acc)})
		for _, c := range g.cells[name] {
			if a := c.Metrics["hit_accuracy"]; a > 0 && a < 1 {
				l, ls := param(c.Cell, "rtt_ms"), math.Log(param(c.Cell, "scale"))
				xl, xl2, xs, xi, y = append(xl, l), append(xl2, l*l), append(xs, ls), append(xi, l*ls), append(y, math.Log(a/(1-a)))
			}
		}
	}
	r.Tables = append(r.Tables, grid)
	model := Table{Name: "scaling_model", Title: "The fitted model logit(accuracy) = c + a x RTT + a2 x RTT² + (b + d x RTT) x log(scale) (RTT in ms), beside the shipped one accuracy-hold uses",
		Columns: []string{"model", "latency_coef", "latency2_coef", "scale_coef", "interaction_coef", "r_squared", "n", "hold_scale_200ms"}}
	if co, r2, ok := fitOLS([][]float64{xl, xl2, xs, xi}, y); ok {
		fitted := scaling.Model{LatencyCoef: co[0], Latency2Coef: co[1], ScaleCoef: co[2], InteractionCoef: co[3]}
		r.Conditions = append(r.Conditions, Condition{Name: "model", N: len(y), NUnit: "cells", Metrics: map[string]float64{
			"model_latency_coef": co[0], "model_latency2_coef": co[1], "model_scale_coef": co[2], "model_interaction_coef": co[3],
			"model_r2": r2, "hold_scale_200ms": fitted.Hold(200e6)}})
		model.Rows = append(model.Rows, []string{"fitted (this run)", fnum(co[0]), fnum(co[1]), fnum(co[2]), fnum(co[3]), fnum(r2), fnum(float64(len(y))), fnum(fitted.Hold(200e6))})
	}
	sm := scaling.DefaultModel
	model.Rows = append(model.Rows, []string{"shipped (accuracy-hold)", fnum(sm.LatencyCoef), fnum(sm.Latency2Coef), fnum(sm.ScaleCoef), fnum(sm.InteractionCoef), "", "", fnum(sm.Hold(200e6))})
	r.Tables = append(r.Tables, model)

	// The comparison, against the same bots at 0 ms with neither.
	base := g.ratio("none-rtt0", "hits", "shots")
	cmp := Table{Name: "scaling_compare", Title: "Each technique's accuracy against the same bots' at 0 ms with neither, and the victim's side",
		Columns: []string{"technique", "rtt_ms", "shots", "hit_accuracy", "hit_accuracy_ci95", "accuracy_vs_0ms", "sbc_per_hit", "scaled_hit_share", "scale_mean"}}
	var rtts []float64
	for _, name := range g.names {
		c0 := g.cells[name][0].Cell
		if c0.Params["part"] != "compare" {
			continue
		}
		if l := param(c0, "rtt_ms"); !slices.Contains(rtts, l) {
			rtts = append(rtts, l)
		}
		acc := g.ratio(name, "hits", "shots")
		met := map[string]float64{"shots": g.sum(name, "shots"), "hits": g.sum(name, "hits"), "hit_accuracy": acc,
			"accuracy_vs_0ms": safeDiv(acc, base), "sbc_per_hit": g.ratio(name, "sbc", "hits_received"),
			"scaled_hit_share": g.ratio(name, "scaled_hits", "hits"), "scale_mean": g.mean(name, "scale_mean"),
			"sbc": g.sum(name, "sbc"), "hits_received": g.sum(name, "hits_received")}
		r.Conditions = append(r.Conditions, g.condition(name, "cells (seeds)", len(g.cells[name]), met))
		cmp.Rows = append(cmp.Rows, []string{fmt.Sprint(c0.Params["technique"]), fnum(param(c0, "rtt_ms")), fnum(met["shots"]), fnum(acc),
			fnum(g.ci(name, "hit_accuracy")), fnum(met["accuracy_vs_0ms"]), fnum(met["sbc_per_hit"]), fnum(met["scaled_hit_share"]), fnum(met["scale_mean"])})
	}
	r.Tables = append(r.Tables, cmp)
	held := map[string]float64{}
	for _, t := range scaleTechniques {
		name := t.name + "-rtt200"
		if len(g.cells[name]) == 0 || base == 0 {
			continue
		}
		rel := g.ratio(name, "hits", "shots")/base - 1
		held[t.name+"_accuracy_change_200ms"] = rel
		held[t.name+"_held_200ms"] = b2f(math.Abs(rel) <= holdTolerance)
		if t.name != "none" {
			pairedTests(r, g, "hit_accuracy", "hit_accuracy", "none-rtt0", name)
		}
	}
	if len(held) > 0 {
		r.Conditions = append(r.Conditions, Condition{Name: "hold", Metrics: held, N: len(g.cells["none-rtt0"]), NUnit: "seeds"})
	}
	if len(g.cells["tlc-rtt200"]) > 0 && len(g.cells["accuracy-hold-rtt200"]) > 0 {
		pairedTests(r, g, "sbc_per_hit", "sbc_per_hit", "tlc-rtt200", "accuracy-hold-rtt200")
	}
	slices.Sort(rtts)
	r.Plots = append(r.Plots,
		Plot{Name: "scaling_grid", Title: "Hit accuracy against round trip, one line per hitbox scale", Kind: "line", Table: "scaling_grid",
			X: "rtt_ms", Y: "hit_accuracy", Series: "scale", XLabel: "shooter's round trip (ms)", YLabel: "hit accuracy",
			Caption: "Registered hits per shot, no lag compensation, targets' hitboxes scaled by a fixed factor, pooled over seeds."},
		Plot{Name: "scaling_compare", Title: "Hit accuracy against round trip, one line per technique", Kind: "line", Table: "scaling_compare",
			X: "rtt_ms", Y: "hit_accuracy", Series: "technique", XLabel: "shooter's round trip (ms)", YLabel: "hit accuracy",
			Caption: "Registered hits per shot under each technique, pooled over seeds."},
	)
}

// fitOLS fits y = c + sum of b_k x_k by least squares (the normal
// equations on centred data, solved by Gaussian elimination with partial
// pivoting) and returns the b_k and R², or false when the design is
// degenerate.
func fitOLS(xs [][]float64, y []float64) ([]float64, float64, bool) {
	k, n := len(xs), len(y)
	if n <= k+1 {
		return nil, 0, false
	}
	my := stats.Mean(y)
	means := make([]float64, k)
	for j := range xs {
		means[j] = stats.Mean(xs[j])
	}
	a := make([][]float64, k)
	for i := range a {
		a[i] = make([]float64, k+1)
		for j := range k {
			for t := range n {
				a[i][j] += (xs[i][t] - means[i]) * (xs[j][t] - means[j])
			}
		}
		for t := range n {
			a[i][k] += (xs[i][t] - means[i]) * (y[t] - my)
		}
	}
	for c := range k {
		p := c
		for r := c + 1; r < k; r++ {
			if math.Abs(a[r][c]) > math.Abs(a[p][c]) {
				p = r
			}
		}
		if math.Abs(a[p][c]) < 1e-12 {
			return nil, 0, false
		}
		a[c], a[p] = a[p], a[c]
		for r := range k {
			if r == c {
				continue
			}
			f := a[r][c] / a[c][c]
			for j := c; j <= k; j++ {
				a[r][j] -= f * a[c][j]
			}
		}
	}
	b := make([]float64, k)
	for i := range b {
		b[i] = a[i][k] / a[i][i]
	}
	var ssr, sst float64
	for t := range n {
		pred := my
		for j := range k {
			pred += b[j] * (xs[j][t] - means[j])
		}
		ssr += (y[t] - pred) * (y[t] - pred)
		sst += (y[t] - my) * (y[t] - my)
	}
	if sst == 0 {
		return b, 1, true
	}
	return b, 1 - ssr/sst, true
}
