package stats

import (
	"math"
	"testing"
)

// The data sets and expected values below come from published sources,
// named beside each. Where a source prints fewer digits than the
// tolerance, the extra digits come from evaluating the textbook formula in
// 30-digit arithmetic (mpmath 1.3), and they agree with every printed digit.

// sleep1 and sleep2 are R's `sleep` data set (Cushny and Peebles 1905, as
// given by Student 1908): extra hours of sleep of ten patients under two
// drugs.
var (
	sleep1 = []float64{0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0}
	sleep2 = []float64{1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4}
)

func near(t *testing.T, name string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol || math.IsNaN(got) {
		t.Errorf("%s = %.10g, want %.10g (±%g)", name, got, want, tol)
	}
}

func TestPairedTSleep(t *testing.T) {
	// R: with(sleep, t.test(extra[group == 1], extra[group == 2],
	// paired = TRUE)) prints t = -4.0621, df = 9, p-value = 0.002833,
	// 95 percent confidence interval -2.4598858 -0.7001142, mean
	// difference -1.58. R subtracts the second sample from the first, so
	// here a is group 2 and b is group 1.
	r, err := PairedT(sleep2, sleep1)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "t", r.Statistic, -4.062127683382036, 1e-9)
	near(t, "p", r.P, 0.002832890197384273, 1e-9)
	near(t, "mean diff", r.MeanDiff, -1.58, 1e-12)
	near(t, "ci lo", r.CI95[0], -2.459885763276983, 1e-9)
	near(t, "ci hi", r.CI95[1], -0.7001142367230172, 1e-9)
	// d_z = mean(d)/SD(d) = -1.58/1.229995.
	near(t, "d_z", r.Effect, -1.284557562591054, 1e-9)
	if r.N != 10 {
		t.Errorf("N = %d, want 10", r.N)
	}
}

func TestWelchSleep(t *testing.T) {
	// R: t.test(extra ~ group, data = sleep) prints t = -1.8608,
	// df = 17.776, p-value = 0.07939, 95 percent confidence interval
	// -3.3654832 0.2054832 for group 1 minus group 2.
	r, err := Welch(sleep2, sleep1)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "t", r.Statistic, -1.860813467486853, 1e-9)
	near(t, "p", r.P, 0.07939414018735814, 1e-9)
	near(t, "mean diff", r.MeanDiff, -1.58, 1e-12)
	near(t, "ci lo", r.CI95[0], -3.365483230711711, 1e-9)
	near(t, "ci hi", r.CI95[1], 0.2054832307117110, 1e-9)
	// Pooled SD √((9·1.789010² + 9·2.002249²)/18) = 1.898625;
	// d = -1.58/1.898625.
	near(t, "d", r.Effect, -0.8321810813495397, 1e-9)
	if r.N != 20 {
		t.Errorf("N = %d, want 20", r.N)
	}
}

func TestMeanCI95Sleep(t *testing.T) {
	// R: t.test(sleep$extra[1:10]) prints mean of x 0.75, 95 percent
	// confidence interval -0.5297804 2.0297804.
	m, lo, hi := MeanCI95(sleep1)
	near(t, "mean", m, 0.75, 1e-12)
	near(t, "lo", lo, -0.5297804135262326, 1e-9)
	near(t, "hi", hi, 2.029780413526233, 1e-9)
}

func TestWilcoxonSleep(t *testing.T) {
	// R: with(sleep, wilcox.test(extra[group == 1], extra[group == 2],
	// paired = TRUE)) prints V = 0, p-value = 0.009091 and warns that it
	// cannot compute an exact p-value with ties and zeros. One difference
	// is zero and two tie at 1.3, leaving n = 9 nonzero differences, all
	// of one sign. R's 0.009091 is the normal approximation; the exact
	// conditional p-value is 2 · P(W+ = 0) = 2/2^9, since only the
	// all-negative sign pattern reaches W+ = 0.
	r, err := Wilcoxon(sleep2, sleep1)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "W+", r.Statistic, 0, 0)
	near(t, "p", r.P, 2.0/512, 1e-15)
	near(t, "rank-biserial", r.Effect, -1, 0)
	// Sorted differences: -4.6 -2.4 -1.8 -1.4 -1.3 -1.3 -1.2 -1.0 -0.8 0.
	// For n = 10 the interval is [x(2), x(9)], with coverage
	// 1 - 2·P(Binomial(10, 1/2) <= 1) = 1 - 2·11/1024.
	near(t, "median", r.MeanDiff, -1.3, 1e-12)
	near(t, "ci lo", r.CI95[0], -2.4, 1e-12)
	near(t, "ci hi", r.CI95[1], -0.8, 1e-12)
	// The same data through the normal approximation, tie group {1.3,
	// 1.3} giving Σ(t³-t) = 6, reproduces R.
	near(t, "approx p", signedRankNormalP(9, 0, 6), 0.009090698015925062, 1e-12)
}

func TestWilcoxonDepression(t *testing.T) {
	// Hollander and Wolfe (1973), p. 29f, as in R's ?wilcox.test:
	// Hamilton depression scale factor of nine patients at the first (x)
	// and second (y) visit after starting a tranquilizer. wilcox.test(x, y, paired = TRUE,
	// alternative = "greater") prints V = 40, p-value = 0.01953 (10/512:
	// the ten subsets of 1..9 with sum <= 5 give W- <= 5). Two-sided:
	// 20/512.
	x := []float64{1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30}
	y := []float64{0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29}
	r, err := Wilcoxon(y, x)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "W+", r.Statistic, 40, 0)
	near(t, "p", r.P, 20.0/512, 1e-15)
	// Kerby's simple difference: (40 - 5)/45.
	near(t, "rank-biserial", r.Effect, 35.0/45, 1e-15)
	// Sorted x - y: -0.147 -0.08 0.01 0.43 0.49 0.59 0.62 0.952 1.022.
	near(t, "median", r.MeanDiff, 0.49, 1e-12)
}

func TestPearsonHollanderWolfe(t *testing.T) {
	// Hollander and Wolfe (1973), p. 187f, as in R's ?cor.test: Hunter L
	// lightness (x) against mean panel score (y) of nine lots of canned
	// tuna. cor.test(x, y) prints t = 1.8411, df = 7, p-value = 0.1082,
	// 95 percent confidence interval -0.1497426 0.8955795,
	// cor 0.5711816.
	x := []float64{44.4, 45.9, 41.9, 53.3, 44.7, 44.1, 50.7, 45.2, 60.1}
	y := []float64{2.6, 3.1, 2.5, 5.0, 3.6, 4.0, 5.2, 2.8, 3.8}
	r, err := Pearson(x, y)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "r", r.Statistic, 0.5711815575638287, 1e-12)
	near(t, "effect", r.Effect, 0.5711815575638287, 1e-12)
	near(t, "p", r.P, 0.1081730543494939, 1e-9)
	near(t, "ci lo", r.CI95[0], -0.1497426330367573, 1e-9)
	near(t, "ci hi", r.CI95[1], 0.8955794618387393, 1e-9)
}

func TestPearsonAnscombe(t *testing.T) {
	// Anscombe (1973), The American Statistician 27(1):17-21: data set I
	// has correlation 0.816 (as do the other three).
	x := []float64{10, 8, 13, 9, 11, 14, 6, 4, 12, 7, 5}
	y := []float64{8.04, 6.95, 7.58, 8.81, 8.33, 9.96, 7.24, 4.26, 10.84, 4.82, 5.68}
	r, err := Pearson(x, y)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "r", r.Statistic, 0.816, 0.0005)
	near(t, "r (30 digits)", r.Statistic, 0.8164205163448398, 1e-12)
	near(t, "p", r.P, 0.002169628873078797, 1e-9)
}

func TestCohenDKnown(t *testing.T) {
	tests := []struct {
		name string
		a, b []float64
		want float64
	}{
		// By hand: means 2 and 4, both SDs 1, pooled SD 1.
		{"unit spread", []float64{1, 2, 3}, []float64{3, 4, 5}, 2},
		// By hand: means 2 and 3, sums of squares 2 and 10, pooled SD
		// √(12/5).
		{"unequal sizes", []float64{1, 2, 3}, []float64{1, 2, 4, 5}, 1 / math.Sqrt(2.4)},
		// Sleep data, group 2 against group 1 (see TestWelchSleep).
		{"sleep", sleep1, sleep2, 0.8321810813495397},
	}
	for _, tt := range tests {
		near(t, tt.name, CohenD(tt.a, tt.b), tt.want, 1e-12)
	}
}

func TestHolmKnownValues(t *testing.T) {
	cases := []struct {
		name    string
		p, want []float64
	}{
		// R 4.3: p.adjust(c(0.01, 0.02, 0.03, 0.04, 0.05), "holm") prints
		// 0.05 0.08 0.09 0.09 0.09.
		{"R ascending", []float64{0.01, 0.02, 0.03, 0.04, 0.05}, []float64{0.05, 0.08, 0.09, 0.09, 0.09}},
		// Holm (1979) by hand, out of order: sorted 0.005, 0.01, 0.03,
		// 0.04 times 4, 3, 2, 1 is 0.02, 0.03, 0.06, 0.04, and the
		// running maximum lifts the last to 0.06.
		{"unsorted", []float64{0.01, 0.04, 0.03, 0.005}, []float64{0.03, 0.06, 0.06, 0.02}},
		// Capped at 1, ties keep their order.
		{"cap and ties", []float64{0.5, 0.5, 0.9}, []float64{1, 1, 1}},
		{"one", []float64{0.2}, []float64{0.2}},
		{"none", nil, []float64{}},
	}
	for _, tc := range cases {
		got, err := Holm(tc.p)
		if err != nil || len(got) != len(tc.want) {
			t.Fatalf("%s: Holm = %v, %v", tc.name, got, err)
		}
		for i := range got {
			near(t, tc.name, got[i], tc.want[i], 1e-12)
		}
	}
	for _, bad := range [][]float64{{0.1, math.NaN()}, {-0.1}, {1.5}} {
		if _, err := Holm(bad); err == nil {
			t.Errorf("Holm(%v) accepted", bad)
		}
	}
}
