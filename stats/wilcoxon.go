package stats

import (
	"cmp"
	"math"
	"slices"
	"sort"

	"gonum.org/v1/gonum/stat/distuv"
)

// wilcoxonExactMax is the largest number of nonzero differences for which
// Wilcoxon computes the exact p-value. Enumerating the 2^25 sign patterns
// by rank sum costs at most 25 · 650 additions, and at n = 25 the normal
// approximation is already within 0.007 of the exact p-value, and within
// 0.002 where that is below 0.1 (TestWilcoxonApproxNearExact).
const wilcoxonExactMax = 25

// Wilcoxon is the two-sided Wilcoxon signed-rank test of the differences
// d = b[i] - a[i] against a distribution symmetric about zero (Wilcoxon
// 1945, Biometrics Bulletin 1(6):80-83). It needs at least one pair.
//
// Zero differences are dropped before ranking, as Wilcoxon proposed (Pratt's
// alternative of ranking them and then discarding their ranks, Pratt 1959,
// JASA 54:655-667, is not used), and tied |d| share the average of their
// ranks. With n nonzero differences:
//
//   - n <= 25: the p-value is exact. Under the null hypothesis each rank is
//     equally likely to carry either sign, so the distribution of W+ given
//     the observed (possibly tied) ranks is enumerated over all 2^n sign
//     patterns.
//   - n > 25: the p-value uses the normal approximation with mean
//     n(n+1)/4, variance n(n+1)(2n+1)/24 - Σ(t³-t)/48 over tie groups of
//     size t, and a continuity correction of 1/2 (Hollander and Wolfe,
//     Nonparametric Statistical Methods, 2nd ed., section 3.1).
//
// Statistic is W+, the sum of the ranks of the positive differences (W-
// is that of the negative ones). Effect is the matched-pairs rank-biserial
// correlation (W+ - W-)/(W+ + W-) (Kerby 2014, Comprehensive Psychology 3:11.IT.3.1), in [-1, 1]. MeanDiff
// is the median of all differences, zeros included, and CI95 its
// distribution-free interval from order statistics (Conover, Practical
// Nonparametric Statistics, 3rd ed., section 3.2), with coverage of at
// least 95%; for fewer than six pairs no two order statistics reach that,
// and the interval is (-Inf, +Inf). N is the number of pairs, zeros
// included. If every difference is zero, W+ = 0, p = 1 and Effect = 0.
func Wilcoxon(a, b []float64) (Result, error) {
	if err := checkPairs("wilcoxon", "a", "b", a, b, 1); err != nil {
		return Result{}, err
	}
	d := differences(a, b)
	slices.Sort(d)
	lo, hi := medianCI95(d)
	r := Result{
		P:        1,
		N:        len(d),
		MeanDiff: median(d),
		CI95:     [2]float64{lo, hi},
	}

	nz := slices.DeleteFunc(slices.Clone(d), func(v float64) bool { return v == 0 })
	n := len(nz)
	if n == 0 {
		return r, nil
	}
	slices.SortFunc(nz, func(x, y float64) int { return cmp.Compare(math.Abs(x), math.Abs(y)) })
	// Ranks are doubled so that a tie's average rank, a half-integer when
	// the tie spans an even number of positions, stays an integer: the
	// exact distribution is then an array indexed by doubled rank sum.
	ranks2 := make([]int, n)
	wPlus2 := 0
	tieSum := 0.0 // Σ(t³ - t) over tie groups
	for i := 0; i < n; {
		j := i + 1
		for j < n && math.Abs(nz[j]) == math.Abs(nz[i]) {
			j++
		}
		// Positions i..j-1 (ranks i+1..j) share the average rank (i+1+j)/2.
		for k := i; k < j; k++ {
			ranks2[k] = i + 1 + j
			if nz[k] > 0 {
				wPlus2 += ranks2[k]
			}
		}
		t := float64(j - i)
		tieSum += t*t*t - t
		i = j
	}

	wPlus := float64(wPlus2) / 2
	total := float64(n*(n+1)) / 2
	r.Statistic = wPlus
	r.Effect = (2*wPlus - total) / total
	if n <= wilcoxonExactMax {
		r.P = signedRankExactP(ranks2, wPlus2)
	} else {
		r.P = signedRankNormalP(n, wPlus, tieSum)
	}
	return r, nil
}

// signedRankExactP returns the exact two-sided p-value of a doubled rank
// sum w2 of the positive differences, given the doubled ranks of all
// nonzero differences. count[s] is the number of sign patterns whose
// positive doubled ranks sum to s; it is built one rank at a time, as in
// the subset-sum recurrence. Flipping every sign maps sum s to
// total - s, so the distribution is symmetric and the two-sided p-value is
// twice the smaller tail.
func signedRankExactP(ranks2 []int, w2 int) float64 {
	total := 0
	for _, r := range ranks2 {
		total += r
	}
	// Counts reach 2^25 at most, exact in float64.
	count := make([]float64, total+1)
	count[0] = 1
	top := 0
	for _, r := range ranks2 {
		top += r
		for s := top; s >= r; s-- {
			count[s] += count[s-r]
		}
	}
	var lower, upper float64
	for s, c := range count {
		if s <= w2 {
			lower += c
		}
		if s >= w2 {
			upper += c
		}
	}
	patterns := math.Ldexp(1, len(ranks2))
	return math.Min(1, 2*math.Min(lower, upper)/patterns)
}

// signedRankNormalP returns the two-sided p-value of W+ = wPlus over n
// nonzero differences from the normal approximation with tie correction
// and continuity correction; tieSum is Σ(t³ - t) over tie groups. The
// correction never carries W+ past the mean, so p is at most 1.
func signedRankNormalP(n int, wPlus, tieSum float64) float64 {
	nf := float64(n)
	mean := nf * (nf + 1) / 4
	variance := nf*(nf+1)*(2*nf+1)/24 - tieSum/48
	z := math.Max(math.Abs(wPlus-mean)-0.5, 0) / math.Sqrt(variance)
	return math.Min(1, 2*distuv.UnitNormal.Survival(z))
}

// median returns the median of sorted, non-empty x.
func median(x []float64) float64 {
	n := len(x)
	if n%2 == 1 {
		return x[n/2]
	}
	return (x[n/2-1] + x[n/2]) / 2
}

// medianCI95 returns the distribution-free 95% interval of the median of
// sorted, non-empty x: order statistics x(k) and x(n+1-k) with the largest
// k for which P(Binomial(n, 1/2) <= k-1) <= 0.025, which covers the
// median with probability 1 - 2·P(Binomial(n, 1/2) <= k-1) >= 0.95. With no
// such k the interval is unbounded.
func medianCI95(x []float64) (lo, hi float64) {
	n := len(x)
	bin := distuv.Binomial{N: float64(n), P: 0.5}
	// CDF(n/2) >= 1/2, so the search always ends within [0, n/2].
	k := sort.Search(n/2+1, func(j int) bool { return bin.CDF(float64(j)) > 0.025 })
	if k == 0 {
		return math.Inf(-1), math.Inf(1)
	}
	return x[k-1], x[n-k]
}
