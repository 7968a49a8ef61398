package study

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/lagkit/lagkit/experiment"
	"github.com/lagkit/lagkit/report"
	"github.com/lagkit/lagkit/stats"
)

// Files a study's report writes.
const (
	JSONFile     = "study.json"
	MarkdownFile = "study.md"
)

// Write writes the report into dir, creating it if needed: study.json
// (the Report), study.md, and through package report the results.json,
// CSV tables, SVG plots and report.html the experiments write, so the
// same tools read both; and codebook.md, every CSV column's unit and
// meaning.
func (r *Report) Write(dir string) error {
	res := r.Results()
	if err := report.Write(dir, res); err != nil {
		return err
	}
	var csvs []string
	for _, t := range res.Tables {
		csvs = append(csvs, t.Name+".csv")
	}
	if err := WriteCodebook(dir, "study "+r.Study+", its report's tables", ReportCodebook, csvs); err != nil {
		return err
	}
	js, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("study: encode %s: %w", JSONFile, err)
	}
	if err := os.WriteFile(filepath.Join(dir, JSONFile), append(js, '\n'), 0o644); err != nil {
		return fmt.Errorf("study: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, MarkdownFile), []byte(r.Markdown()), 0o644); err != nil {
		return fmt.Errorf("study: %w", err)
	}
	return nil
}

// figureColumns are the columns of every figures table, after its keys.
var figureColumns = append([]string{"shots", "hits", "hit_accuracy", "hits_received", "sbc", "sbc_per_hit",
	"appeals", "confirmed", "denials_upheld", "denials_refuted", "timeouts", "kills", "deaths",
	"sbc_reports", "sbc_reports_per_hit", "rewound_hits", "rollback_mean_m", "rollback_max_m"}, verdictColumns...)

// values returns f's figures in the order of figureColumns.
func (f *Figures) values() []float64 {
	return append([]float64{float64(f.Shots), float64(f.Hits), f.HitAccuracy, float64(f.HitsReceived), float64(f.SBC), f.SBCPerHit,
		float64(f.Appeals), float64(f.Outcomes["confirmed"]), float64(f.Outcomes["denied_upheld"]),
		float64(f.Outcomes["denied_refuted"]), float64(f.Outcomes["timeout"]), float64(f.Kills), float64(f.Deaths),
		float64(f.SBCReports), f.SBCReportsPerHit, float64(f.RewoundHits), f.RollbackMeanM, f.RollbackMaxM}, f.Verdicts.values()...)
}

func (f *Figures) cells() []string {
	vals := f.values()
	out := make([]string, len(vals))
	for i, v := range vals {
		out[i] = num(v)
	}
	return out
}

func (f *Figures) metrics(suffix string, m map[string]float64) {
	for i, v := range f.values() {
		m[figureColumns[i]+suffix] = v
	}
}

func num(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// groupSuffix names a round-trip group in metric names: "_rtt250ms"
// for the report's subjects (people, or in a study of bots alone, bots),
// "_rtt250ms_bots" for the bots of a study with people.
func (r *Report) groupSuffix(g GroupFigures) string {
	s := "_rtt" + num(g.RTTms) + "ms"
	if g.Bots && r.Subjects == SubjectsPeople {
		s += "_bots"
	}
	return s
}

// players names whose figures a group's row holds.
func players(g GroupFigures) string {
	if g.Bots {
		return "bots"
	}
	return "people"
}

// Results returns the report in the experiments' results form: a
// condition per technique (metrics overall, per round-trip group, as
// hit_accuracy_rtt250ms, for low-ping victims and high-ping shooters,
// and the questionnaire's medians and shares), the paired tests by
// participant, tables per round, per technique, of the answers and of
// the rollback bands, their plots, and the published figures of the
// study a preset recreates.
func (r *Report) Results() *experiment.Results {
	seed, _ := strconv.ParseUint(r.Seed, 10, 64)
	refs, _ := published(r.Study, r.Simulated)
	res := &experiment.Results{
		Experiment: "study-" + r.Study, Seed: seed, Title: "Study " + r.Study,
		Design:     r.design(),
		Conditions: []experiment.Condition{}, Tests: []experiment.Test{}, Provenance: r.provenance(),
		Published: refs,
		// --quick and the wall time as the study ran them, not as this
		// report was written.
		Quick: r.Run.ShortenedS > 0, WallS: r.Run.WallS,
	}
	rounds := experiment.Table{Name: "study_rounds", Title: "Per round, overall (rtt_ms empty) and by the players' round trip",
		Columns: slices.Concat([]string{"round", "name", "technique", "rtt_ms", "players", "seats"}, figureColumns)}
	techs := experiment.Table{Name: "study_techniques", Title: "Per technique, pooled over its rounds, overall (rtt_ms empty) and by the players' round trip",
		Columns: slices.Concat([]string{"technique", "rtt_ms", "players", "seats"}, figureColumns)}
	conds := experiment.Table{Name: "study_conditions", Title: fmt.Sprintf("Per technique: accuracy, SBC per hit on low-ping victims (round trip up to %v ms), SBC reports and rollback, "+
		"each pooled over the participants with its 95%% cluster bootstrap interval over them (none under %d participants)", r.LowPingMS, MinClusters),
		Columns: []string{"technique", "hit_accuracy", "hit_accuracy_high_ping", "sbc_per_hit", "sbc_per_hit_low", "sbc_reports_per_hit", "rollback_mean_m"}}
	for _, f := range intervalFigures {
		conds.Columns = append(conds.Columns, f+"_ci95_lo", f+"_ci95_hi")
	}
	for _, rr := range r.Rounds {
		rounds.Rows = append(rounds.Rows, slices.Concat([]string{strconv.Itoa(rr.Index + 1), rr.Name, rr.Technique, "", r.subjectsLabel(), strconv.Itoa(rr.Seats)}, rr.cells()))
		for _, g := range rr.Groups {
			rounds.Rows = append(rounds.Rows, slices.Concat([]string{strconv.Itoa(rr.Index + 1), rr.Name, rr.Technique, num(g.RTTms), players(g), strconv.Itoa(g.Seats)}, g.cells()))
		}
	}
	var base *TechniqueReport
	for i, t := range r.Techniques {
		m := map[string]float64{}
		t.metrics("", m)
		m["hits_received_low"], m["sbc_low"], m["sbc_per_hit_low"] = float64(t.Low.HitsReceived), float64(t.Low.SBC), t.Low.SBCPerHit
		m["shots_high_ping"], m["hit_accuracy_high_ping"] = float64(t.High.Shots), t.High.HitAccuracy
		if i == 0 {
			base = &r.Techniques[0]
		} else if base.Low.SBCPerHit > 0 {
			m["sbc_reduction_vs_"+base.Name] = 1 - t.Low.SBCPerHit/base.Low.SBCPerHit
		}
		if t.Duels.BothSaw > 0 {
			m["duels"], m["peeker_advantage_ms"], m["peeker_advantage_expected_ms"] = float64(t.Duels.Duels), t.Duels.AdvantageMeanMS, t.Duels.ExpectedMeanMS
			m["first_seer_hit_first_share"], m["first_seer_win_share"] = t.Duels.FirstHitShare, t.Duels.FirstWinShare
		}
		if at, ok := r.PeakRollback(t.Name); ok {
			m[PeakRollbackMetric] = at
		}
		for _, a := range r.Answers {
			if a.Technique != t.Name {
				continue
			}
			if a.YesShare != nil {
				m["answer_"+a.Question+"_yes_share"] = *a.YesShare
			}
			if a.Median != nil {
				m["answer_"+a.Question+"_median"] = *a.Median
			}
		}
		techs.Rows = append(techs.Rows, slices.Concat([]string{t.Name, "", r.subjectsLabel(), strconv.Itoa(t.Seats)}, t.cells()))
		for _, g := range t.Groups {
			g.metrics(r.groupSuffix(g), m)
			techs.Rows = append(techs.Rows, slices.Concat([]string{t.Name, num(g.RTTms), players(g), strconv.Itoa(g.Seats)}, g.cells()))
		}
		// The figures as the statistics policy pools them: over the
		// participants, beside their intervals.
		row := []string{t.Name}
		for _, f := range intervalFigures {
			iv, _ := t.Interval(f)
			row = append(row, num(iv.Estimate))
		}
		for _, f := range intervalFigures {
			iv, _ := t.Interval(f)
			row = append(row, iv.ciCells()...)
			if iv.Lo != nil {
				m[f+"_ci95_lo"], m[f+"_ci95_hi"] = *iv.Lo, *iv.Hi
			}
		}
		conds.Rows = append(conds.Rows, row)
		res.Conditions = append(res.Conditions, experiment.Condition{Name: t.Name,
			Params: map[string]any{"technique": t.Setting, "rounds": strings.Join(t.Rounds, ", ")}, Metrics: m, N: len(t.Rounds), NUnit: "rounds"})
	}
	res.Tables = []experiment.Table{conds, techs, rounds, r.participantTable()}
	res.Plots = []experiment.Plot{
		r.barPlot("study_sbc_low", fmt.Sprintf("Shots behind cover per hit on low-ping victims (round trip up to %v ms)", r.LowPingMS), MainOutcomeFigure, "SBC per hit",
			fmt.Sprintf("Bars: the share of the hits received by the low-ping victims among the %s (round trip up to %v ms) that were behind cover on the victim's screen, per technique, pooled over its rounds (the main outcome).", r.Subjects, r.LowPingMS)),
		r.barPlot("study_accuracy", "Hit accuracy", "hit_accuracy", "hit accuracy",
			"Bars: registered hits per shot, every seat's shots per technique pooled over its rounds."),
		r.barPlot("study_sbc_reports", "SBC reports per hit received", "sbc_reports_per_hit", "SBC reports per hit",
			"Bars: the players' \"I was shot behind cover\" reports per hit they received, per technique, every seat pooled."),
		r.barPlot("study_rollback_mean", "Mean rollback of rewound hits", "rollback_mean_m", "rollback (m)",
			"Bars: how far the victims of rewound hits were moved back (the distance between their rewound and current positions), averaged over the hits, per technique."),
	}
	res.Tests = append(res.Tests, r.Tests...)
	r.answerResults(res)
	r.designResults(res)
	r.frameResults(res)
	r.instrumentResults(res)
	r.flowResults(res)
	r.exclusionResults(res)
	// Holm's correction was applied once, by the statistics policy
	// (Report.adjust), and every output gives the same p_holm.
	return res
}

// barPlot draws a figure of study_conditions per technique with its
// confidence interval as error bars, its caption saying what the bars
// are (what) and what bounds the error bars over how much.
func (r *Report) barPlot(name, title, fig, ylabel, what string) experiment.Plot {
	var each []string
	for _, t := range r.Techniques {
		iv, _ := t.Interval(fig)
		each = append(each, fmt.Sprintf("%s: %s over %d %s", t.Name, iv.Method, iv.N, iv.NUnit))
	}
	caption := what
	if len(each) > 0 {
		caption += " Error bars: 95% confidence intervals, " + strings.Join(each, "; ") + "."
	}
	if _, ok := r.publishedFor(fig); ok {
		caption += " Crosses: the figure the study this preset recreates published."
	}
	return experiment.Plot{Name: name, Title: title, Kind: "bar", Table: "study_conditions", X: "technique", Y: fig,
		YLo: fig + "_ci95_lo", YHi: fig + "_ci95_hi", XLabel: "technique", YLabel: ylabel, Caption: caption}
}

// publishedFor returns a published reference to figure fig, if any.
func (r *Report) publishedFor(fig string) (experiment.Reference, bool) {
	refs, _ := published(r.Study, r.Simulated)
	for _, ref := range refs {
		if ref.Metric == fig && ref.Test == "" {
			return ref, true
		}
	}
	return experiment.Reference{}, false
}

func (r *Report) design() string {
	kind := "played by people"
	if r.Simulated {
		kind = "simulated: bots in every seat on the simulation driver"
	}
	d := fmt.Sprintf("Study %s, seed %s, %s; %d rounds. Shots, hits, kills and rollback count by the shooter's round trip, "+
		"hits received, SBC (registered hits behind cover on the victim's screen when the hit reached it), appeals and SBC reports "+
		"by the victim's; the people's seats and the bots' are counted apart. Low-ping victims are those at a round trip up to %v ms, "+
		"high-ping shooters those above, among the %s, and the paired tests pair %s. "+
		"Questions are compared between techniques participant by participant.", r.Study+r.idNote(), r.Seed, kind, len(r.Rounds), r.LowPingMS,
		r.Subjects, pairs(r.Subjects))
	if r.AnswersNote != "" {
		d += " " + strings.ToUpper(r.AnswersNote[:1]) + r.AnswersNote[1:] + "."
	}
	if r.SyntheticAnswers {
		d += " " + SyntheticNote
	}
	if x := r.Exclusions; x != nil {
		d += fmt.Sprintf(" The schedule's exclusion rules (%s) left out %d of the %d participants: every analysis is of the %d included (study_exclusions.csv says who and why).",
			x.Rules.Text(), len(x.Seats), x.Judged, x.Judged-len(x.Seats))
	}
	if r.FlowNote != "" {
		d += " " + strings.ToUpper(r.FlowNote[:1]) + r.FlowNote[1:] + "."
	}
	if _, findings := published(r.Study, r.Simulated); len(findings) > 0 {
		d += "\n\nPublished findings: " + strings.Join(findings, " ")
	}
	return d
}

// idNote gives the study's id for its name, "" when the report has
// none: " (study id 4)", or " (study id 4, 2 sessions)" for a pooled
// report.
func (r *Report) idNote() string {
	if r.StudyID == 0 {
		return ""
	}
	if len(r.Sessions) > 1 {
		return fmt.Sprintf(" (study id %d, %d sessions)", r.StudyID, len(r.Sessions))
	}
	return fmt.Sprintf(" (study id %d)", r.StudyID)
}

// pairs says what the paired tests of a report of subjects pair.
func pairs(subjects string) string {
	if subjects == SubjectsBots {
		return "bot seats (no people played)"
	}
	return "participants, the people's seats alone"
}

// subjectsLabel names the row of a round's or a technique's own
// figures: "people" (the people's seats pooled, the bots apart) in a
// study with people, "all" (every seat) in one of bots alone.
func (r *Report) subjectsLabel() string {
	if r.Subjects == SubjectsPeople {
		return "people"
	}
	return "all"
}

// Markdown writes the report as a Markdown document.
func (r *Report) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Study %s\n\n%s\n\nStarted %s.\n", r.Study, r.design(), r.Started.Format("2006-01-02 15:04:05 MST"))
	head := []string{"round trip (ms)", "seats", "shots", "hits", "accuracy", "hits received", "SBC", "SBC per hit", "appeals", "kills", "deaths",
		"SBC reports", "rewound hits", "rollback mean (m)"}
	row := func(label string, seats int, f *Figures) string {
		cells := []string{label, strconv.Itoa(seats), strconv.Itoa(f.Shots), strconv.Itoa(f.Hits), fmt.Sprintf("%.4f", f.HitAccuracy),
			strconv.Itoa(f.HitsReceived), strconv.Itoa(f.SBC), fmt.Sprintf("%.4f", f.SBCPerHit), appeals(f),
			strconv.Itoa(f.Kills), strconv.Itoa(f.Deaths), strconv.Itoa(f.SBCReports), strconv.Itoa(f.RewoundHits), fmt.Sprintf("%.3f", f.RollbackMeanM)}
		return "| " + strings.Join(cells, " | ") + " |\n"
	}
	table := func(seats int, f *Figures, groups []GroupFigures) {
		b.WriteString("| " + strings.Join(head, " | ") + " |\n|" + strings.Repeat("---|", len(head)) + "\n")
		b.WriteString(row(r.subjectsLabel(), seats, f))
		for _, g := range groups {
			b.WriteString(row(num(g.RTTms)+", "+players(g), g.Seats, &g.Figures))
		}
	}
	r.markdownFlow(&b)
	r.markdownExclusions(&b)
	r.markdownMain(&b)
	r.markdownPower(&b)
	r.markdownPolicy(&b)
	r.markdownCrossover(&b)
	r.markdownDropouts(&b)
	b.WriteString("\n## Rounds\n")
	for _, rr := range r.Rounds {
		fmt.Fprintf(&b, "\n### %d. %s\n\n%s, %s, %s; technique %s (`%s`).\n\n", rr.Index+1, rr.Name, rr.Map, rr.Mode, secs(rr.DurationS), rr.Technique, rr.Setting)
		if rr.Mode != "ffa" {
			fmt.Fprintf(&b, "Team 0: seats %s; team 1: seats %s.\n\n", seatList(rr.Teams[0]), seatList(rr.Teams[1]))
		}
		table(rr.Seats, &rr.Figures, rr.Groups)
	}
	b.WriteString("\n## Techniques\n")
	for _, t := range r.Techniques {
		fmt.Fprintf(&b, "\n### %s\n\n`%s`; rounds: %s.\n\n", t.Name, t.Setting, strings.Join(t.Rounds, ", "))
		table(t.Seats, &t.Figures, t.Groups)
		markdownDuels(&b, &t.Duels)
		r.markdownVerdicts(&b, &t)
		fmt.Fprintf(&b, "\nLow-ping victims among the %s (round trip up to %v ms): %d hits received, %d SBC, %.4f SBC per hit. "+
			"High-ping shooters among them: %d shots, accuracy %.4f.\n", r.Subjects, r.LowPingMS, t.Low.HitsReceived, t.Low.SBC, t.Low.SBCPerHit, t.High.Shots, t.High.HitAccuracy)
	}
	b.WriteString("\n## Questionnaire\n\n")
	if r.SyntheticAnswers {
		b.WriteString("**" + SyntheticNote + "**\n\n")
	}
	if r.AnswersNote != "" {
		b.WriteString(strings.ToUpper(r.AnswersNote[:1]) + r.AnswersNote[1:] + ".\n")
	}
	if len(r.Questions) > 0 {
		b.WriteString("Yes/no: the share of yes and its Wilson score interval; Likert (1 to 5) and fairness (-5 to 5): " +
			"the mean, the median and the median's distribution-free interval between two of the answers, " +
			fmt.Sprintf("which needs at least %d answers. Every interval stays within its question's scale.\n\n", stats.MinMedianCI))
		b.WriteString("| round | question | kind | n | mean or yes share | median | 95% CI |\n|---|---|---|---|---|---|---|\n")
		for _, q := range r.Questions {
			mean, ci := "", ""
			if q.Mean != nil {
				mean = fmt.Sprintf("%.2f", *q.Mean)
			}
			switch {
			case q.CILo != nil:
				ci = fmt.Sprintf("%.2f to %.2f", *q.CILo, *q.CIHi)
			case q.CINote != "":
				ci = "n too small"
			}
			if q.Kind == "text" {
				mean = cellText(strings.Join(q.Texts, "; "))
			}
			fmt.Fprintf(&b, "| %d | %s | %s | %d | %s | %s | %s |\n", q.Round+1, q.Question, q.Kind, q.N, mean, fixed(q.Median, 2), ci)
		}
	}
	r.markdownAnswers(&b)
	r.markdownChecks(&b)
	r.markdownDesign(&b)
	r.markdownFrames(&b)
	r.markdownInstruments(&b)
	r.markdownRun(&b)
	return b.String()
}

// appeals writes the appeals with their outcomes: "12 (confirmed 9,
// denied_upheld 3)".
func appeals(f *Figures) string {
	if f.Appeals == 0 {
		return "0"
	}
	keys := make([]string, 0, len(f.Outcomes))
	for k := range f.Outcomes {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, f.Outcomes[k])
	}
	return fmt.Sprintf("%d (%s)", f.Appeals, strings.Join(parts, ", "))
}

func secs(s float64) string {
	if s >= 60 && int(s)%60 == 0 {
		return fmt.Sprintf("%d min", int(s)/60)
	}
	return num(s) + " s"
}

func seatList(seats []int) string {
	if len(seats) == 0 {
		return "none"
	}
	parts := make([]string, len(seats))
	for i, s := range seats {
		parts[i] = strconv.Itoa(s)
	}
	return strings.Join(parts, ", ")
}

// SyntheticNote labels a report whose answers a simulated study drew
// from a model.
const SyntheticNote = "SYNTHETIC ANSWERS: every answer to the questionnaire was drawn by the simulation from the model the schedule states " +
	"per question and technique (study run --simulate --synthetic-answers), under the study's seed; no person gave them. " +
	"They try the analysis out; they say nothing of the techniques."

// provenance is the build that writes the report (its revision made
// true however it was built: Provenance); the build that ran the study
// is in Run.
func (r *Report) provenance() experiment.Provenance {
	b, _ := Provenance()
	return b
}
