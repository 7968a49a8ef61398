// Package stats provides the hypothesis tests, effect sizes and confidence
// intervals that lagkit's experiment reports state: paired and Welch t-tests,
// the Wilcoxon signed-rank test, Pearson's r, Cohen's d, t intervals, and
// Holm's correction for multiple comparisons.
//
// Comparisons of two samples are always of b against a: a positive
// statistic means b is larger. Every p-value and quantile comes from
// gonum's distuv distributions, whose upper tails are computed directly, so
// small p-values keep their precision.
//
// Functions that return a Result reject too few values, unequal lengths, NaN
// and values beyond ±1e60 with an error; degenerate but valid input (all
// differences zero, say) gets a documented Result, never NaN.
package stats

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Result is the outcome of a test. Each test's documentation says what
// Statistic, Effect, MeanDiff and CI95 hold for it.
type Result struct {
	// Statistic is the test statistic (t, W+ or r).
	Statistic float64
	// P is the two-sided p-value, in [0, 1].
	P float64
	// N is the number of pairs (paired tests, Pearson) or of observations
	// in both samples together (Welch).
	N int
	// Effect is the effect size.
	Effect float64
	// MeanDiff is the estimated difference b - a (a mean or a median).
	MeanDiff float64
	// CI95 is the 95% confidence interval of MeanDiff (of r for Pearson).
	CI95 [2]float64
}

// Mean returns the arithmetic mean of x, or NaN if x is empty.
func Mean(x []float64) float64 {
	return stat.Mean(x, nil)
}

// SD returns the sample standard deviation of x (divisor n-1), or NaN if x
// has fewer than two values.
func SD(x []float64) float64 {
	if len(x) < 2 {
		return math.NaN()
	}
	return stat.StdDev(x, nil)
}

// MeanCI95 returns the mean of x and its 95% Student t confidence interval
// (mean ± t(0.975, n-1) · SD/√n). For a single value the interval is that
// value; for an empty x all three are NaN.
func MeanCI95(x []float64) (mean, lo, hi float64) {
	mean = Mean(x)
	if len(x) < 2 {
		return mean, mean, mean
	}
	half := tCrit95(float64(len(x)-1)) * SD(x) / math.Sqrt(float64(len(x)))
	return mean, mean - half, mean + half
}

// CohenD returns Cohen's d for independent samples a and b: (mean(b) -
// mean(a)) divided by the pooled standard deviation
// √(((na-1)·sa² + (nb-1)·sb²) / (na+nb-2)) (Cohen 1988, Statistical Power
// Analysis for the Behavioral Sciences, 2nd ed., chapter 2). It is NaN if
// either sample is empty or both together have fewer than three values,
// 0 if the pooled standard deviation and the mean difference are both 0,
// and ±Inf if only the pooled standard deviation is.
func CohenD(a, b []float64) float64 {
	na, nb := len(a), len(b)
	if na == 0 || nb == 0 || na+nb < 3 {
		return math.NaN()
	}
	if constant(a) && constant(b) {
		return ratio(b[0]-a[0], 0)
	}
	diff := Mean(b) - Mean(a)
	ss := 0.0
	if na > 1 {
		ss += float64(na-1) * stat.Variance(a, nil)
	}
	if nb > 1 {
		ss += float64(nb-1) * stat.Variance(b, nil)
	}
	return ratio(diff, math.Sqrt(ss/float64(na+nb-2)))
}

// ratio returns num/den, defining 0/0 as 0 so that a zero effect over zero
// spread reads as "no effect" rather than NaN.
func ratio(num, den float64) float64 {
	if num == 0 && den == 0 {
		return 0
	}
	return num / den
}

// tCrit95 returns the 97.5th percentile of Student's t with df degrees of
// freedom: the half-width multiplier of a two-sided 95% interval.
func tCrit95(df float64) float64 {
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(0.975)
}

// twoSidedT returns the two-sided p-value of t under Student's t with df
// degrees of freedom.
func twoSidedT(t, df float64) float64 {
	return math.Min(1, 2*distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Survival(math.Abs(t)))
}

// constant reports whether all values of x are equal. Tests check it rather
// than a zero standard deviation because rounding can leave a tiny nonzero
// spread in data that is in fact constant.
func constant(x []float64) bool {
	for _, v := range x {
		if v != x[0] {
			return false
		}
	}
	return true
}

// maxAbs bounds the magnitude of test input. Far beyond any measurement, it
// keeps every square, sum of squares and product of sums finite for
// samples of up to 1e30 values, so no test overflows into a wrong answer.
const maxAbs = 1e60

// checkSample returns an error if x has fewer than min values or a value
// that is NaN or larger in magnitude than maxAbs. test and name prefix the
// message.
func checkSample(test, name string, x []float64, min int) error {
	if len(x) < min {
		return fmt.Errorf("stats: %s: %s has %d values, need at least %d", test, name, len(x), min)
	}
	for i, v := range x {
		if math.IsNaN(v) {
			return fmt.Errorf("stats: %s: %s[%d] is NaN", test, name, i)
		}
		if math.Abs(v) > maxAbs {
			return fmt.Errorf("stats: %s: %s[%d] = %g is out of range (magnitude above %g)", test, name, i, v, maxAbs)
		}
	}
	return nil
}

// checkPairs is checkSample for two samples of equal length.
func checkPairs(test, aName, bName string, a, b []float64, min int) error {
	if len(a) != len(b) {
		return fmt.Errorf("stats: %s: %s has %d values but %s has %d", test, aName, len(a), bName, len(b))
	}
	if err := checkSample(test, aName, a, min); err != nil {
		return err
	}
	return checkSample(test, bName, b, min)
}

// differences returns b[i] - a[i].
func differences(a, b []float64) []float64 {
	d := make([]float64, len(a))
	for i := range a {
		d[i] = b[i] - a[i]
	}
	return d
}
