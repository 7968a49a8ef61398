package stats

import (
	"encoding/binary"
	"math"
	"testing"
)

// FuzzTests feeds arbitrary float64 pairs (any bit pattern, so NaN, ±Inf,
// huge and subnormal values too) to every test. None may panic, and a
// Result returned without error must hold no NaN and a p-value in [0, 1].
func FuzzTests(f *testing.F) {
	seed := func(pairs ...float64) []byte {
		var buf []byte
		for _, v := range pairs {
			buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(v))
		}
		return buf
	}
	f.Add(seed(1, 2, 3, 4, 5, 7))
	f.Add(seed(0.7, 1.9, -1.6, 0.8, -0.2, 1.1, -0.1, -0.1, 3.4, 4.4))
	f.Add(seed(1, 1, 2, 2, 3, 3))
	f.Add(seed(1e-200, 1, 2e-200, 2, 4e-200, 3))
	f.Add(seed(math.NaN(), 1, math.Inf(1), 2))
	f.Fuzz(func(t *testing.T, data []byte) {
		var a, b []float64
		for len(data) >= 16 {
			a = append(a, math.Float64frombits(binary.LittleEndian.Uint64(data)))
			b = append(b, math.Float64frombits(binary.LittleEndian.Uint64(data[8:])))
			data = data[16:]
		}
		tests := map[string]func(a, b []float64) (Result, error){
			"paired t": PairedT,
			"welch":    Welch,
			"wilcoxon": Wilcoxon,
			"pearson":  Pearson,
		}
		for name, test := range tests {
			r, err := test(a, b)
			if err != nil {
				continue
			}
			if math.IsNaN(r.Statistic) || math.IsNaN(r.Effect) || math.IsNaN(r.MeanDiff) ||
				math.IsNaN(r.CI95[0]) || math.IsNaN(r.CI95[1]) || !(r.P >= 0 && r.P <= 1) ||
				r.CI95[0] > r.CI95[1] {
				t.Errorf("%s(%v, %v) = %+v", name, a, b, r)
			}
		}
		CohenD(a, b)
		MeanCI95(a)
	})
}
