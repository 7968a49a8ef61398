package study

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/lagkit/lagkit/experiment"
	"github.com/lagkit/lagkit/stats"
)

// answerResults adds the questionnaire's tables and tests and the
// rollback bands' table and plot to res.
func (r *Report) answerResults(res *experiment.Results) {
	if len(r.Answers) > 0 {
		t := experiment.Table{Name: "study_answers", Title: "Questionnaire per technique, pooled over its rounds (yes/no: share of yes; Likert 1 to 5, fairness -5 to 5: median and mean)" + r.syntheticTag(),
			Columns: []string{"technique", "question", "kind", "answers", "participants", "median", "mean", "yes_share"}}
		for _, a := range r.Answers {
			t.Rows = append(t.Rows, []string{a.Technique, a.Question, a.Kind, strconv.Itoa(a.N), strconv.Itoa(a.Participants),
				optNum(a.Median), optNum(a.Mean), optNum(a.YesShare)})
		}
		res.Tables = append(res.Tables, t)
	}
	if len(r.Comparisons) > 0 {
		t := experiment.Table{Name: "study_comparisons", Title: "Questions compared between techniques, paired by participant (Wilcoxon signed-rank, B − A)" + r.syntheticTag(),
			Columns: []string{"question", "a", "b", "pairs", "nonzero", "median_a", "median_b", "w_plus", "w_minus", "p", "p_holm", "holm_family"}}
		for _, c := range r.Comparisons {
			t.Rows = append(t.Rows, []string{c.Question, c.A, c.B, strconv.Itoa(c.N), strconv.Itoa(c.NonZero), num(c.MedianA), num(c.MedianB),
				num(c.W), num(c.WMinus), num(c.P), num(c.PHolm), strconv.Itoa(c.HolmFamily)})
			res.Tests = append(res.Tests, experiment.FiniteTest(experiment.Test{
				Name: experiment.ComparisonName(c.Question, c.A, c.B), Kind: "wilcoxon", Metric: c.Question, A: c.A, B: c.B,
				N: c.N, Statistic: c.W, P: c.P, Effect: c.Effect, EffectMeasure: experiment.EffectRankBiserial,
				MeanDiff: c.MedianDiff, Centre: experiment.CentreMedian, CI95: c.ci95(),
				PHolm: c.PHolm, HolmFamily: c.HolmFamily, Family: c.Family,
				Note: fmt.Sprintf("%s, paired by participant: %d pairs, %d with a difference; median %s under %s, %s under %s%s",
					c.Kind, c.N, c.NonZero, num(c.MedianA), c.A, num(c.MedianB), c.B, r.syntheticTag()),
			}))
		}
		res.Tables = append(res.Tables, t)
	}
	if len(r.Texts) > 0 {
		t := experiment.Table{Name: "study_texts", Title: "Free-text answers", Columns: []string{"technique", "round", "seat", "question", "text"}}
		for _, a := range r.Texts {
			t.Rows = append(t.Rows, []string{a.Technique, a.Round, strconv.Itoa(a.Seat), a.Question, a.Text})
		}
		res.Tables = append(res.Tables, t)
	}
	if len(r.Rollback) > 0 {
		t := experiment.Table{Name: "study_rollback", Title: fmt.Sprintf("Hits on people and their SBC reports by the hit's rollback distance, "+
			"in 5 cm bands from 0 to %v m (from_m: where a band starts; the last is %v m and beyond), "+
			"with 95%% confidence intervals (SBC per hit: Wilson score; reports per hit: exact Poisson)", BinsToM, BinsToM),
			Columns: []string{"technique", "from_m", "mid_m", "hits", "sbc", "sbc_per_hit", "reports", "reports_per_hit",
				"sbc_per_hit_ci95_lo", "sbc_per_hit_ci95_hi", "reports_per_hit_ci95_lo", "reports_per_hit_ci95_hi"}}
		for _, b := range r.Rollback {
			sbc, rep := "", ""
			ci := []string{"", "", "", ""}
			if b.Hits > 0 {
				sbc, rep = num(float64(b.SBC)/float64(b.Hits)), num(float64(b.Reports)/float64(b.Hits))
				slo, shi := stats.WilsonCI95(b.SBC, b.Hits)
				rlo, rhi := stats.PoissonRateCI95(b.Reports, float64(b.Hits))
				ci = []string{num(slo), num(shi), num(rlo), num(rhi)}
			}
			t.Rows = append(t.Rows, append([]string{b.Technique, num(b.FromM), num(b.Mid()), strconv.Itoa(b.Hits), strconv.Itoa(b.SBC), sbc,
				strconv.Itoa(b.Reports), rep}, ci...))
		}
		res.Tables = append(res.Tables, t)
		res.Plots = append(res.Plots, experiment.Plot{Name: "study_rollback", Title: "Reported shots behind cover per hit received, by the hit's rollback distance",
			Kind: "line", Table: "study_rollback", X: "mid_m", Y: "reports_per_hit", Series: "technique", YLo: "reports_per_hit_ci95_lo", YHi: "reports_per_hit_ci95_hi",
			XLabel: "rollback (m, middle of a 5 cm band)", YLabel: "SBC reports per hit",
			Caption: "Points: the SBC reports people made per hit they received, the hits in 5 cm bands of the distance the victim was moved back, " +
				"per technique and all techniques pooled (a band without hits is left out; the series are set a little apart along x so that their error bars do not hide one another). " +
				"Error bars: exact Poisson (Garwood) 95% confidence interval of the reports over the band's hits."})
	}
}

// ci95 returns the comparison's interval of the median difference, which
// stats.Wilcoxon leaves unbounded under six pairs.
func (c Comparison) ci95() [2]float64 {
	lo, hi := c.CILo, c.CIHi
	if lo == nil || hi == nil {
		return [2]float64{math.Inf(-1), math.Inf(1)}
	}
	return [2]float64{*lo, *hi}
}

func optNum(v *float64) string {
	if v == nil {
		return ""
	}
	return num(*v)
}

// markdownAnswers writes the questionnaire per technique, the paired
// comparisons, the free-text answers, the rollback bands and the
// published figures.
func (r *Report) markdownAnswers(b *strings.Builder) {
	if len(r.Answers) > 0 {
		b.WriteString("\n### Per technique\n\n| technique | question | kind | answers | participants | median | mean | yes |\n|---|---|---|---|---|---|---|---|\n")
		for _, a := range r.Answers {
			fmt.Fprintf(b, "| %s | %s | %s | %d | %d | %s | %s | %s |\n", a.Technique, a.Question, a.Kind, a.N, a.Participants,
				fixed(a.Median, 2), fixed(a.Mean, 2), share(a))
		}
	}
	if len(r.Comparisons) > 0 {
		b.WriteString("\n### Paired by participant\n\nWilcoxon signed-rank tests of B − A over the participants who answered under both " +
			"(their mean answer when they answered more than once); zero differences are dropped, tied ones share their rank, " +
			"and p is exact up to 25 differences. Secondary tests: p Holm is Holm-corrected over the whole secondary family (see the statistics policy).\n\n" +
			"| question | A | B | pairs | nonzero | median A | median B | W+ | W− | p | p Holm (family) |\n|---|---|---|---|---|---|---|---|---|---|---|\n")
		for _, c := range r.Comparisons {
			fmt.Fprintf(b, "| %s | %s | %s | %d | %d | %s | %s | %s | %s | %.3f | %s (%d) |\n", c.Question, c.A, c.B, c.N, c.NonZero,
				num(c.MedianA), num(c.MedianB), num(c.W), num(c.WMinus), c.P, pHolmText(c.PHolm), c.HolmFamily)
		}
	}
	if len(r.Texts) > 0 {
		b.WriteString("\n### Free text\n\n| technique | round | seat | question | answer |\n|---|---|---|---|---|\n")
		for _, t := range r.Texts {
			fmt.Fprintf(b, "| %s | %s | %d | %s | %s |\n", t.Technique, t.Round, t.Seat, t.Question, cellText(t.Text))
		}
	}
	b.WriteString("\n## Reported SBC and rollback\n\n")
	switch {
	case len(r.Rollback) == 0 && r.AnswersNote == NoAnswersFromBots:
		b.WriteString("No hits on people and no SBC reports: every seat was played by a bot.\n")
	case len(r.Rollback) == 0:
		b.WriteString("No hits on people and no SBC reports were recorded.\n")
	default:
		b.WriteString("| technique | rollback (m) | hits | SBC | reports | reports per hit |\n|---|---|---|---|---|---|\n")
		for _, bin := range r.Rollback {
			band := fmt.Sprintf("%s to %s", num(bin.FromM), num(bin.ToM))
			if bin.ToM == 0 {
				band = num(bin.FromM) + " and beyond"
			}
			per := ""
			if bin.Hits > 0 {
				per = fmt.Sprintf("%.3f", float64(bin.Reports)/float64(bin.Hits))
			}
			fmt.Fprintf(b, "| %s | %s | %d | %d | %d | %s |\n", bin.Technique, band, bin.Hits, bin.SBC, bin.Reports, per)
		}
	}
	refs, findings := published(r.Study, r.Simulated)
	if len(refs) == 0 && len(findings) == 0 {
		return
	}
	b.WriteString("\n## Published figures\n\n")
	res := r.Results()
	for _, ref := range refs {
		ours := "none"
		if ref.Test != "" {
			for _, t := range res.Tests {
				if t.Name == ref.Test && t.Kind == ref.TestKindOf() {
					ours = fmt.Sprintf("p = %.3f", t.P)
				}
			}
			fmt.Fprintf(b, "- %s: published p = %.3f, ours %s [%s]%s\n", ref.Detail, ref.Value, ours, ref.Source, whereMarkdown(ref))
			continue
		}
		for _, c := range res.Conditions {
			if v, ok := c.Metrics[ref.Metric]; ok && c.Name == ref.Condition {
				ours = strconv.FormatFloat(v, 'g', 4, 64)
			}
		}
		fmt.Fprintf(b, "- %s under %s: published %s, ours %s (%s) [%s]%s\n", ref.Metric, ref.Condition,
			strconv.FormatFloat(ref.Value, 'g', 4, 64), ours, ref.Detail, ref.Source, whereMarkdown(ref))
	}
	for _, f := range findings {
		fmt.Fprintf(b, "- %s\n", f)
	}
}

func fixed(v *float64, prec int) string {
	if v == nil {
		return ""
	}
	return strconv.FormatFloat(*v, 'f', prec, 64)
}

func share(a TechniqueAnswers) string {
	if a.YesShare == nil {
		return ""
	}
	return fmt.Sprintf("%d of %d (%.0f%%)", a.Yes, a.N, 100**a.YesShare)
}

// cellText makes free text fit a Markdown table cell and show as
// written: a pipe escaped, line breaks as <br>, and the characters that
// would open HTML or an escape written as entities.
func cellText(s string) string {
	return strings.NewReplacer("|", "\\|", "\\", "&#92;", "&", "&amp;", "<", "&lt;", ">", "&gt;",
		"\r\n", "<br>", "\n", "<br>", "\r", "<br>").Replace(s)
}

// whereMarkdown says where the source prints a published figure and how,
// and marks one not checked against the source's text.
func whereMarkdown(ref experiment.Reference) string {
	var out string
	if ref.Location != "" {
		out += ", " + ref.Location
	}
	if ref.Printed != "" {
		out += ": printed as \"" + ref.Printed + "\""
	}
	if ref.Check != experiment.Verified {
		out += " (not verified against the source's text)"
	}
	return out
}

// syntheticTag marks a title or note of the answers as synthetic.
func (r *Report) syntheticTag() string {
	if r.SyntheticAnswers {
		return " (SYNTHETIC answers drawn from the schedule's model, not people's)"
	}
	return ""
}
