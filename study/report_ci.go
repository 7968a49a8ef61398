package study

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/lagkit/lagkit/experiment"
	"github.com/lagkit/lagkit/stats"
)

// Interval is one per-technique figure with its 95% confidence
// interval, of a kind that respects the figure's scale: the Wilson score
// interval of a share (hit accuracy, SBC per hit), which stays within 0
// to 1, or the cluster bootstrap interval of a ratio (SBC reports per
// hit, mean rollback), resampling seats, which stays within the ratio's
// own range; SBC reports per hit with no report at all, the exact Poisson
// interval of the count over the hits received.
type Interval struct {
	// Figure names the figure as study_conditions.csv does
	// (sbc_per_hit_low).
	Figure   string  `json:"figure"`
	Estimate float64 `json:"estimate"`
	// Lo and Hi bound the interval; absent when the figure has nothing
	// under it (no shot, no hit received), where Note says so.
	Lo *float64 `json:"ci95_lo,omitempty"`
	Hi *float64 `json:"ci95_hi,omitempty"`
	// Method names the interval (IntervalWilson, IntervalBootstrap).
	Method string `json:"method"`
	// N counts what the figure is over, in NUnit: shots, hits received,
	// or, for a bootstrap, seats.
	N     int    `json:"n"`
	NUnit string `json:"n_unit"`
	Note  string `json:"note,omitempty"`
}

// Interval methods.
const (
	IntervalWilson    = "Wilson score"
	IntervalBootstrap = "cluster bootstrap by participant, percentile"
	IntervalPoisson   = "exact Poisson (Garwood)"
)

// Figures with intervals, in the order of study_conditions.csv.
var intervalFigures = []string{"hit_accuracy", "hit_accuracy_high_ping", "sbc_per_hit", "sbc_per_hit_low",
	"sbc_reports_per_hit", "rollback_mean_m"}

// MainOutcomeFigure is the study's main outcome: shots behind cover per
// hit received by the low-ping victims (round trip up to LowPingMS), the
// figure advanced lag compensation sets out to lower.
const MainOutcomeFigure = "sbc_per_hit_low"

// MainOutcome is the main outcome per technique with its interval, and
// its tests between techniques, paired by participant.
type MainOutcome struct {
	Figure string `json:"figure"`
	// Pairs is each pair of techniques compared.
	Pairs []OutcomePair `json:"pairs"`
}

// OutcomePair compares the main outcome between techniques A and B,
// participant by participant: each seat of the report's subjects with
// a hit received at a low ping under both gives its own SBC per hit in
// its low-ping rounds under A and under B. The Wilcoxon signed-rank test
// of B − A (stats.Wilcoxon) is the main test; Test and TTest are the
// Wilcoxon and paired t tests as results.json holds them.
type OutcomePair struct {
	A     string    `json:"a"`
	B     string    `json:"b"`
	Seats []int     `json:"seats"`
	XA    []float64 `json:"sbc_per_hit_a"`
	XB    []float64 `json:"sbc_per_hit_b"`
	// Test is the Wilcoxon signed-rank test, nil when the pairs are too
	// few (Note says why).
	Test *experiment.Test `json:"wilcoxon,omitempty"`
	Note string           `json:"note,omitempty"`
	// Power plans the primary test from these pairs (nil under two, or
	// without spread): see report_power.go.
	Power *Power `json:"power,omitempty"`
}

// intervals returns t's figures with their intervals, the bootstrap's
// resamples drawn under seed.
//
// The bootstrap resamples the study's subjects' seats: the people's in
// a study with people (bots), every seat's in one of bots alone.
func (t *techTally) intervals(tr *TechniqueReport, seed uint64, bots bool) []Interval {
	var seats []int
	for _, s := range slices.Sorted(maps.Keys(t.seats)) {
		if bots || !t.seats[s].bot {
			seats = append(seats, s)
		}
	}
	unit := "participants"
	if bots {
		unit = "seats"
	}
	// boot is the statistics policy's interval (report_policy.go): the
	// figure pooled over the participants it is about (those in), as a
	// ratio of their sums, with a percentile cluster bootstrap over
	// them, so that each participant's shots or hits stay together; none
	// under MinClusters of them.
	boot := func(fig string, num, den func(*seatTally) float64, in func(*seatTally) bool, none string) Interval {
		var xn, xd []float64
		var sn, sd float64
		for _, s := range seats {
			st := t.seats[s]
			if in != nil && !in(st) {
				continue
			}
			xn, xd = append(xn, num(st)), append(xd, den(st))
			sn, sd = sn+num(st), sd+den(st)
		}
		iv := Interval{Figure: fig, Method: fmt.Sprintf("%s (%d resamples, seed %d)", IntervalBootstrap, stats.BootstrapResamples, seed),
			N: len(xn), NUnit: unit}
		if sd > 0 {
			iv.Estimate = sn / sd
		}
		switch {
		case sd == 0:
			iv.Note = none
		case len(xn) < MinClusters:
			iv.Note = fmt.Sprintf("no interval: %d %s, the policy draws none over fewer than %d", len(xn), unit, MinClusters)
		case sn == 0 && fig != "rollback_mean_m":
			// Every participant's count is 0: every resample is 0 and
			// the bootstrap has no width, a certainty no count of zero
			// has. The exact Poisson bound of none over the pooled
			// denominator bounds it instead.
			lo, hi := stats.PoissonRateCI95(0, sd)
			if fig != "sbc_reports_per_hit" {
				hi = min(hi, 1) // a share
			}
			iv.Lo, iv.Hi = &lo, &hi
			iv.Method = IntervalPoisson + " (none among the participants: a bootstrap of zeros has no width)"
		default:
			if lo, hi := stats.BootstrapRatioCI95(xn, xd, stats.BootstrapResamples, seed); !math.IsNaN(lo) {
				iv.Lo, iv.Hi = &lo, &hi
			} else {
				iv.Note = none
			}
		}
		return iv
	}
	hits := func(s *seatTally) float64 { return float64(s.hits) }
	shots := func(s *seatTally) float64 { return float64(s.shots) }
	sbc := func(s *seatTally) float64 { return float64(s.sbc) }
	received := func(s *seatTally) float64 { return float64(s.hitsReceived) }
	reports := boot("sbc_reports_per_hit", func(s *seatTally) float64 { return float64(s.reports) }, received, nil, "no hit received")
	return []Interval{
		boot("hit_accuracy", hits, shots, nil, "no shots"),
		boot("hit_accuracy_high_ping", func(s *seatTally) float64 { return float64(s.high.hits) }, func(s *seatTally) float64 { return float64(s.high.shots) },
			func(s *seatTally) bool { return s.inHigh }, "no shots by a high-ping participant"),
		boot("sbc_per_hit", sbc, received, nil, "no hit received"),
		boot(MainOutcomeFigure, func(s *seatTally) float64 { return float64(s.low.sbc) }, func(s *seatTally) float64 { return float64(s.low.hitsReceived) },
			func(s *seatTally) bool { return s.inLow }, "no hit received by a low-ping participant"),
		reports,
		boot("rollback_mean_m", func(s *seatTally) float64 { return s.rollbackSum },
			func(s *seatTally) float64 { return float64(s.rewound) }, nil, "no rewound hit"),
	}
}

// Interval returns the interval of technique t's figure fig.
func (t *TechniqueReport) Interval(fig string) (Interval, bool) {
	for _, iv := range t.Intervals {
		if iv.Figure == fig {
			return iv, true
		}
	}
	return Interval{}, false
}

// mainOutcome fills rep.Main and adds its tests to rep.Tests: the main
// outcome compared between every two techniques, paired by participant.
func mainOutcome(rep *Report, techs map[string]*techTally, order []string) {
	bots := rep.Subjects == SubjectsBots
	by := "participant (a person's seat)"
	if bots {
		by = "bot seat (bots alone played: no people)"
	}
	rep.Main = &MainOutcome{Figure: MainOutcomeFigure}
	for i, a := range order {
		for _, b := range order[i+1:] {
			pr := OutcomePair{A: a, B: b}
			ta, tb := techs[a], techs[b]
			for _, seat := range slices.Sorted(maps.Keys(ta.seats)) {
				sa, sb := ta.seats[seat], tb.seats[seat]
				if sb != nil && (bots || !sa.bot && !sb.bot) && sa.low.hitsReceived > 0 && sb.low.hitsReceived > 0 {
					pr.Seats = append(pr.Seats, seat)
					pr.XA = append(pr.XA, float64(sa.low.sbc)/float64(sa.low.hitsReceived))
					pr.XB = append(pr.XB, float64(sb.low.sbc)/float64(sb.low.hitsReceived))
				}
			}
			note := fmt.Sprintf("primary outcome, paired by %s: SBC per hit received by each seat in its rounds at a round trip up to %v ms under each", by, rep.LowPingMS)
			// The policy's one primary test (report_policy.go): the
			// Wilcoxon signed-rank test alone, from MinPairs pairs.
			t, why := pairedWilcoxon(MainOutcomeFigure, a, b, pr.XA, pr.XB, note, PrimaryFamily)
			if t == nil {
				pr.Note = why
				rep.Untested = append(rep.Untested, Untested{Outcome: MainOutcomeFigure, A: a, B: b, N: len(pr.Seats), Family: PrimaryFamily, Reason: why})
			} else {
				rep.Tests = append(rep.Tests, *t)
				pr.Test = t // its Holm p filled in by Report.adjust
			}
			pr.Power = planPower(pr.XA, pr.XB)
			rep.Main.Pairs = append(rep.Main.Pairs, pr)
		}
	}
}

// ciCells returns the interval's bounds as table cells, empty when it has
// none.
func (iv Interval) ciCells() []string {
	if iv.Lo == nil {
		return []string{"", ""}
	}
	return []string{num(*iv.Lo), num(*iv.Hi)}
}

// ciText writes an interval for reading: "0.080 [0.022, 0.250]".
func (iv Interval) ciText(prec int) string {
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', prec, 64) }
	if iv.Lo == nil {
		return f(iv.Estimate) + " (" + iv.Note + ")"
	}
	return fmt.Sprintf("%s [%s, %s]", f(iv.Estimate), f(*iv.Lo), f(*iv.Hi))
}

// figureLabels name the figures with intervals for reading.
var figureLabels = map[string]string{
	"hit_accuracy":           "hit accuracy",
	"hit_accuracy_high_ping": "hit accuracy, high-ping shooters",
	"sbc_per_hit":            "SBC per hit",
	MainOutcomeFigure:        "SBC per hit, low-ping victims",
	"sbc_reports_per_hit":    "SBC reports per hit",
	"rollback_mean_m":        "mean rollback (m)",
}

// markdownMain writes the main outcome, its tests, and every
// per-technique figure with its interval.
func (r *Report) markdownMain(b *strings.Builder) {
	if len(r.Techniques) == 0 {
		return
	}
	fmt.Fprintf(b, "\n## Main outcome\n\nShots behind cover per hit received by the low-ping victims among the %s (round trip up to %v ms): "+
		"the share of the hits they received that were behind cover on their screen when the hit reached them, pooled over the participants, "+
		"with its 95%% cluster bootstrap interval over them (none under %d participants).\n\n",
		r.Subjects, r.LowPingMS, MinClusters)
	b.WriteString("| technique | hits received | SBC | SBC per hit [95% CI] |\n|---|---|---|---|\n")
	for _, t := range r.Techniques {
		iv, _ := t.Interval(MainOutcomeFigure)
		fmt.Fprintf(b, "| %s | %d | %d | %s |\n", t.Name, t.Low.HitsReceived, t.Low.SBC, iv.ciText(3))
	}
	if r.Main != nil && len(r.Main.Pairs) > 0 {
		fmt.Fprintf(b, "\nCompared between techniques %s: each seat with a hit received at a low ping under both techniques "+
			"gives its own SBC per hit in its low-ping rounds under each; the Wilcoxon signed-rank test of B − A (exact p up to 25 nonzero differences), "+
			"its effect size the matched-pairs rank-biserial r = (W+ − W−)/(W+ + W−), and the median difference with its distribution-free 95%% interval "+
			"(unbounded under six pairs).\n\n", pairedBy(r.Subjects))
		b.WriteString("| A | B | pairs | median A | median B | W+ | p | p Holm (primary family) | rank-biserial r | median B − A [95% CI] |\n|---|---|---|---|---|---|---|---|---|---|\n")
		for _, p := range r.Main.Pairs {
			if p.Test == nil {
				fmt.Fprintf(b, "| %s | %s | %d | | | | | | | %s |\n", p.A, p.B, len(p.Seats), p.Note)
				continue
			}
			t := p.Test
			fmt.Fprintf(b, "| %s | %s | %d | %.3f | %.3f | %s | %.3f | %.3f (%d) | %.3f | %.3f [%s, %s] |\n", p.A, p.B, t.N, medianOf(p.XA), medianOf(p.XB),
				num(t.Statistic), t.P, t.PHolm, t.HolmFamily, t.Effect, t.MeanDiff, bound(t.CI95[0]), bound(t.CI95[1]))
		}
	}
	b.WriteString("\n## Per technique, with 95% confidence intervals\n\n" +
		"Every figure is pooled over the participants it is about (a ratio of their sums) with a percentile cluster bootstrap over them " +
		"(the participants resampled in the order of their seats, from the seed given), so that each one's shots and hits stay together; " +
		fmt.Sprintf("none over fewer than %d participants. Every interval stays within its figure's scale.\n\n", MinClusters))
	b.WriteString("| technique | figure | estimate [95% CI] | n | interval |\n|---|---|---|---|---|\n")
	for _, t := range r.Techniques {
		for _, iv := range t.Intervals {
			fmt.Fprintf(b, "| %s | %s | %s | %d %s | %s |\n", t.Name, figureLabels[iv.Figure], iv.ciText(4), iv.N, iv.NUnit, iv.Method)
		}
	}
}

// pairedBy says who the main outcome's pairs are.
func pairedBy(subjects string) string {
	if subjects == SubjectsBots {
		return "bot seat by bot seat (no people played)"
	}
	return "participant by participant (people's seats alone)"
}

// bound writes an interval's bound, ∞ for none.
func bound(v float64) string {
	switch {
	case math.IsInf(v, 1) || v == math.MaxFloat64:
		return "∞"
	case math.IsInf(v, -1) || v == -math.MaxFloat64:
		return "−∞"
	}
	return strconv.FormatFloat(v, 'f', 3, 64)
}
