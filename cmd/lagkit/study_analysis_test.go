package main

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/lagkit/lagkit/experiment"
	"github.com/lagkit/lagkit/study"
)

// readCodebook reads the codebook.md in dir: the columns of each file
// section, by the section's name (which may be a pattern, as
// "paths-study<id>-round<n>.csv").
func readCodebook(t *testing.T, dir string) map[string][]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, study.CodebookFile))
	if err != nil {
		t.Fatal(err)
	}
	book := map[string][]string{}
	var file string
	row := regexp.MustCompile("^\\| `([^`]+)` \\|")
	for _, line := range strings.Split(string(b), "\n") {
		if name, ok := strings.CutPrefix(line, "## "); ok {
			file = name
			book[file] = []string{}
			continue
		}
		if m := row.FindStringSubmatch(line); m != nil && file != "" {
			book[file] = append(book[file], m[1])
		}
	}
	return book
}

// globName turns a codebook name with parts in angle brackets into a
// regular expression.
func globName(name string) *regexp.Regexp {
	parts := regexp.MustCompile(`<[^>]+>`).Split(name, -1)
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	return regexp.MustCompile("^" + strings.Join(parts, ".+") + "$")
}

// checkCodebook checks that the codebook.md in dir describes every
// column of every CSV file there, reading each file's header row.
func checkCodebook(t *testing.T, dir string) (files, columns int) {
	t.Helper()
	book := readCodebook(t, dir)
	csvs, _ := filepath.Glob(filepath.Join(dir, "*.csv"))
	if len(csvs) == 0 {
		t.Fatalf("%s: no CSV file", dir)
	}
	for _, path := range csvs {
		name := filepath.Base(path)
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		head, err := csv.NewReader(f).Read()
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var cols []string
		found := false
		for section, c := range book {
			if globName(section).MatchString(name) {
				cols, found = c, true
			}
		}
		if !found {
			t.Errorf("%s: %s has no section for %s", dir, study.CodebookFile, name)
			continue
		}
		files++
		for _, col := range head {
			described := false
			for _, c := range cols {
				described = described || globName(c).MatchString(col)
			}
			if !described {
				t.Errorf("%s: %s does not describe column %s of %s", dir, study.CodebookFile, col, name)
			}
			columns++
		}
	}
	return files, columns
}

// TestStudyCodebook: the codebook beside the CSVs of study run, study
// report and study export names every column of every CSV file they
// write, for a simulated alc study with synthetic answers and for a
// study of people with every table a report can have (answers, paired
// comparisons, free text, rollback bands).
func TestStudyCodebook(t *testing.T) {
	tmp := t.TempDir()
	db := filepath.Join(tmp, "alc.db")
	run := filepath.Join(tmp, "run")
	if code, _, errOut := lagkit("study", "run", "../../presets/alc.toml", "--simulate", "--quick", "--seed", "1", "--synthetic-answers",
		"--db", db, "--out", run); code != 0 {
		t.Fatalf("study run: exit %d: %s", code, errOut)
	}
	exp := filepath.Join(tmp, "export")
	if code, _, errOut := lagkit("study", "export", "--db", db, "--out", exp); code != 0 {
		t.Fatalf("study export: exit %d: %s", code, errOut)
	}
	people := filepath.Join(tmp, "people.db")
	storeStudies(t, people, peopleStudy(t))
	rep := filepath.Join(tmp, "people-report")
	if code, _, errOut := lagkit("study", "report", "--db", people, "--out", rep); code != 0 {
		t.Fatalf("study report: exit %d: %s", code, errOut)
	}
	pexp := filepath.Join(tmp, "people-export")
	if code, _, errOut := lagkit("study", "export", "--db", people, "--out", pexp); code != 0 {
		t.Fatalf("study export: exit %d: %s", code, errOut)
	}
	for _, dir := range []string{run, exp, rep, pexp} {
		files, cols := checkCodebook(t, dir)
		t.Logf("%s: %d files, %d columns described", filepath.Base(dir), files, cols)
	}
	_, res := readStudyReport(t, rep)
	for _, tb := range res.Tables {
		if tb.Name == "study_rollback" && (strings.Contains(tb.Title, "from from_m") || !strings.Contains(tb.Title, "5 cm bands from 0 to 0.5 m")) {
			t.Errorf("the rollback table's title reads %q", tb.Title)
		}
	}
	for _, want := range []string{"study_answers.csv", "study_comparisons.csv", "study_texts.csv", "study_rollback.csv", "study_participant_rounds.csv"} {
		if _, err := os.Stat(filepath.Join(rep, want)); err != nil {
			t.Errorf("the people's report lacks %s, so its codebook entry goes untested", want)
		}
	}
}

// TestStudyAlcAnalysis: the alc preset simulated has the main outcome's
// paired test in its report, a 95% interval on every per-technique
// figure, and error bars on every plot, checked in the SVG against the
// same plot drawn without them; the same seed gives the same report.
func TestStudyAlcAnalysis(t *testing.T) {
	tmp := t.TempDir()
	runs := [2]string{filepath.Join(tmp, "a"), filepath.Join(tmp, "b")}
	for i, out := range runs {
		if code, _, errOut := lagkit("study", "run", "../../presets/alc.toml", "--simulate", "--quick", "--seed", "1",
			"--db", filepath.Join(tmp, "x"+string(rune('0'+i))+".db"), "--out", out); code != 0 {
			t.Fatalf("study run: exit %d: %s", code, errOut)
		}
	}
	rep, res := readStudyReport(t, runs[0])

	// The main outcome, tested participant by participant when the
	// preset's quick pilot gives the policy's 6 pairs, else said
	// untested.
	if rep.Main == nil || len(rep.Main.Pairs) != 1 {
		t.Fatalf("main outcome %+v, want one pair of techniques", rep.Main)
	}
	if pr := rep.Main.Pairs[0]; pr.Test == nil {
		if len(pr.Seats) >= study.MinPairs || !strings.Contains(pr.Note, "not tested") {
			t.Fatalf("main outcome %+v: untested without saying why", pr)
		}
		return
	}
	found := false
	for _, tt := range res.Tests {
		if tt.Name == "sbc_per_hit_low: alc − tlc" && tt.Kind == "wilcoxon" {
			found = true
			if tt.EffectMeasure != experiment.EffectRankBiserial || tt.N < 2 || tt.Family != study.PrimaryFamily || tt.HolmFamily != 1 {
				t.Errorf("main outcome's test: %+v", tt)
			}
		}
		// The secondary test is corrected among the secondary tests alone.
		if tt.Name == "hit_accuracy_high_ping: alc − tlc" && (tt.Family != study.SecondaryFamily || tt.PHolm < tt.P) {
			t.Errorf("high-ping accuracy's test: family %q of %d, p %v, p (Holm) %v", tt.Family, tt.HolmFamily, tt.P, tt.PHolm)
		}
	}
	if !found {
		t.Error("results.json lacks the Wilcoxon test of sbc_per_hit_low: alc − tlc")
	}
	md, _ := os.ReadFile(filepath.Join(runs[0], study.MarkdownFile))
	for _, want := range []string{"## Main outcome", "| tlc | alc |", "rank-biserial r", "## Per technique, with 95% confidence intervals"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("study.md lacks %q", want)
		}
	}

	// An interval on every per-technique figure, within its scale.
	for _, tr := range rep.Techniques {
		if len(tr.Intervals) != 6 {
			t.Errorf("%s: %d intervals, want 6", tr.Name, len(tr.Intervals))
		}
		for _, iv := range tr.Intervals {
			if iv.Lo == nil || *iv.Lo < 0 || *iv.Lo > iv.Estimate || iv.Estimate > *iv.Hi || (iv.NUnit != "seats" && *iv.Hi > 1 && iv.Figure != "rollback_mean_m") {
				t.Errorf("%s %s: %+v", tr.Name, iv.Figure, iv)
			}
		}
	}

	// Every plot has error bars, found in its SVG: a vertical stroke
	// with a cap across each end, one per bar or point whose interval
	// has a width.
	tables := map[string]experiment.Table{}
	for _, tb := range res.Tables {
		tables[tb.Name] = tb
	}
	for _, p := range res.Plots {
		if p.YLo == "" || p.YHi == "" || p.Caption == "" {
			t.Errorf("plot %s: y_lo %q, y_hi %q, caption %q", p.Name, p.YLo, p.YHi, p.Caption)
			continue
		}
		tb := tables[p.Table]
		lo, hi := slices.Index(tb.Columns, p.YLo), slices.Index(tb.Columns, p.YHi)
		want := 0
		for _, row := range tb.Rows {
			if row[lo] != "" && row[lo] != row[hi] {
				want++
			}
		}
		svg, _ := os.ReadFile(filepath.Join(runs[0], p.Name+".svg"))
		if got := errorBarsIn(string(svg)); got < want || want == 0 {
			t.Errorf("%s.svg: %d error bars, want %d (one per bar with an interval)", p.Name, got, want)
		}
	}

	// The same seed, the same report.
	// Only the times differ: a simulated study's clock starts at the
	// wall clock's time.
	timed := regexp.MustCompile(`(?m)^.*([Ss]tarted|"ended"|wall_s).*$`)
	entries, _ := os.ReadDir(runs[0])
	for _, e := range entries {
		a, _ := os.ReadFile(filepath.Join(runs[0], e.Name()))
		b, err := os.ReadFile(filepath.Join(runs[1], e.Name()))
		if err != nil || timed.ReplaceAllString(string(a), "") != timed.ReplaceAllString(string(b), "") {
			t.Errorf("%s differs between two runs of seed 1", e.Name())
		}
	}
	var js map[string]any
	b, _ := os.ReadFile(filepath.Join(runs[0], study.JSONFile))
	if err := json.Unmarshal(b, &js); err != nil || js["participant_rounds"] == nil {
		t.Errorf("study.json: %v, participant_rounds %v", err, js["participant_rounds"])
	}
}

// errorBarsIn counts the error bars gonum/plot drew in an SVG: a
// vertical stroke "M x,y1L x,y2" with a horizontal cap centred on x at
// y1 and at y2.
func errorBarsIn(svg string) int {
	type seg struct{ x1, y1, x2, y2 string }
	var segs []seg
	for _, m := range regexp.MustCompile(`d="M([-\d.]+),([-\d.]+)L([-\d.]+),([-\d.]+)"`).FindAllStringSubmatch(svg, -1) {
		segs = append(segs, seg{m[1], m[2], m[3], m[4]})
	}
	capAt := func(x, y string) bool {
		for _, c := range segs {
			if c.y1 == y && c.y2 == y && c.x1 != c.x2 && mid(c.x1, c.x2) == mid(x, x) {
				return true
			}
		}
		return false
	}
	n := 0
	for _, s := range segs {
		if s.x1 == s.x2 && s.y1 != s.y2 && capAt(s.x1, s.y1) && capAt(s.x1, s.y2) {
			n++
		}
	}
	return n
}

// mid returns the middle of two SVG coordinates, to a hundredth.
func mid(a, b string) string {
	x, _ := strconv.ParseFloat(a, 64)
	y, _ := strconv.ParseFloat(b, 64)
	return strconv.FormatFloat((x+y)/2, 'f', 2, 64)
}

// TestStudySyntheticAnswers: study run --simulate --synthetic-answers
// answers the alc preset's questionnaire from its models, and the
// answers are labelled synthetic in the database (their text), the
// long-format table, the report's design, questionnaire and tables;
// without --simulate the flag is refused.
func TestStudySyntheticAnswers(t *testing.T) {
	tmp := t.TempDir()
	db, run, exp := filepath.Join(tmp, "s.db"), filepath.Join(tmp, "run"), filepath.Join(tmp, "export")
	if code, _, errOut := lagkit("study", "run", "../../presets/alc.toml", "--simulate", "--quick", "--seed", "3", "--synthetic-answers",
		"--db", db, "--out", run); code != 0 {
		t.Fatalf("study run: exit %d: %s", code, errOut)
	}
	if code, _, errOut := lagkit("study", "export", "--db", db, "--out", exp); code != 0 {
		t.Fatalf("study export: exit %d: %s", code, errOut)
	}
	f, err := os.Open(filepath.Join(exp, "answers.csv"))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	// 6 seats, 2 rounds, 3 questions.
	if len(rows) != 1+36 {
		t.Fatalf("answers.csv: %d rows, want 36 answers", len(rows)-1)
	}
	text := slices.Index(rows[0], "text")
	for _, r := range rows[1:] {
		if r[text] != study.SyntheticText {
			t.Fatalf("answers.csv row %q: text is not %q", r, study.SyntheticText)
		}
	}
	rep, res := readStudyReport(t, run)
	if !rep.SyntheticAnswers || len(rep.Comparisons) == 0 || rep.AnswersNote != "" {
		t.Errorf("report: synthetic %v, %d comparisons, note %q", rep.SyntheticAnswers, len(rep.Comparisons), rep.AnswersNote)
	}
	if !strings.Contains(res.Design, study.SyntheticNote) {
		t.Error("results.json's design does not say the answers are synthetic")
	}
	pr, _ := os.ReadFile(filepath.Join(run, "study_participant_rounds.csv"))
	if n := strings.Count(string(pr), ",synthetic,"); n != 12 {
		t.Errorf("study_participant_rounds.csv: %d rows marked synthetic, want 12 (6 seats, 2 rounds)", n)
	}
	page, _ := os.ReadFile(filepath.Join(run, "report.html"))
	if !strings.Contains(string(page), "SYNTHETIC") {
		t.Error("report.html does not say the answers are synthetic")
	}
	if code, _, errOut := lagkit("study", "run", "../../presets/alc.toml", "--synthetic-answers", "--db", filepath.Join(tmp, "live.db")); code == 0 ||
		!strings.Contains(errOut, "--synthetic-answers: only a simulated study") {
		t.Errorf("live with --synthetic-answers: exit %d: %s", code, errOut)
	}
}
