package experiment

import (
	"maps"
	"math"
	"slices"
	"strconv"

	"github.com/lagkit/lagkit/stats"
)

// groups holds cell results by condition, conditions in design order.
type groups struct {
	names []string
	cells map[string][]CellResult
}

func group(cells []CellResult) groups {
	g := groups{cells: map[string][]CellResult{}}
	for _, c := range cells {
		n := c.Cell.Condition
		if _, ok := g.cells[n]; !ok {
			g.names = append(g.names, n)
		}
		g.cells[n] = append(g.cells[n], c)
	}
	return g
}

// sum adds up metric over a condition's cells.
func (g groups) sum(cond, metric string) float64 {
	var s float64
	for _, c := range g.cells[cond] {
		s += c.Metrics[metric]
	}
	return s
}

// ratio returns sum(num)/sum(den) over a condition's cells (0 when the
// denominator is 0): rates pooled over the runs, as a study pools its
// rounds.
func (g groups) ratio(cond, num, den string) float64 {
	d := g.sum(cond, den)
	if d == 0 {
		return 0
	}
	return g.sum(cond, num) / d
}

// mean returns the mean of metric over a condition's cells.
func (g groups) mean(cond, metric string) float64 {
	cs := g.cells[cond]
	if len(cs) == 0 {
		return 0
	}
	return g.sum(cond, metric) / float64(len(cs))
}

// perReplicate returns metric for each replicate of a condition, keyed
// by replicate.
func (g groups) perReplicate(cond, metric string) map[int]float64 {
	out := map[int]float64{}
	for _, c := range g.cells[cond] {
		if v, ok := c.Metrics[metric]; ok && !math.IsNaN(v) {
			out[c.Cell.Replicate] = v
		}
	}
	return out
}

// condition returns a Condition for cond with the first cell's params.
func (g groups) condition(cond, unit string, n int, metrics map[string]float64) Condition {
	var params map[string]any
	if cs := g.cells[cond]; len(cs) > 0 {
		params = cs[0].Cell.Params
	}
	return Condition{Name: cond, Params: params, Metrics: metrics, N: n, NUnit: unit}
}

// pairedTests compares a cell metric between conditions a and b over
// the replicates both have, with a paired t-test and a Wilcoxon
// signed-rank test, and appends them to r under the name metric.
func pairedTests(r *Results, g groups, metric, cellMetric, a, b string) {
	pa, pb := g.perReplicate(a, cellMetric), g.perReplicate(b, cellMetric)
	var xa, xb []float64
	for rep, v := range pa {
		if w, ok := pb[rep]; ok {
			xa, xb = append(xa, v), append(xb, w)
		}
	}
	sortPaired(xa, xb)
	AddPaired(r, metric, a, b, xa, xb, "paired by replicate (seed)")
}

// AddPaired appends the paired t and Wilcoxon tests of b against a. A
// test that cannot be computed (too few pairs) is left out; one whose
// statistic is infinite (every difference the same) is reported with a
// note, as JSON has no infinities.
func AddPaired(r *Results, metric, a, b string, xa, xb []float64, note string) {
	name := ComparisonName(metric, a, b)
	if t, err := stats.PairedT(xa, xb); err == nil {
		r.Tests = append(r.Tests, FiniteTest(Test{
			Name: name, Kind: "paired_t", Metric: metric, A: a, B: b,
			N: t.N, Statistic: t.Statistic, P: t.P, Effect: t.Effect, EffectMeasure: EffectCohenDz,
			MeanDiff: t.MeanDiff, Centre: CentreMean, CI95: t.CI95, Note: note,
		}))
	}
	if w, err := stats.Wilcoxon(xa, xb); err == nil {
		r.Tests = append(r.Tests, FiniteTest(Test{
			Name: name, Kind: "wilcoxon", Metric: metric, A: a, B: b,
			N: w.N, Statistic: w.Statistic, P: w.P, Effect: w.Effect, EffectMeasure: EffectRankBiserial,
			MeanDiff: w.MeanDiff, Centre: CentreMedian, CI95: w.CI95, Note: note,
		}))
	}
}

// ComparisonName names a paired comparison in the direction of its
// difference: "metric: b − a" for b minus a.
func ComparisonName(metric, a, b string) string { return metric + ": " + b + " − " + a }

// AdjustHolm fills each test's Holm-adjusted p-value, correcting within
// the run's tests of one kind: the paired t-tests form one family, the
// Wilcoxon tests (which ask the same questions again, without assuming
// normal differences) another, the correlations a third. Tests of a
// named Family (a study's primary outcome) form families of their own,
// one per kind, so that the secondary tests do not dilute the primary.
func AdjustHolm(r *Results) {
	byKind := map[[2]string][]int{}
	for i, t := range r.Tests {
		k := [2]string{t.Kind, t.Family}
		byKind[k] = append(byKind[k], i)
	}
	for _, idx := range byKind {
		ps := make([]float64, len(idx))
		for j, i := range idx {
			ps[j] = r.Tests[i].P
		}
		adj, err := stats.Holm(ps)
		if err != nil {
			// finite keeps every P in [0, 1]; a test that escaped it is
			// reported unadjusted rather than dropped.
			adj = ps
		}
		for j, i := range idx {
			r.Tests[i].PHolm, r.Tests[i].HolmFamily = adj[j], len(idx)
		}
	}
}

// FiniteTest replaces infinite or undefined values, which JSON cannot hold,
// by their sign (or 0) and says so in the note.
func FiniteTest(t Test) Test {
	bad := false
	fix := func(v *float64) {
		switch {
		case math.IsNaN(*v):
			*v, bad = 0, true
		case math.IsInf(*v, 1):
			*v, bad = math.MaxFloat64, true
		case math.IsInf(*v, -1):
			*v, bad = -math.MaxFloat64, true
		}
	}
	for _, v := range []*float64{&t.Statistic, &t.P, &t.Effect, &t.MeanDiff} {
		fix(v)
	}
	if bad {
		t.Note += "; degenerate: every difference is the same, so the spread is zero"
	}
	bad = false
	fix(&t.CI95[0])
	fix(&t.CI95[1])
	if bad {
		t.Note += "; the 95% interval is unbounded: too few pairs to bound it"
	}
	return t
}

// sortPaired orders pairs by the first value so results do not depend on
// map iteration order.
func sortPaired(a, b []float64) {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && (a[j] < a[j-1] || a[j] == a[j-1] && b[j] < b[j-1]); j-- {
			a[j], a[j-1] = a[j-1], a[j]
			b[j], b[j-1] = b[j-1], b[j]
		}
	}
}

// ci returns the half-width of the 95% t interval of per-replicate
// values of metric in cond.
func (g groups) ci(cond, metric string) float64 {
	// In replicate order: a sum in map order differs in its last bits
	// from run to run, and the same seed must give the same report.
	per := g.perReplicate(cond, metric)
	var xs []float64
	for _, r := range slices.Sorted(maps.Keys(per)) {
		xs = append(xs, per[r])
	}
	if len(xs) < 2 {
		return 0
	}
	m, lo, _ := stats.MeanCI95(xs)
	return m - lo
}

// fnum writes a table cell: the value at full precision (the shortest
// decimal that reads back as the same float64), or empty when it is not
// finite. Tables feed CSV files that programs read; rounding and
// percentages are the HTML report's business.
func fnum(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return ""
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// param returns a cell's numeric parameter, whatever numeric type it
// has (a cell read back from JSON has float64s).
func param(c Cell, key string) float64 {
	switch v := c.Params[key].(type) {
	case int:
		return float64(v)
	case float64:
		return v
	}
	return 0
}

// addPearson appends a Pearson correlation of y on x, if it can be
// computed.
func addPearson(r *Results, name, xName, yName string, xs, ys []float64, note string) {
	p, err := stats.Pearson(xs, ys)
	if err != nil {
		return
	}
	r.Tests = append(r.Tests, FiniteTest(Test{Name: name + ": correlation with " + xName, Kind: "pearson", Metric: yName,
		A: xName, B: yName, N: p.N, Statistic: p.Statistic, P: p.P, Effect: p.Effect, EffectMeasure: EffectPearsonR,
		CI95: p.CI95, Note: note}))
}
