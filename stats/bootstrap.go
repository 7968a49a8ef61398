package stats

import (
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// BootstrapResamples is how many resamples BootstrapRatioCI95 draws when
// asked for none: enough that the 2.5th and 97.5th percentiles move by
// well under a tenth of the interval's width between seeds.
const BootstrapResamples = 2000

// BootstrapRatioCI95 returns the percentile 95% confidence interval of
// the ratio of sums Σnum / Σden by a cluster bootstrap (Efron and
// Tibshirani 1993, An Introduction to the Bootstrap, 13.3; Field and
// Welsh 2007 on resampling clusters): num[i] and den[i] are one
// cluster's (a participant's) numerator and denominator, resampled
// together with replacement, so that a participant's shots stay
// together and the interval counts participants, not shots. It draws
// resamples (BootstrapResamples when 0) from a generator seeded with
// seed, so the same seed gives the same interval; a resample whose Σden
// is 0 is drawn again. Its bounds are ratios of resampled sums, so they
// stay within the ratio's own range. With no cluster, or no den above
// 0, both bounds are NaN.
func BootstrapRatioCI95(num, den []float64, resamples int, seed uint64) (lo, hi float64) {
	n := len(num)
	if n == 0 || len(den) != n {
		return math.NaN(), math.NaN()
	}
	any := false
	for _, d := range den {
		any = any || d > 0
	}
	if !any {
		return math.NaN(), math.NaN()
	}
	if resamples <= 0 {
		resamples = BootstrapResamples
	}
	rng := rand.New(rand.NewPCG(seed, 0x6c61676b6974)) // "lagkit"
	ratios := make([]float64, 0, resamples)
	for len(ratios) < resamples {
		var sn, sd float64
		for range n {
			i := rng.IntN(n)
			sn += num[i]
			sd += den[i]
		}
		if sd > 0 {
			ratios = append(ratios, sn/sd)
		}
	}
	slices.Sort(ratios)
	return quantile(ratios, 0.025), quantile(ratios, 0.975)
}

// quantile returns the p quantile of sorted s, interpolating between
// order statistics (Hyndman and Fan's type 7, R's default).
func quantile(s []float64, p float64) float64 {
	h := p * float64(len(s)-1)
	i := int(math.Floor(h))
	if i+1 >= len(s) {
		return s[len(s)-1]
	}
	return s[i] + (h-float64(i))*(s[i+1]-s[i])
}

// PoissonRateCI95 returns the exact (Garwood 1936) 95% confidence
// interval of a rate: count events over exposure units (SBC reports per
// hit received), from the chi-squared quantiles of the Poisson count. It
// never goes below 0, and is 0 to its upper bound at a count of 0. For
// exposure 0 or a negative count both bounds are NaN.
func PoissonRateCI95(count int, exposure float64) (lo, hi float64) {
	if count < 0 || !(exposure > 0) {
		return math.NaN(), math.NaN()
	}
	k := float64(count)
	if count > 0 {
		lo = distuv.ChiSquared{K: 2 * k}.Quantile(0.025) / 2
	}
	hi = distuv.ChiSquared{K: 2*k + 2}.Quantile(0.975) / 2
	return lo / exposure, hi / exposure
}
