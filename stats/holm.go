package stats

import (
	"fmt"
	"math"
	"slices"
)

// Holm returns the p-values p adjusted for multiple comparisons by Holm's
// step-down method (Holm 1979, Scandinavian Journal of Statistics
// 6(2):65-70), in p's order. With the m p-values sorted ascending, the
// i-th smallest (i from 1) becomes max over j <= i of min(1, (m-j+1)·p(j));
// rejecting where the adjusted value is below α controls the
// family-wise error rate at α. It matches R's p.adjust(p, "holm"). Every
// p must lie in [0, 1].
func Holm(p []float64) ([]float64, error) {
	for i, v := range p {
		if !(v >= 0 && v <= 1) {
			return nil, fmt.Errorf("stats: holm: p[%d] = %v is not in [0, 1]", i, v)
		}
	}
	m := len(p)
	order := make([]int, m)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case p[a] < p[b]:
			return -1
		case p[a] > p[b]:
			return 1
		}
		return 0
	})
	adj := make([]float64, m)
	running := 0.0
	for rank, i := range order {
		running = math.Max(running, math.Min(1, float64(m-rank)*p[i]))
		adj[i] = running
	}
	return adj, nil
}
