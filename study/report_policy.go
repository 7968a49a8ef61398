package study

import (
	"fmt"
	"math"
	"strings"

	"github.com/lagkit/lagkit/experiment"
	"github.com/lagkit/lagkit/stats"
)

// The study report's statistics policy, one for every output (study.md,
// the CSV tables, results.json and report.html), written into the
// report (markdownPolicy):
//
//   - The participant is the unit. Every test compares participants'
//     own figures (their SBC per hit, their accuracy, their mean answer)
//     paired across techniques; every interval of a pooled figure is a
//     cluster bootstrap over participants, so that one player's many
//     shots never count as independent observations.
//   - One primary outcome and test, declared before any data: shots
//     behind cover per hit received by the low-ping victims
//     (MainOutcomeFigure), Wilcoxon signed-rank paired by participant,
//     B − A, two-sided, its effect size the matched-pairs rank-biserial
//     r and the median difference's distribution-free 95% interval.
//     With more than two techniques its pairs form the primary family,
//     Holm-corrected among themselves.
//   - Everything else is secondary: high-ping accuracy and every
//     questionnaire comparison, Wilcoxon signed-rank paired by
//     participant, all Holm-corrected together as one family.
//   - No test, effect size or interval under a minimum n (MinPairs
//     pairs, MinClusters participants): the report says so in words.
//   - Attention and manipulation checks are their own kind, never
//     outcomes.

// MinPairs is the fewest participant pairs a paired test is run on: the
// smallest n at which the exact two-sided Wilcoxon signed-rank test can
// reach p < .05 (at n = 6 its least p is 2/64 = 0.031; at n = 5, 0.0625),
// and where the median difference first has a distribution-free 95%
// interval. Under it no test, effect size or interval is given.
const MinPairs = 6

// MinClusters is the fewest participants a cluster bootstrap interval
// is drawn over: with fewer, the resamples repeat a handful of people
// and the percentile interval is far too narrow (over one participant
// it has no width at all).
const MinClusters = 6

// Families of the policy's Holm corrections (experiment.Test.Family).
const (
	// PrimaryFamily is the primary test's family.
	PrimaryFamily = "primary"
	// SecondaryFamily is every other test's.
	SecondaryFamily = "secondary"
)

// Untested is a comparison the policy did not run, and why.
type Untested struct {
	Outcome string `json:"outcome"`
	A       string `json:"a"`
	B       string `json:"b"`
	N       int    `json:"n"`
	Family  string `json:"family"`
	Reason  string `json:"reason"`
}

// tooFew says why n pairs are not tested.
func tooFew(n int) string {
	return fmt.Sprintf("not tested: %d participant pairs, and the statistics policy tests no fewer than %d", n, MinPairs)
}

// pairedWilcoxon runs the policy's paired test of metric between a and
// b over the participants' values xa and xb (B − A), in family; nil and
// the reason when there are fewer than MinPairs pairs or no test.
func pairedWilcoxon(metric, a, b string, xa, xb []float64, note, family string) (*experiment.Test, string) {
	if len(xa) < MinPairs {
		return nil, tooFew(len(xa))
	}
	w, err := stats.Wilcoxon(xa, xb)
	if err != nil {
		return nil, "not tested: " + err.Error()
	}
	t := experiment.FiniteTest(experiment.Test{
		Name: experiment.ComparisonName(metric, a, b), Kind: "wilcoxon", Metric: metric, A: a, B: b,
		N: w.N, Statistic: w.Statistic, P: w.P, Effect: w.Effect, EffectMeasure: experiment.EffectRankBiserial,
		MeanDiff: w.MeanDiff, Centre: experiment.CentreMedian, CI95: w.CI95, Note: note, Family: family,
	})
	return &t, ""
}

// adjust applies the policy's multiplicity correction once, for every
// output: Holm within the primary family and within the secondary
// family (the other tests and the questionnaire's comparisons together).
func (r *Report) adjust() {
	type ref struct {
		p   float64
		set func(holm float64, n int)
	}
	fam := map[string][]ref{}
	for i := range r.Tests {
		t := &r.Tests[i]
		if t.Family == "" {
			t.Family = SecondaryFamily
		}
		fam[t.Family] = append(fam[t.Family], ref{t.P, func(h float64, n int) { t.PHolm, t.HolmFamily = h, n }})
	}
	for i := range r.Comparisons {
		c := &r.Comparisons[i]
		c.Family = SecondaryFamily
		fam[SecondaryFamily] = append(fam[SecondaryFamily], ref{c.P, func(h float64, n int) { c.PHolm, c.HolmFamily = h, n }})
	}
	for _, refs := range fam {
		ps := make([]float64, len(refs))
		for i, x := range refs {
			ps[i] = x.p
		}
		adj, err := stats.Holm(ps)
		if err != nil {
			adj = ps
		}
		for i, x := range refs {
			x.set(adj[i], len(refs))
		}
	}
	if r.Main != nil {
		for i := range r.Main.Pairs {
			pr := &r.Main.Pairs[i]
			for j := range r.Tests {
				if pr.Test != nil && r.Tests[j].Family == PrimaryFamily && r.Tests[j].Name == pr.Test.Name {
					t := r.Tests[j]
					pr.Test = &t
				}
			}
		}
	}
}

// markdownPolicy writes the statistics policy and the comparisons it
// left untested.
func (r *Report) markdownPolicy(b *strings.Builder) {
	b.WriteString("\n## Statistics policy\n\n")
	who := "participant"
	if r.Subjects == SubjectsBots {
		who = "bot seat (no seat of this study was meant for a person)"
	}
	fmt.Fprintf(b, "- The unit is the %s: every test pairs each one's own figure under two techniques, and every interval of a pooled figure "+
		"is a cluster bootstrap over them (%d resamples), so no player's shots or hits count as independent observations.\n", who, stats.BootstrapResamples)
	if r.Simulated && r.Subjects == SubjectsPeople {
		b.WriteString("- This is a pilot: bots played every seat, and the seats the schedule gives to people are analysed as the live study's participants will be; " +
			"the bot seats are not participants.\n")
	}
	fmt.Fprintf(b, "- Primary outcome, declared before the data: shots behind cover per hit received by the low-ping victims (round trip up to %v ms); "+
		"primary test: Wilcoxon signed-rank paired by participant, B − A, two-sided, with the matched-pairs rank-biserial r and the median difference's "+
		"distribution-free 95%% interval. With more than two techniques its pairs are Holm-corrected among themselves.\n", r.LowPingMS)
	b.WriteString("- Secondary: high-ping hit accuracy and every questionnaire comparison, each a Wilcoxon signed-rank test paired by participant; " +
		"all are Holm-corrected together as one family, and the Holm p is the one every table (study.md, study_comparisons.csv, results.json, report.html) gives.\n")
	fmt.Fprintf(b, "- Minimum n: no test, effect size or interval from fewer than %d participant pairs (the exact Wilcoxon test cannot reach p < .05 under 6), "+
		"and no bootstrap interval over fewer than %d participants.\n", MinPairs, MinClusters)
	b.WriteString("- Attention and manipulation checks are reported as checks (who passed), never tested as outcomes.\n")
	if len(r.Untested) > 0 {
		b.WriteString("\nNot tested:\n\n")
		for _, u := range r.Untested {
			fmt.Fprintf(b, "- %s, %s against %s (%s): %s.\n", u.Outcome, u.B, u.A, u.Family, u.Reason)
		}
	}
}

// pHolmText writes a Holm-adjusted p for a table.
func pHolmText(p float64) string {
	if math.IsNaN(p) {
		return ""
	}
	return fmt.Sprintf("%.3f", p)
}
