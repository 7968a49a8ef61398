package stats

import (
	"math"
	"testing"
)

func TestBootstrapRatioCI95(t *testing.T) {
	num := []float64{3, 0, 5, 2, 1, 4}
	den := []float64{10, 8, 12, 9, 11, 10}
	lo, hi := BootstrapRatioCI95(num, den, 0, 7)
	ratio := 15.0 / 60
	if !(lo >= 0 && lo < ratio && ratio < hi && hi <= 1) {
		t.Errorf("interval [%v, %v] of ratio %v", lo, hi, ratio)
	}
	if lo2, hi2 := BootstrapRatioCI95(num, den, 0, 7); lo2 != lo || hi2 != hi {
		t.Errorf("same seed: [%v, %v], then [%v, %v]", lo, hi, lo2, hi2)
	}
	if lo2, hi2 := BootstrapRatioCI95(num, den, 0, 8); lo2 == lo && hi2 == hi {
		t.Errorf("another seed gave the same interval [%v, %v]", lo, hi)
	}
	// All numerators 0: the ratio is 0 in every resample.
	if lo, hi := BootstrapRatioCI95([]float64{0, 0}, []float64{3, 4}, 100, 1); lo != 0 || hi != 0 {
		t.Errorf("zeros: [%v, %v], want [0, 0]", lo, hi)
	}
	for _, c := range []struct{ num, den []float64 }{{nil, nil}, {[]float64{1}, []float64{0}}, {[]float64{1, 2}, []float64{1}}} {
		if lo, hi := BootstrapRatioCI95(c.num, c.den, 10, 1); !math.IsNaN(lo) || !math.IsNaN(hi) {
			t.Errorf("%v / %v: [%v, %v], want NaN", c.num, c.den, lo, hi)
		}
	}
}

// TestPoissonRateCI95 checks Garwood's interval against its tabled
// values (Ulm 1990, American Journal of Epidemiology 131(2):373-375;
// the same as R's poisson.test).
func TestPoissonRateCI95(t *testing.T) {
	for _, c := range []struct {
		k      int
		lo, hi float64
	}{{0, 0, 3.688879}, {1, 0.025318, 5.571643}, {5, 1.623486, 11.668332}, {20, 12.216520, 30.888378}} {
		lo, hi := PoissonRateCI95(c.k, 1)
		if math.Abs(lo-c.lo) > 1e-5 || math.Abs(hi-c.hi) > 1e-5 {
			t.Errorf("k %d: [%.6f, %.6f], want [%.6f, %.6f]", c.k, lo, hi, c.lo, c.hi)
		}
		lo2, hi2 := PoissonRateCI95(c.k, 10)
		if math.Abs(lo2-lo/10) > 1e-12 || math.Abs(hi2-hi/10) > 1e-12 {
			t.Errorf("k %d over 10: [%v, %v]", c.k, lo2, hi2)
		}
	}
	if lo, hi := PoissonRateCI95(1, 0); !math.IsNaN(lo) || !math.IsNaN(hi) {
		t.Errorf("exposure 0: [%v, %v]", lo, hi)
	}
}
