package stats

import (
	"math"
	"testing"
)

// TestWilsonCI95 against values computed by hand from Wilson's formula
// (and R's prop.test(correct = FALSE)): within [0, 1] at every n.
func TestWilsonCI95(t *testing.T) {
	cases := []struct {
		yes, n int
		lo, hi float64
	}{
		{1, 2, 0.0945, 0.9055},
		{0, 1, 0, 0.7935},
		{3, 3, 0.4385, 1},
		{7, 10, 0.3968, 0.8922},
	}
	for _, c := range cases {
		lo, hi := WilsonCI95(c.yes, c.n)
		if math.Abs(lo-c.lo) > 5e-4 || math.Abs(hi-c.hi) > 5e-4 {
			t.Errorf("%d of %d: %.4f to %.4f, want %.4f to %.4f", c.yes, c.n, lo, hi, c.lo, c.hi)
		}
	}
	if lo, hi := WilsonCI95(0, 0); !math.IsNaN(lo) || !math.IsNaN(hi) {
		t.Errorf("0 of 0: %v to %v", lo, hi)
	}
}

// TestMedianCI95: the interval's bounds are order statistics, so on a
// -5..5 scale they stay on it; under six values there is none.
func TestMedianCI95Exported(t *testing.T) {
	med, lo, hi := MedianCI95([]float64{-5, 5})
	if med != 0 || !math.IsNaN(lo) || !math.IsNaN(hi) {
		t.Errorf("two values: %v, %v to %v", med, lo, hi)
	}
	// n = 10: k = 2 (P(B <= 1) = 0.0107), the 2nd and 9th values.
	med, lo, hi = MedianCI95([]float64{5, -5, 0, 1, 2, 3, -1, 4, -2, 5})
	if med != 1.5 || lo != -2 || hi != 5 {
		t.Errorf("ten values: median %v, %v to %v; want 1.5, -2 to 5", med, lo, hi)
	}
	// n = 6: k = 1, the range (coverage 1 - 2/64 = 0.969).
	if _, lo, hi := MedianCI95([]float64{1, 2, 3, 4, 5, 5}); lo != 1 || hi != 5 {
		t.Errorf("six values: %v to %v, want 1 to 5", lo, hi)
	}
}
