package stats

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat"
)

// The t-tests of github.com/aclements/go-moremath/stats are not used here:
// they compute p as 1 - CDF, which rounds to 0 once p is below about 1e-16,
// and their incomplete beta function panics when it fails to converge, as
// it does on the NaN degrees of freedom of variances that underflow
// (testdata/fuzz/FuzzTests/0f7331bdcb459f11).

// PairedT is the two-sided paired t-test of the differences d = b[i] - a[i]
// against a zero mean (Student 1908, Biometrika 6:1-25), for a and b
// measured on the same units (runs, players, seeds). It needs at least two
// pairs.
//
// Statistic is t = mean(d) / (SD(d)/√n) with n-1 degrees of freedom,
// Effect is Cohen's d_z = mean(d) / SD(d) (Lakens 2013, Frontiers in
// Psychology 4:863), MeanDiff is mean(d) and CI95 its t interval, and N is
// the number of pairs.
//
// When every difference is the same, SD(d) is zero and t is undefined; the
// Result then states the obvious: if the differences are all zero, t = 0,
// p = 1 and d_z = 0; otherwise t and d_z are ±Inf and p = 0. Either way
// CI95 is the common difference at both ends.
func PairedT(a, b []float64) (Result, error) {
	const test = "paired t"
	if err := checkPairs(test, "a", "b", a, b, 2); err != nil {
		return Result{}, err
	}
	d := differences(a, b)
	n := len(d)
	if constant(d) {
		return degenerateT(d[0], n), nil
	}
	mean, sd := stat.MeanStdDev(d, nil)
	if sd == 0 {
		return Result{}, fmt.Errorf("stats: %s: differences too close together to measure their spread", test)
	}
	se := sd / math.Sqrt(float64(n))
	df := float64(n - 1)
	t := mean / se
	half := tCrit95(df) * se
	return Result{
		Statistic: t,
		P:         twoSidedT(t, df),
		N:         n,
		Effect:    mean / sd,
		MeanDiff:  mean,
		CI95:      [2]float64{mean - half, mean + half},
	}, nil
}

// Welch is Welch's two-sided t-test for independent samples a and b with
// possibly unequal variances (Welch 1947, Biometrika 34:28-35), with the
// Welch-Satterthwaite degrees of freedom. Use it to compare conditions run
// on different units; each sample needs at least two values.
//
// Statistic is t = (mean(b) - mean(a)) / √(sa²/na + sb²/nb), Effect is
// CohenD(a, b) (pooled standard deviation), MeanDiff is mean(b) - mean(a)
// and CI95 its Welch t interval, and N is na + nb.
//
// When both samples are constant, t is undefined and the Result follows
// PairedT: equal values give t = 0 and p = 1, different values t = ±Inf
// and p = 0, and CI95 is the difference at both ends.
func Welch(a, b []float64) (Result, error) {
	const test = "welch"
	if err := checkSample(test, "a", a, 2); err != nil {
		return Result{}, err
	}
	if err := checkSample(test, "b", b, 2); err != nil {
		return Result{}, err
	}
	na, nb := float64(len(a)), float64(len(b))
	if constant(a) && constant(b) {
		return degenerateT(b[0]-a[0], len(a)+len(b)), nil
	}
	ma, va := stat.MeanVariance(a, nil)
	mb, vb := stat.MeanVariance(b, nil)
	ua, ub := va/na, vb/nb
	se2 := ua + ub
	if se2 == 0 {
		return Result{}, fmt.Errorf("stats: %s: values too close together to measure their spread", test)
	}
	// Welch-Satterthwaite df = se2² / (ua²/(na-1) + ub²/(nb-1)), written
	// with the shares ua/se2 and ub/se2 so that squaring tiny variances
	// cannot underflow to 0/0.
	fa, fb := ua/se2, ub/se2
	df := 1 / (fa*fa/(na-1) + fb*fb/(nb-1))
	se := math.Sqrt(se2)
	diff := mb - ma
	t := diff / se
	half := tCrit95(df) * se
	return Result{
		Statistic: t,
		P:         twoSidedT(t, df),
		N:         len(a) + len(b),
		Effect:    CohenD(a, b),
		MeanDiff:  diff,
		CI95:      [2]float64{diff - half, diff + half},
	}, nil
}

// degenerateT is the t-test Result for a difference diff with no spread
// around it, over n observations.
func degenerateT(diff float64, n int) Result {
	r := Result{P: 1, N: n, MeanDiff: diff, CI95: [2]float64{diff, diff}}
	if diff != 0 {
		r.Statistic = math.Inf(int(math.Copysign(1, diff)))
		r.Effect = r.Statistic
		r.P = 0
	}
	return r
}
