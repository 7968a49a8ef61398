package study

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/lagkit/lagkit/experiment"
	"github.com/lagkit/lagkit/stats"
)

// DesignRow is one sequence of the design as the report's participants
// played it: a counterbalancing group, its order of techniques, the
// sessions that played it and how many participants.
type DesignRow struct {
	Group        int    `json:"group"`
	Order        string `json:"order"`
	Sessions     []int  `json:"sessions"`
	Participants int    `json:"participants"`
}

// OrderEffects are the crossover's design checks on the primary
// outcome, over the participants with a value under every technique
// compared: the period effect (is the second period's outcome other than
// the first's, whatever the technique: Wilcoxon signed-rank paired by
// participant) and the order effect (does the difference between the
// first two techniques depend on the sequence played: a permutation
// test of the sequences' spread of mean differences). They are design
// checks, not outcomes, and are not Holm-corrected with them.
type OrderEffects struct {
	Period     *experiment.Test `json:"period,omitempty"`
	PeriodNote string           `json:"period_note,omitempty"`
	// Order is the permutation test: Statistic is the between-sequence
	// sum of squares of the participants' differences, P the share of
	// OrderPermutations relabellings with one as large.
	Order     *experiment.Test `json:"order,omitempty"`
	OrderNote string           `json:"order_note,omitempty"`
}

// OrderPermutations is how many relabellings the order effect's
// permutation test draws.
const OrderPermutations = 10000

// design returns the design table and the order effects.
func (r *Report) crossover(seed uint64) ([]DesignRow, OrderEffects) {
	byKey := map[string]*DesignRow{}
	groupOf := map[int]int{}
	for _, o := range r.SeatOrders {
		if !o.Person && r.Subjects != SubjectsBots {
			continue
		}
		groupOf[o.Seat] = o.Group
		k := fmt.Sprintf("%d|%s", o.Group, o.Order)
		d := byKey[k]
		if d == nil {
			d = &DesignRow{Group: o.Group, Order: o.Order}
			byKey[k] = d
		}
		d.Participants++
		sess, _, _ := r.sessionOf(o.Seat)
		if n := max(1, sess.Session); !slices.Contains(d.Sessions, n) {
			d.Sessions = append(d.Sessions, n)
		}
	}
	out := make([]DesignRow, 0, len(byKey))
	for _, k := range slices.Sorted(maps.Keys(byKey)) {
		out = append(out, *byKey[k])
	}
	slices.SortFunc(out, func(a, b DesignRow) int { return a.Group - b.Group })

	// Each participant's primary outcome by technique and by period.
	type acc struct{ sbc, rec int }
	byTech := map[int]map[string]*acc{}
	byPeriod := map[int]map[int]*acc{}
	low := map[int]bool{}
	periods := r.periods()
	for _, p := range r.Participants {
		if p.Bot && r.Subjects != SubjectsBots {
			continue
		}
		if _, ok := low[p.Seat]; !ok {
			low[p.Seat] = true
		}
		low[p.Seat] = low[p.Seat] && p.Ping == "low"
		if byTech[p.Seat] == nil {
			byTech[p.Seat], byPeriod[p.Seat] = map[string]*acc{}, map[int]*acc{}
		}
		a := byTech[p.Seat][p.Technique]
		if a == nil {
			a = &acc{}
			byTech[p.Seat][p.Technique] = a
		}
		a.sbc, a.rec = a.sbc+p.SBC, a.rec+p.HitsReceived
		per := periods[[2]int{p.Seat, p.Round}]
		b := byPeriod[p.Seat][per]
		if b == nil {
			b = &acc{}
			byPeriod[p.Seat][per] = b
		}
		b.sbc, b.rec = b.sbc+p.SBC, b.rec+p.HitsReceived
	}
	var eff OrderEffects
	var x1, x2 []float64
	for _, seat := range slices.Sorted(maps.Keys(byPeriod)) {
		a, b := byPeriod[seat][1], byPeriod[seat][2]
		if low[seat] && a != nil && b != nil && a.rec > 0 && b.rec > 0 {
			x1 = append(x1, float64(a.sbc)/float64(a.rec))
			x2 = append(x2, float64(b.sbc)/float64(b.rec))
		}
	}
	t, why := pairedWilcoxon(MainOutcomeFigure+" by period", "period 1", "period 2", x1, x2,
		"design check: the primary outcome in each participant's second period against its first, whatever the technique", "design")
	eff.Period, eff.PeriodNote = t, why
	if len(r.Techniques) < 2 {
		eff.OrderNote = "no order effect to test: one technique"
		return out, eff
	}
	ta, tb := r.Techniques[0].Name, r.Techniques[1].Name
	var d []float64
	var g []int
	for _, seat := range slices.Sorted(maps.Keys(byTech)) {
		a, b := byTech[seat][ta], byTech[seat][tb]
		if gr, ok := groupOf[seat]; ok && low[seat] && a != nil && b != nil && a.rec > 0 && b.rec > 0 {
			d = append(d, float64(b.sbc)/float64(b.rec)-float64(a.sbc)/float64(a.rec))
			g = append(g, gr)
		}
	}
	groups := map[int]bool{}
	for _, x := range g {
		groups[x] = true
	}
	switch {
	case len(groups) < 2:
		eff.OrderNote = fmt.Sprintf("not tested: the participants compared played %d sequence(s); the order effect needs two or more", len(groups))
	case len(d) < MinPairs:
		eff.OrderNote = fmt.Sprintf("not tested: %d participants with the outcome under %s and %s, and the statistics policy tests no fewer than %d", len(d), ta, tb, MinPairs)
	default:
		ss, p := permutationSS(d, g, OrderPermutations, seed)
		eff.Order = &experiment.Test{Name: fmt.Sprintf("%s: %s − %s by sequence", MainOutcomeFigure, tb, ta), Kind: "permutation",
			Metric: MainOutcomeFigure, A: ta, B: tb, N: len(d), Statistic: ss, P: p, Family: "design",
			Note: fmt.Sprintf("design check: the between-sequence sum of squares of the participants' differences (%s − %s), "+
				"against %d random relabellings of the participants' sequences (seed %d)", tb, ta, OrderPermutations, seed)}
	}
	return out, eff
}

// permutationSS returns the between-group sum of squares of x by group
// g and the share of n random relabellings (drawn under seed) whose sum
// is as large, counting the observed one (so p is never 0).
func permutationSS(x []float64, g []int, n int, seed uint64) (ss, p float64) {
	between := func(lab []int) float64 {
		sum, cnt := map[int]float64{}, map[int]int{}
		mean := stats.Mean(x)
		for i, v := range x {
			sum[lab[i]] += v
			cnt[lab[i]]++
		}
		var s float64
		for k, c := range cnt {
			m := sum[k] / float64(c)
			s += float64(c) * (m - mean) * (m - mean)
		}
		return s
	}
	ss = between(g)
	rng := rand.New(rand.NewPCG(seed, 0x6f72646572)) // "order"
	lab := slices.Clone(g)
	ge := 1
	for range n {
		rng.Shuffle(len(lab), func(i, j int) { lab[i], lab[j] = lab[j], lab[i] })
		if between(lab) >= ss-1e-12*math.Max(1, ss) {
			ge++
		}
	}
	return ss, float64(ge) / float64(n+1)
}

// markdownCrossover writes the design table and the order effects.
func (r *Report) markdownCrossover(b *strings.Builder) {
	if len(r.Design) == 0 {
		return
	}
	b.WriteString("\n## Design and order effects\n\nThe sequences the participants played, by counterbalancing group, and the sessions that played them.\n\n" +
		"| group | order of conditions by round (technique, or technique / latency) | sessions | participants |\n|---|---|---|---|\n")
	for _, d := range r.Design {
		ss := make([]string, len(d.Sessions))
		for i, s := range d.Sessions {
			ss[i] = strconv.Itoa(s)
		}
		fmt.Fprintf(b, "| %d | %s | %s | %d |\n", d.Group, d.Order, strings.Join(ss, ", "), d.Participants)
	}
	b.WriteString("\nDesign checks on the primary outcome (not outcomes; not Holm-corrected with them):\n\n")
	if t := r.Effects.Period; t != nil {
		fmt.Fprintf(b, "- Period effect: second period − first, Wilcoxon signed-rank paired by participant, %d pairs: W+ %s, p = %.3f, rank-biserial r = %.3f, median difference %.3f [%s, %s].\n",
			t.N, num(t.Statistic), t.P, t.Effect, t.MeanDiff, bound(t.CI95[0]), bound(t.CI95[1]))
	} else {
		fmt.Fprintf(b, "- Period effect: %s.\n", r.Effects.PeriodNote)
	}
	if t := r.Effects.Order; t != nil {
		fmt.Fprintf(b, "- Order effect: does %s − %s differ by sequence? Permutation test over %d participants: between-sequence sum of squares %.4g, p = %.3f.\n",
			t.B, t.A, t.N, t.Statistic, t.P)
	} else {
		fmt.Fprintf(b, "- Order effect: %s.\n", r.Effects.OrderNote)
	}
}
