package stats

import (
	"math/rand/v2"
	"testing"
)

func benchmarkTest(b *testing.B, n int, test func(a, b []float64) (Result, error)) {
	x, y := randomPairs(rand.New(rand.NewPCG(1, 1)), n, 1)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := test(x, y); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPairedT1000(b *testing.B)     { benchmarkTest(b, 1000, PairedT) }
func BenchmarkWelch1000(b *testing.B)       { benchmarkTest(b, 1000, Welch) }
func BenchmarkPearson1000(b *testing.B)     { benchmarkTest(b, 1000, Pearson) }
func BenchmarkWilcoxonExact25(b *testing.B) { benchmarkTest(b, 25, Wilcoxon) }
func BenchmarkWilcoxon1000(b *testing.B)    { benchmarkTest(b, 1000, Wilcoxon) }
