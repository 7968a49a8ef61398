package stats

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Pearson is the test of Pearson's product-moment correlation r between
// paired samples x and y against zero. It needs at least three pairs and
// neither sample may be constant, since r is undefined then.
//
// Statistic and Effect are r. P is two-sided, from t = r·√((n-2)/(1-r²))
// with n-2 degrees of freedom; CI95 is the interval of r from Fisher's
// z = atanh(r) with standard error 1/√(n-3) (Fisher 1921, Metron 1:3-32),
// which is [-1, 1] for n = 3. For |r| = 1, t is ±Inf, p = 0 and CI95 is
// [r, r]. MeanDiff is 0: a correlation has no difference to estimate. N is
// the number of pairs.
func Pearson(x, y []float64) (Result, error) {
	const test = "pearson"
	if err := checkPairs(test, "x", "y", x, y, 3); err != nil {
		return Result{}, err
	}
	if constant(x) {
		return Result{}, fmt.Errorf("stats: %s: x is constant", test)
	}
	if constant(y) {
		return Result{}, fmt.Errorf("stats: %s: y is constant", test)
	}
	r := stat.Correlation(x, y, nil)
	if math.IsNaN(r) || math.IsInf(r, 0) {
		// Distinct values whose squared deviations underflow to zero.
		return Result{}, fmt.Errorf("stats: %s: spread of x or y too small to measure", test)
	}
	// Rounding can carry |r| just past 1.
	r = math.Max(-1, math.Min(1, r))
	n := len(x)
	res := Result{Statistic: r, N: n, Effect: r, CI95: [2]float64{r, r}}
	if math.Abs(r) == 1 {
		return res, nil
	}
	df := float64(n - 2)
	res.P = twoSidedT(r*math.Sqrt(df/(1-r*r)), df)
	half := distuv.UnitNormal.Quantile(0.975) / math.Sqrt(float64(n-3))
	z := math.Atanh(r)
	res.CI95 = [2]float64{math.Tanh(z - half), math.Tanh(z + half)}
	return res, nil
}
