package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

// bruteSignedRank computes W+ and the exact two-sided p-value of the
// differences d by the definition: rank |d| with average ranks after
// dropping zeros, then count all 2^n sign patterns by W+. It shares no
// code with Wilcoxon.
func bruteSignedRank(d []float64) (wPlus, p float64) {
	var nz []float64
	for _, v := range d {
		if v != 0 {
			nz = append(nz, v)
		}
	}
	n := len(nz)
	if n == 0 {
		return 0, 1
	}
	ranks := make([]float64, n)
	for i, v := range nz {
		less, equal := 0, 0
		for _, u := range nz {
			switch {
			case math.Abs(u) < math.Abs(v):
				less++
			case math.Abs(u) == math.Abs(v):
				equal++
			}
		}
		ranks[i] = float64(less) + float64(equal+1)/2
		if v > 0 {
			wPlus += ranks[i]
		}
	}
	var lower, upper float64
	for mask := 0; mask < 1<<n; mask++ {
		w := 0.0
		for i := range n {
			if mask&(1<<i) != 0 {
				w += ranks[i]
			}
		}
		if w <= wPlus {
			lower++
		}
		if w >= wPlus {
			upper++
		}
	}
	return wPlus, math.Min(1, 2*math.Min(lower, upper)/float64(int(1)<<n))
}

func TestWilcoxonExactMatchesEnumeration(t *testing.T) {
	// Small integer data makes zeros and ties of every size common.
	for seed := uint64(0); seed < 300; seed++ {
		rng := rand.New(rand.NewPCG(seed, 1))
		n := 1 + rng.IntN(14)
		a, b := make([]float64, n), make([]float64, n)
		for i := range n {
			a[i] = float64(rng.IntN(6))
			b[i] = float64(rng.IntN(6))
		}
		r, err := Wilcoxon(a, b)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		d := differences(a, b)
		wPlus, p := bruteSignedRank(d)
		if r.Statistic != wPlus || math.Abs(r.P-p) > 1e-12 {
			t.Errorf("seed %d, d = %v: W+ = %v, p = %v; enumeration gives W+ = %v, p = %v",
				seed, d, r.Statistic, r.P, wPlus, p)
		}
	}
}

// signedRanks returns n differences with ranks 1..n whose positive ranks
// sum to w.
func signedRanks(n, w int) []float64 {
	d := make([]float64, n)
	for r := n; r >= 1; r-- {
		d[r-1] = -float64(r)
		if r <= w {
			d[r-1] = float64(r)
			w -= r
		}
	}
	return d
}

func TestWilcoxonCriticalValues(t *testing.T) {
	// Two-sided 5% critical values of the smaller rank sum, no ties
	// (Wilcoxon, Katti and Wilcox 1963, Critical values and probability
	// levels for the Wilcoxon rank sum test and the Wilcoxon signed rank
	// test; reprinted in most textbooks): W+ <= crit is significant at
	// 5%, W+ = crit+1 is not.
	crit := map[int]int{6: 0, 7: 2, 8: 3, 9: 5, 10: 8, 11: 10, 12: 13, 13: 17,
		14: 21, 15: 25, 16: 29, 17: 34, 18: 40, 19: 46, 20: 52, 25: 89}
	for n, w := range crit {
		zero := make([]float64, n)
		at, err := Wilcoxon(zero, signedRanks(n, w))
		if err != nil {
			t.Fatal(err)
		}
		above, err := Wilcoxon(zero, signedRanks(n, w+1))
		if err != nil {
			t.Fatal(err)
		}
		if at.Statistic != float64(w) || at.P > 0.05 || above.P <= 0.05 {
			t.Errorf("n = %d: p(W+ = %d) = %v, p(W+ = %d) = %v; want the first <= 0.05 < the second",
				n, w, at.P, w+1, above.P)
		}
	}
}

func TestWilcoxonExactSmall(t *testing.T) {
	tests := []struct {
		name  string
		d     []float64
		wPlus float64
		p     float64
	}{
		// All ten differences positive: only one of 2^10 sign patterns
		// is as extreme on each side, p = 2/1024.
		{"n=10 all positive", []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 55, 2.0 / 1024},
		// Ranks 1..5 have the subset-sum counts 1 1 1 2 2 3 3 3 3 3 3 2 2
		// 1 1 1 for W+ = 0..15; W+ = 3 has 5 patterns at or below it.
		{"n=5 W+=3", []float64{1, 2, -3, -4, -5}, 3, 10.0 / 32},
		// W+ at the centre of a symmetric distribution.
		{"n=4 centre", []float64{1, -2, -3, 4}, 5, 1},
		// One difference: either sign is equally likely.
		{"n=1", []float64{-0.5}, 0, 1},
		// Ties: |d| = 1, 1, 2 get ranks 1.5, 1.5, 3 and W+ = 1.5 + 3.
		// Of the 8 sign patterns, three reach W+ >= 4.5 ({1.5, 3} twice
		// and {1.5, 1.5, 3}): p = 2·3/8.
		{"ties", []float64{1, -1, 2}, 4.5, 2 * 3.0 / 8},
		// Zeros are dropped: this is the n=1 case.
		{"zeros dropped", []float64{0, 0, 3}, 1, 1},
		{"all zero", []float64{0, 0, 0}, 0, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Wilcoxon(make([]float64, len(tt.d)), tt.d)
			if err != nil {
				t.Fatal(err)
			}
			near(t, "W+", r.Statistic, tt.wPlus, 0)
			near(t, "p", r.P, tt.p, 1e-15)
		})
	}
}

func TestWilcoxonApproxNearExact(t *testing.T) {
	// Just past the exact limit the normal approximation should take over
	// seamlessly: at n = 25 it is within 0.007 of the exact p-value for
	// every W+, and within 0.002 in the tail (exact p < 0.1) that decides
	// tests.
	const n = 25
	ranks2 := make([]int, n)
	for i := range ranks2 {
		ranks2[i] = 2 * (i + 1)
	}
	for w := 0; w <= n*(n+1)/2; w++ {
		exact := signedRankExactP(ranks2, 2*w)
		approx := signedRankNormalP(n, float64(w), 0)
		if math.Abs(exact-approx) > 0.007 {
			t.Errorf("W+ = %d: exact p %v, normal %v", w, exact, approx)
		}
		if exact < 0.1 && math.Abs(exact-approx) > 0.002 {
			t.Errorf("W+ = %d: exact p %v, normal %v: tail off by more than 0.002", w, exact, approx)
		}
	}
}

func TestWilcoxonLargeSample(t *testing.T) {
	// n = 30 > 25 takes the normal approximation. Differences ±1..±30,
	// odd ones negative: W+ = 2+4+...+30 = 240, no ties. By hand: mean
	// 30·31/4 = 232.5, variance 30·31·61/24 = 2363.75,
	// z = (7.5 - 0.5)/√2363.75, p = erfc(z/√2) = 0.8855175 (evaluated
	// with mpmath).
	d := make([]float64, 30)
	for i := range d {
		d[i] = float64(i + 1)
		if i%2 == 0 {
			d[i] = -d[i]
		}
	}
	r, err := Wilcoxon(make([]float64, 30), d)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "W+", r.Statistic, 240, 0)
	near(t, "p", r.P, 0.8855175455663536, 1e-9)

	// Tie correction: -1, +2 become -2, +2 (ranks 1 and 2 tie at 1.5)
	// and -3, +4, -5 become -5, +5, -5 (ranks 3 to 5 tie at 4), so
	// Σ(t³-t) = 6 + 24 = 30 and the variance is 2363.75 - 30/48 =
	// 2363.125. The positive ranks 2 and 4 become 1.5 and 4:
	// W+ = 240 - 2 - 4 + 1.5 + 4 = 239.5, z = (7 - 0.5)/√2363.125.
	d[0], d[1] = -2, 2
	d[2], d[3], d[4] = -5, 5, -5
	r, err = Wilcoxon(make([]float64, 30), d)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "tied W+", r.Statistic, 239.5, 0)
	near(t, "tied p", r.P, math.Erfc(6.5/math.Sqrt(2363.125)/math.Sqrt2), 1e-12)
}

func TestMedianCI95(t *testing.T) {
	// Order statistics x(k), x(n+1-k) with the largest k such that
	// P(Binomial(n, 1/2) <= k-1) <= 0.025: by hand from binomial tails,
	// n = 6: 1/64 -> k = 1; n = 10: 11/1024 -> k = 2 (56/1024 too big);
	// n = 20: P(<=5) = 0.0207 -> k = 6 (P(<=6) = 0.0577).
	tests := []struct {
		n, k int // k = 0: unbounded
	}{{1, 0}, {5, 0}, {6, 1}, {10, 2}, {20, 6}}
	for _, tt := range tests {
		x := make([]float64, tt.n)
		for i := range x {
			x[i] = float64(i + 1)
		}
		lo, hi := medianCI95(x)
		wantLo, wantHi := math.Inf(-1), math.Inf(1)
		if tt.k > 0 {
			wantLo, wantHi = float64(tt.k), float64(tt.n+1-tt.k)
		}
		if lo != wantLo || hi != wantHi {
			t.Errorf("n = %d: [%v, %v], want [%v, %v]", tt.n, lo, hi, wantLo, wantHi)
		}
	}
}
