package study

import (
	"math"
	"strings"
	"testing"
)

// TestPairedN: Guenther's formula gives the paired t-test's n within one
// of the noncentral t's exact figures for power .80 at two-sided α .05
// (dz 0.2: 199, 0.5: 34, 0.8: 15, 1.0: 10).
func TestPairedN(t *testing.T) {
	for _, c := range []struct {
		dz   float64
		want int
	}{{0.2, 199}, {0.5, 34}, {0.8, 15}, {1.0, 10}, {-0.5, 34}, {0, 0}, {math.NaN(), 0}} {
		if got := PairedN(c.dz); got < c.want-1 || got > c.want+1 {
			t.Errorf("dz %v: n %d, want %d within one", c.dz, got, c.want)
		}
	}
}

// TestPlanPower: the plan takes the SD of the pairs' differences, puts
// the observed mean difference first, and gives the Wilcoxon test its
// n over 0.955 and, for any distribution, over 0.864; under two pairs or
// without spread there is no plan; the report's section says so in a
// table.
func TestPlanPower(t *testing.T) {
	xa := []float64{0.30, 0.25, 0.40, 0.35, 0.20, 0.30}
	xb := []float64{0.20, 0.25, 0.25, 0.30, 0.10, 0.30} // differences -0.1, 0, -0.15, -0.05, -0.1, 0
	p := planPower(xa, xb)
	if p == nil || p.Pairs != 6 || math.Abs(p.Mean+0.0666667) > 1e-6 || math.Abs(p.SD-0.0605530) > 1e-6 {
		t.Fatalf("plan %+v", p)
	}
	obs := p.Rows[0]
	if !obs.Observed || math.Abs(obs.DZ-1.100964) > 1e-5 || obs.T != PairedN(obs.DZ) || obs.Wilcoxon != int(math.Ceil(float64(obs.T)/0.955)) ||
		obs.WilcoxonAny != int(math.Ceil(float64(obs.T)/0.864)) || len(p.Rows) != 1+len(PowerDifferences) {
		t.Errorf("rows %+v", p.Rows)
	}
	if planPower(xa[:1], xb[:1]) != nil || planPower([]float64{0.1, 0.2}, []float64{0.2, 0.3}) != nil {
		t.Error("a plan from one pair, or from differences without spread")
	}
	r := &Report{Subjects: "participants", Main: &MainOutcome{Pairs: []OutcomePair{{A: "tlc", B: "alc", Power: p}}}}
	var b strings.Builder
	r.markdownPower(&b)
	if !strings.Contains(b.String(), "| tlc | alc | 6 | 0.061 | 0.067 (observed) | 1.10 | 9 | 10 | 11 |") {
		t.Errorf("section:\n%s", b.String())
	}
}
