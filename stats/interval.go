package stats

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// WilsonCI95 returns the Wilson score 95% confidence interval of a
// proportion: yes successes out of n (Wilson 1927, Probable inference,
// the law of succession, and statistical inference, JASA 22). Unlike the
// Wald or t interval it stays within [0, 1] and keeps its coverage for
// small n and proportions near 0 or 1. For n 0 both bounds are NaN.
func WilsonCI95(yes, n int) (lo, hi float64) {
	if n <= 0 || yes < 0 || yes > n {
		return math.NaN(), math.NaN()
	}
	z := distuv.UnitNormal.Quantile(0.975)
	nf := float64(n)
	p := float64(yes) / nf
	den := 1 + z*z/nf
	centre := (p + z*z/(2*nf)) / den
	half := z / den * math.Sqrt(p*(1-p)/nf+z*z/(4*nf*nf))
	lo, hi = max(0, centre-half), min(1, centre+half)
	// At 0 or n successes a bound is exact: rounding must not move it.
	if yes == 0 {
		lo = 0
	}
	if yes == n {
		hi = 1
	}
	return lo, hi
}

// MinMedianCI is the fewest values MedianCI95 bounds: under six, even
// the whole sample's range covers the median with less than 95%.
const MinMedianCI = 6

// MedianCI95 returns the median of x (not changed) and its
// distribution-free 95% confidence interval: the order statistics x(k)
// and x(n+1-k) with the largest k for which the interval covers the
// population median with probability 1 - 2·P(Binomial(n, 1/2) <= k-1) >=
// 0.95 (Conover 1999, Practical Nonparametric Statistics, 3rd ed., 3.2).
// Its bounds are values of x, so it stays within their scale. With
// fewer than MinMedianCI values the bounds are NaN; for an empty x all
// three are.
func MedianCI95(x []float64) (med, lo, hi float64) {
	if len(x) == 0 {
		return math.NaN(), math.NaN(), math.NaN()
	}
	s := slices.Sorted(slices.Values(x))
	med = median(s)
	if len(s) < MinMedianCI {
		return med, math.NaN(), math.NaN()
	}
	lo, hi = medianCI95(s)
	return med, lo, hi
}
