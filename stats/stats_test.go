package stats

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestInputErrors(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name string
		run  func() error
		want string
	}{
		{"paired t lengths", func() error { _, err := PairedT([]float64{1, 2}, []float64{1, 2, 3}); return err },
			"stats: paired t: a has 2 values but b has 3"},
		{"paired t too few", func() error { _, err := PairedT([]float64{1}, []float64{2}); return err },
			"stats: paired t: a has 1 values, need at least 2"},
		{"paired t NaN", func() error { _, err := PairedT([]float64{1, 2}, []float64{1, nan}); return err },
			"stats: paired t: b[1] is NaN"},
		{"paired t Inf", func() error { _, err := PairedT([]float64{math.Inf(-1), 2}, []float64{1, 2}); return err },
			"stats: paired t: a[0] = -Inf is out of range"},
		{"paired t huge", func() error { _, err := PairedT([]float64{1, 2}, []float64{1e200, 2}); return err },
			"stats: paired t: b[0] = 1e+200 is out of range"},
		{"wilcoxon empty", func() error { _, err := Wilcoxon(nil, nil); return err },
			"stats: wilcoxon: a has 0 values, need at least 1"},
		{"wilcoxon lengths", func() error { _, err := Wilcoxon([]float64{1}, nil); return err },
			"stats: wilcoxon: a has 1 values but b has 0"},
		{"wilcoxon NaN", func() error { _, err := Wilcoxon([]float64{nan}, []float64{1}); return err },
			"stats: wilcoxon: a[0] is NaN"},
		{"welch too few", func() error { _, err := Welch([]float64{1, 2}, []float64{3}); return err },
			"stats: welch: b has 1 values, need at least 2"},
		{"welch NaN", func() error { _, err := Welch([]float64{1, nan}, []float64{3, 4}); return err },
			"stats: welch: a[1] is NaN"},
		{"pearson too few", func() error { _, err := Pearson([]float64{1, 2}, []float64{1, 2}); return err },
			"stats: pearson: x has 2 values, need at least 3"},
		{"pearson constant", func() error { _, err := Pearson([]float64{1, 2, 3}, []float64{5, 5, 5}); return err },
			"stats: pearson: y is constant"},
		{"pearson underflow", func() error {
			_, err := Pearson([]float64{1e-200, 2e-200, 4e-200}, []float64{1, 2, 3})
			return err
		}, "stats: pearson: spread of x or y too small to measure"},
	}
	for _, tt := range tests {
		err := tt.run()
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want prefix %q", tt.name, err, tt.want)
		}
	}
}

func TestDegenerateT(t *testing.T) {
	inf := math.Inf(1)
	tests := []struct {
		name    string
		paired  bool
		a, b    []float64
		stat, p float64
		effect  float64
		diff    float64
	}{
		{"paired no change", true, []float64{1, 2, 3}, []float64{1, 2, 3}, 0, 1, 0, 0},
		{"paired constant gain", true, []float64{1, 2, 3}, []float64{1.5, 2.5, 3.5}, inf, 0, inf, 0.5},
		{"paired constant loss", true, []float64{1, 2, 3}, []float64{0, 1, 2}, -inf, 0, -inf, -1},
		{"welch same constant", false, []float64{4, 4}, []float64{4, 4, 4}, 0, 1, 0, 0},
		{"welch different constants", false, []float64{4, 4}, []float64{3, 3, 3}, -inf, 0, -inf, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r Result
			var err error
			if tt.paired {
				r, err = PairedT(tt.a, tt.b)
			} else {
				r, err = Welch(tt.a, tt.b)
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.Statistic != tt.stat || r.P != tt.p || r.Effect != tt.effect ||
				r.MeanDiff != tt.diff || r.CI95 != [2]float64{tt.diff, tt.diff} {
				t.Errorf("got %+v, want t %v, p %v, effect %v, mean diff and CI %v",
					r, tt.stat, tt.p, tt.effect, tt.diff)
			}
		})
	}
}

func TestPearsonEdges(t *testing.T) {
	// A perfect line: r = ±1 exactly, so t is infinite and the
	// interval collapses.
	r, err := Pearson([]float64{1, 2, 3, 4}, []float64{7, 5, 3, 1})
	if err != nil {
		t.Fatal(err)
	}
	if r.Statistic != -1 || r.P != 0 || r.CI95 != [2]float64{-1, -1} {
		t.Errorf("perfect line: %+v, want r = -1, p = 0, CI [-1, -1]", r)
	}
	// Three points: Fisher's z has infinite standard error, so the
	// interval is all of [-1, 1] however strong r is.
	r, err = Pearson([]float64{1, 2, 3}, []float64{1, 2, 2.5})
	if err != nil {
		t.Fatal(err)
	}
	if r.CI95 != [2]float64{-1, 1} || r.P <= 0 || r.P >= 1 {
		t.Errorf("n = 3: %+v, want CI [-1, 1] and 0 < p < 1", r)
	}
}

func TestWilcoxonSmallCI(t *testing.T) {
	// Five pairs cannot give a 95% interval for the median from order
	// statistics: even [min, max] covers with probability 1 - 2/32.
	r, err := Wilcoxon([]float64{0, 0, 0, 0, 0}, []float64{3, 1, 2, 5, 4})
	if err != nil {
		t.Fatal(err)
	}
	if r.MeanDiff != 3 || !math.IsInf(r.CI95[0], -1) || !math.IsInf(r.CI95[1], 1) {
		t.Errorf("got median %v, CI %v; want 3, (-Inf, +Inf)", r.MeanDiff, r.CI95)
	}
}

func TestHelpers(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name      string
		got, want float64
	}{
		{"Mean", Mean([]float64{1, 2, 6}), 3},
		{"Mean empty", Mean(nil), nan},
		// By hand: deviations -1, 0, 1 over n-1 = 2.
		{"SD", SD([]float64{1, 2, 3}), 1},
		{"SD one value", SD([]float64{5}), nan},
		{"SD constant", SD([]float64{0.1, 0.1, 0.1}), 0},
		{"CohenD equal constants", CohenD([]float64{2, 2}, []float64{2}), 0},
		{"CohenD different constants", CohenD([]float64{2, 2}, []float64{3}), math.Inf(1)},
		{"CohenD too few", CohenD([]float64{2}, []float64{3}), nan},
		{"CohenD empty", CohenD(nil, []float64{1, 2, 3}), nan},
	}
	for _, tt := range tests {
		if !(tt.got == tt.want || math.IsNaN(tt.got) && math.IsNaN(tt.want)) {
			t.Errorf("%s = %v, want %v", tt.name, tt.got, tt.want)
		}
	}

	m, lo, hi := MeanCI95([]float64{4})
	if m != 4 || lo != 4 || hi != 4 {
		t.Errorf("MeanCI95 of one value = %v [%v, %v], want 4 [4, 4]", m, lo, hi)
	}
	m, lo, hi = MeanCI95(nil)
	if !math.IsNaN(m) || !math.IsNaN(lo) || !math.IsNaN(hi) {
		t.Errorf("MeanCI95 of nothing = %v [%v, %v], want NaN", m, lo, hi)
	}
}

// randomPairs returns n pairs where b tends to exceed a by shift.
func randomPairs(rng *rand.Rand, n int, shift float64) (a, b []float64) {
	a, b = make([]float64, n), make([]float64, n)
	for i := range n {
		a[i] = 50 + 10*rng.NormFloat64()
		b[i] = a[i] + shift + 5*rng.NormFloat64()
	}
	return a, b
}

func TestSwapSymmetry(t *testing.T) {
	// Swapping a and b negates every signed quantity and keeps p: the
	// tests are two-sided and all differences are b - a.
	tests := map[string]func(a, b []float64) (Result, error){
		"paired t": PairedT,
		"welch":    Welch,
		"wilcoxon": Wilcoxon,
	}
	for name, test := range tests {
		for seed := uint64(0); seed < 50; seed++ {
			rng := rand.New(rand.NewPCG(seed, 2))
			a, b := randomPairs(rng, 3+rng.IntN(40), 2)
			ab, err := test(a, b)
			if err != nil {
				t.Fatalf("%s seed %d: %v", name, seed, err)
			}
			ba, err := test(b, a)
			if err != nil {
				t.Fatalf("%s seed %d: %v", name, seed, err)
			}
			stat := -ba.Statistic
			if name == "wilcoxon" {
				// W+ of b - a is W- of a - b.
				n := float64(len(a))
				stat = n*(n+1)/2 - ba.Statistic
			}
			if math.Abs(ab.Statistic-stat) > 1e-9 || math.Abs(ab.P-ba.P) > 1e-12 ||
				math.Abs(ab.Effect+ba.Effect) > 1e-12 || math.Abs(ab.MeanDiff+ba.MeanDiff) > 1e-12 ||
				math.Abs(ab.CI95[0]+ba.CI95[1]) > 1e-9 || math.Abs(ab.CI95[1]+ba.CI95[0]) > 1e-9 {
				t.Errorf("%s seed %d: (a, b) gives %+v, (b, a) gives %+v", name, seed, ab, ba)
			}
		}
	}
}

func TestPearsonInvariance(t *testing.T) {
	// r does not change when x and y swap or under a positive affine map,
	// and changes sign under a negative one.
	for seed := uint64(0); seed < 50; seed++ {
		rng := rand.New(rand.NewPCG(seed, 3))
		x, y := randomPairs(rng, 4+rng.IntN(40), 0)
		base, err := Pearson(x, y)
		if err != nil {
			t.Fatal(err)
		}
		swapped, _ := Pearson(y, x)
		scaled := make([]float64, len(y))
		flipped := make([]float64, len(y))
		for i, v := range y {
			scaled[i] = 3*v + 100
			flipped[i] = -0.5*v + 7
		}
		s, _ := Pearson(x, scaled)
		f, _ := Pearson(x, flipped)
		if math.Abs(swapped.Statistic-base.Statistic) > 1e-12 || math.Abs(s.Statistic-base.Statistic) > 1e-12 ||
			math.Abs(f.Statistic+base.Statistic) > 1e-12 || math.Abs(f.P-base.P) > 1e-9 {
			t.Errorf("seed %d: r = %v; swapped %v, scaled %v, negated %v (p %v vs %v)",
				seed, base.Statistic, swapped.Statistic, s.Statistic, f.Statistic, base.P, f.P)
		}
	}
}

func TestPairedTDetectsShift(t *testing.T) {
	// Outcome check: with a true shift of 2 and noise SD 5, 200 pairs give
	// a clear result, and with no shift the interval covers zero.
	rng := rand.New(rand.NewPCG(7, 7))
	a, b := randomPairs(rng, 200, 2)
	r, err := PairedT(a, b)
	if err != nil {
		t.Fatal(err)
	}
	if r.P > 1e-3 || r.CI95[0] > 2 || r.CI95[1] < 2 {
		t.Errorf("shift 2: p = %v, CI %v; want p < 0.001 and CI covering 2", r.P, r.CI95)
	}
	w, err := Wilcoxon(a, b)
	if err != nil {
		t.Fatal(err)
	}
	if w.P > 1e-3 || w.Effect <= 0 {
		t.Errorf("shift 2: Wilcoxon p = %v, effect %v; want p < 0.001, positive effect", w.P, w.Effect)
	}
}
