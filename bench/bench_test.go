package bench

import (
	"strings"
	"testing"
)

// TestBenchFigures checks that a figure meets its goal only when its
// ratio to its anchor and its exponent do too, and that the table shows
// them.
func TestBenchFigures(t *testing.T) {
	figs := []Figure{
		{Name: "fast", Value: 400, Unit: "ns", Goal: 500, Anchor: "ray", Ratio: 9, RatioGoal: 11},
		{Name: "fast here", Value: 400, Unit: "ns", Goal: 500, Anchor: "ray", Ratio: 20, RatioGoal: 11},
		{Name: "slow", Value: 16001, Unit: "B/s", Goal: 16000},
		{Name: "linear", Value: 40, Unit: "µs", Goal: 100, Exponent: 0.61, ExponentOf: "entities", ExponentGoal: 1},
		{Name: "quadratic", Value: 40, Unit: "µs", Goal: 100, Exponent: 2, ExponentOf: "entities", ExponentGoal: 1},
		// On a machine half as fast: over the absolute goal, within it
		// in ray-capsule tests; and the other way round.
		{Name: "slow machine", Value: 3, Unit: "ms", Goal: 2.34, InRayCapsule: 26000, GoalInRayCapsule: 51480},
		{Name: "fast machine", Value: 2, Unit: "ms", Goal: 2.34, InRayCapsule: 60000, GoalInRayCapsule: 51480},
	}
	want := []bool{true, false, false, true, false, true, false}
	for i := range figs {
		figs[i].Met = figs[i].Meets()
		if figs[i].Met != want[i] {
			t.Errorf("%s: met %v, want %v", figs[i].Name, figs[i].Met, want[i])
		}
	}
	var b strings.Builder
	Print(&b, figs)
	out := b.String()
	for _, s := range []string{"9.0x ray (≤ 11x)", "16001 B/s", "≤ 16000 B/s", "entities exponent 0.61 (≤ 1)", "26000 (≤ 51480)"} {
		if !strings.Contains(out, s) {
			t.Errorf("table lacks %q:\n%s", s, out)
		}
	}
}
