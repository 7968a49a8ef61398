package main

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lagkit/lagkit/experiment"
	"github.com/lagkit/lagkit/internal/pgtest"
	"github.com/lagkit/lagkit/record"
	"github.com/lagkit/lagkit/report/browsertest"
	"github.com/lagkit/lagkit/stats"
	"github.com/lagkit/lagkit/store"
	"github.com/lagkit/lagkit/study"
)

// peopleSchedule is the schedule of the study peopleStudy records: six
// people (three at 20 ms round trip, three at 250 ms) and two bots, tlc
// twice and alc once, and the alc study's questions.
const peopleSchedule = `name = "alc"
[[seat]]
code = "A1"
[[seat]]
code = "A2"
[[seat]]
code = "A3"
[[seat]]
code = "B1"
[[seat]]
code = "B2"
[[seat]]
code = "B3"
[[seat]]
count = 2
bot = true
[[technique]]
name = "tlc"
policy = { name = "tlc" }
[[technique]]
name = "alc"
policy = { name = "alc", low_ping_ms = 50 }
[[latency]]
latency_ms = 10
[[latency]]
seats = [3, 4, 5]
latency_ms = 125
[[round]]
name = "tlc 1"
map = "metro"
mode = "ctf"
duration = "1:00"
technique = "tlc"
[[round]]
name = "alc 1"
map = "metro"
mode = "ctf"
duration = "1:00"
technique = "alc"
[[round]]
name = "tlc 2"
map = "metro"
mode = "ctf"
duration = "1:00"
technique = "tlc"
[[question]]
id = "fairness"
text = "How fair was this match?"
kind = "fairness"
[[question]]
id = "responsive"
text = "My shots registered when I expected them to."
kind = "likert"
[[question]]
id = "cover"
text = "I was shot behind cover."
kind = "yesno"
[[question]]
id = "notes"
text = "Anything else?"
kind = "text"
`

// Answers of seats 0 to 5 after each round (round, then seat); a
// missing answer is absent.
var (
	fairnessAnswers = [3][6]int{{-2, 1, 0, 3, -1, 2}, {2, 1, 3, 4, 1, 2}, {-1, 1, 2, 3, -3, 2}}
	// Seat 5 does not answer it after the alc round.
	responsiveAnswers = [3][6]int{{2, 3, 3, 4, 2, 1}, {4, 3, 2, 5, 4, 0}, {3, 3, 2, 4, 2, 2}}
	coverAnswers      = [3][6]int{{1, 1, 0, 1, 0, 1}, {0, 0, 0, 1, 0, 0}, {1, 0, 0, 1, 0, 1}}
)

// peopleStudy returns the records of a study played by people: the
// high-ping seats shoot the low-ping ones with hits spread over rollback
// bands, some behind cover, some reported; the low-ping seats shoot the
// bots and seat 3; everyone answers the questionnaire.
func peopleStudy(t *testing.T) []record.Record {
	t.Helper()
	s, err := study.Parse("people.toml", []byte(peopleSchedule))
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	recs := []record.Record{record.Study{Name: "alc", Schedule: peopleSchedule, Seed: 3, Started: t0}}
	for _, p := range s.Plans() {
		start := t0.Add(time.Duration(p.Index) * 2 * time.Minute)
		rnd := record.Round{Index: p.Index, Name: p.Name, Map: p.Map, Mode: string(p.Mode), Technique: p.Technique.String(),
			Duration: p.Duration, Started: start}
		recs = append(recs, rnd)
		for seat := range 8 {
			code := ""
			if seat < 6 {
				code = s.Seats()[seat].Code
			}
			recs = append(recs, record.Participant{Seat: seat, Code: code, Team: seat % 2, Bot: seat >= 6, Round: p.Index, LatencyMS: p.Links[seat].LatencyMS})
		}
		at := time.Duration(0)
		for shooter := 3; shooter < 6; shooter++ {
			for victim := range 3 {
				for k := range 12 {
					at += 100 * time.Millisecond
					band := (shooter + victim + k + p.Index) % 11
					shot := record.Shot{Round: p.Index, At: at, Shooter: shooter, Victim: victim, Policy: p.Technique.Policy.Name,
						Hit: true, Registered: true, Damage: 25, RewindMS: 250, RollbackM: 0.025 + 0.05*float64(band),
						ObjectiveSBC: band >= 4 && k%3 == 0 && (p.Technique.Policy.Name == "tlc" || k == 0)}
					if k%4 == 3 {
						// A miss, and under alc, an upheld denial.
						shot = record.Shot{Round: p.Index, At: at, Shooter: shooter, Victim: -1, Policy: shot.Policy}
					}
					recs = append(recs, shot)
					// Reports under alc are half as frequent.
					if shot.Registered && (band >= 3 && band <= 6 && k%(2+2*(p.Index%2)) == 0 || band == 9 && k%5 == 0) {
						recs = append(recs, record.SBCReport{Round: p.Index, At: at + 300*time.Millisecond, Reporter: victim, Shooter: shooter,
							RewindMS: shot.RewindMS, RollbackM: shot.RollbackM, ObjectiveSBC: shot.ObjectiveSBC})
					}
				}
			}
		}
		for shooter := range 3 {
			for k := range 5 + shooter + p.Index {
				at += 100 * time.Millisecond
				victim := []int{6, 7, 3}[k%3]
				recs = append(recs, record.Shot{Round: p.Index, At: at, Shooter: shooter, Victim: victim, Policy: p.Technique.Policy.Name,
					Hit: true, Registered: k%2 == 0, RewindMS: 20, RollbackM: 0.01})
			}
		}
		// A report about no hit, and a kill.
		recs = append(recs, record.SBCReport{Round: p.Index, At: at, Reporter: 4, Shooter: -1},
			record.Kill{Round: p.Index, At: at, Killer: 3, Victim: 0})
		rnd.Ended = start.Add(p.Duration)
		recs = append(recs, rnd)
		for seat := range 6 {
			recs = append(recs, record.Answer{Round: p.Index, Seat: seat, Question: "fairness", Kind: record.Fairness, Value: fairnessAnswers[p.Index][seat]})
			if v := responsiveAnswers[p.Index][seat]; v > 0 {
				recs = append(recs, record.Answer{Round: p.Index, Seat: seat, Question: "responsive", Kind: record.Likert, Value: v})
			}
			recs = append(recs, record.Answer{Round: p.Index, Seat: seat, Question: "cover", Kind: record.YesNo, Value: coverAnswers[p.Index][seat]})
		}
	}
	recs = append(recs, record.Answer{Round: 0, Seat: 0, Question: "notes", Kind: record.Text, Text: "laggy | odd"},
		record.Answer{Round: 1, Seat: 3, Question: "notes", Kind: record.Text, Text: "felt fine"})
	return recs
}

// storeStudies writes each study's records into the database at dsn
// through a store.Writer.
func storeStudies(t *testing.T, dsn string, studies ...[]record.Record) {
	t.Helper()
	db, err := store.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, recs := range studies {
		w := db.NewWriter(store.WriterOptions{})
		for _, r := range recs {
			w.Put(r)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// readStudyReport reads the study.json and results.json in dir.
func readStudyReport(t *testing.T, dir string) (*study.Report, *experiment.Results) {
	t.Helper()
	var rep study.Report
	var res experiment.Results
	for name, v := range map[string]any{study.JSONFile: &rep, "results.json": &res} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, v); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	return &rep, &res
}

// TestStudyReport: a study played by people, stored in SQLite and in
// PostgreSQL beside another study, reads back as a report whose paired
// tests, shares, free text and rollback bands are those of its records.
func TestStudyReport(t *testing.T) {
	for _, db := range []struct{ name, dsn func(t *testing.T) string }{
		{func(*testing.T) string { return "sqlite" }, func(t *testing.T) string { return filepath.Join(t.TempDir(), "study.db") }},
		{func(*testing.T) string { return "postgres" }, func(t *testing.T) string { return pgtest.URL(t) }},
	} {
		t.Run(db.name(t), func(t *testing.T) {
			dsn := db.dsn(t)
			recs := peopleStudy(t)
			other := []record.Record{record.Study{Name: "other", Started: time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)}}
			storeStudies(t, dsn, recs, other)
			tmp := t.TempDir()

			// Without --study: the newest, with the others listed.
			code, out, errOut := lagkit("study", "report", "--db", dsn, "--out", filepath.Join(tmp, "newest"))
			if code != 0 || !strings.Contains(out, `study other (study id 2, 1 session(s), ids 2 in`) ||
				!strings.Contains(errOut, `holds 2 studies; reporting the newest, 2 "other" (live, 1 session, started 2026-11-25 12:00 UTC) (--study picks another: 1 "alc" (live, 1 session`) {
				t.Fatalf("newest: exit %d, %q, %q", code, out, errOut)
			}
			dir := filepath.Join(tmp, "alc")
			if code, out, errOut := lagkit("study", "report", "--db", dsn, "--out", dir, "--study", "alc"); code != 0 || !strings.Contains(out, "study alc (study id 1, 1 session(s), ids 1 in") {
				t.Fatalf("exit %d, %q, %q", code, out, errOut)
			}
			rep, res := readStudyReport(t, dir)
			checkPeopleReport(t, rep, res, recs)

			if code, _, errOut := lagkit("study", "report", "--db", dsn, "--out", dir, "--study", "1"); code != 2 || !strings.Contains(errOut, "is not empty: give --force") {
				t.Errorf("into a full folder: exit %d, %q", code, errOut)
			}
			if code, _, errOut := lagkit("study", "report", "--db", dsn, "--out", filepath.Join(tmp, "x"), "--study", "nope"); code != 1 || !strings.Contains(errOut, `no study "nope" (known: 1 "alc" (live, 1 session`) {
				t.Errorf("unknown study: exit %d, %q", code, errOut)
			}
		})
	}
}

func checkPeopleReport(t *testing.T, rep *study.Report, res *experiment.Results, recs []record.Record) {
	t.Helper()
	if len(rep.Techniques) != 2 || rep.Techniques[0].Name != "tlc" || rep.Techniques[1].Name != "alc" || rep.AnswersNote != "" {
		t.Fatalf("techniques %+v, note %q", rep.Techniques, rep.AnswersNote)
	}

	// The paired tests, against stats.Wilcoxon on the pairs made here:
	// a seat's value under tlc is its mean over the two tlc rounds.
	pairs := func(answers [3][6]int) (tlc, alc []float64) {
		for seat := range 6 {
			if answers[1][seat] == 0 && answers[0][seat] > 0 {
				continue // no answer after the alc round
			}
			tlc = append(tlc, float64(answers[0][seat]+answers[2][seat])/2)
			alc = append(alc, float64(answers[1][seat]))
		}
		return tlc, alc
	}
	// Responsive has 5 pairs, under the statistics policy's 6: not
	// tested, and the report says why.
	if len(rep.Comparisons) != 1 {
		t.Fatalf("comparisons %+v, want fairness alone", rep.Comparisons)
	}
	if u := rep.Untested; len(u) == 0 || u[0].Outcome != "responsive" || u[0].N != 5 || !strings.Contains(u[0].Reason, "not tested: 5 participant pairs") {
		t.Errorf("untested %+v, want responsive's 5 pairs", rep.Untested)
	}
	for i, c := range []struct {
		q        string
		answers  [3][6]int
		n, nz    int
		wp, wm   float64
		medA     float64
		handP    float64 // 0: not worked out by hand
		reported string
	}{
		// Fairness differences 3.5, 0, 2, 1, 3, 0: four above zero, so
		// W+ = 1+2+3+4 = 10 and the exact p is 2/2^4.
		{"fairness", fairnessAnswers, 6, 4, 10, 0, 1, 0.125, ""},
	} {
		got := rep.Comparisons[i]
		xa, xb := pairs(c.answers)
		w, err := stats.Wilcoxon(xa, xb)
		if err != nil {
			t.Fatal(err)
		}
		if got.Question != c.q || got.A != "tlc" || got.B != "alc" || got.N != c.n || got.NonZero != c.nz || got.W != c.wp || got.WMinus != c.wm ||
			got.W != w.Statistic || got.P != w.P || got.Effect != w.Effect || got.MedianA != c.medA || math.Abs(got.P-c.handP) > 1e-12 {
			t.Errorf("%s: %+v; want n %d, nonzero %d, W+ %v = %v, W- %v, p %v = %v, median A %v", c.q, got, c.n, c.nz, c.wp, w.Statistic, c.wm, c.handP, w.P, c.medA)
		}
		// The same test is in results.json, Holm-adjusted with the others.
		found := false
		for _, tr := range res.Tests {
			if tr.Name == experiment.ComparisonName(c.q, "tlc", "alc") && tr.Kind == "wilcoxon" {
				found = tr.P == w.P && tr.N == c.n && tr.PHolm >= tr.P
			}
		}
		if !found {
			t.Errorf("%s: no matching Wilcoxon test in results.json: %+v", c.q, res.Tests)
		}
	}

	// Shares of yes: tlc 7 of 12 answers, alc 1 of 6.
	shares := map[string][2]float64{}
	for _, a := range rep.Answers {
		if a.Question == "cover" {
			shares[a.Technique] = [2]float64{float64(a.Yes), *a.YesShare}
		}
		if a.Question == "fairness" && a.Technique == "alc" && (*a.Median != 2 || a.Participants != 6) {
			t.Errorf("fairness under alc: %+v", a)
		}
	}
	if shares["tlc"] != [2]float64{7, 7.0 / 12} || shares["alc"] != [2]float64{1, 1.0 / 6} {
		t.Errorf("yes shares %v", shares)
	}
	if len(rep.Texts) != 2 || rep.Texts[0] != (study.TextAnswer{Technique: "tlc", Round: "tlc 1", Seat: 0, Question: "notes", Text: "laggy | odd"}) ||
		rep.Texts[1].Technique != "alc" || rep.Texts[1].Text != "felt fine" {
		t.Errorf("texts %+v", rep.Texts)
	}

	// The rollback bands, counted here from the records: registered hits
	// on people and the reports about a hit, by technique.
	tech := map[int]string{0: "tlc", 1: "alc", 2: "tlc"}
	type band struct {
		tech string
		i    int
	}
	hits, sbc, reports := map[band]int{}, map[band]int{}, map[band]int{}
	for _, r := range recs {
		switch v := r.(type) {
		case record.Shot:
			if v.Registered && v.Victim >= 0 && v.Victim < 6 {
				for _, tn := range []string{tech[v.Round], study.AllTechniques} {
					b := band{tn, min(int(v.RollbackM/study.BinWidthM), 10)}
					hits[b]++
					if v.ObjectiveSBC {
						sbc[b]++
					}
				}
			}
		case record.SBCReport:
			if v.Shooter >= 0 {
				for _, tn := range []string{tech[v.Round], study.AllTechniques} {
					reports[band{tn, min(int(v.RollbackM/study.BinWidthM), 10)}]++
				}
			}
		}
	}
	if len(rep.Rollback) != 3*11 {
		t.Fatalf("%d rollback bands, want 11 for tlc, alc and all", len(rep.Rollback))
	}
	total := 0
	for _, b := range rep.Rollback {
		k := band{b.Technique, int(math.Round(b.FromM / study.BinWidthM))}
		if b.Hits != hits[k] || b.SBC != sbc[k] || b.Reports != reports[k] {
			t.Errorf("band %+v: want %d hits, %d SBC, %d reports", b, hits[k], sbc[k], reports[k])
		}
		total += b.Reports
	}
	if total == 0 {
		t.Fatal("no reports in any band")
	}
	peak, ok := rep.PeakRollback("tlc")
	if !ok || peak < 0.15 || peak > 0.35 {
		t.Errorf("peak of reported SBC under tlc at %v m (%v), want where the reports are, 0.15 to 0.35 m", peak, ok)
	}

	// Per condition, and the published figures beside ours.
	cond := map[string]map[string]float64{}
	for _, c := range res.Conditions {
		cond[c.Name] = c.Metrics
	}
	tlc := rep.Techniques[0]
	if tlc.Low.HitsReceived == 0 || cond["tlc"]["sbc_per_hit_low"] != tlc.Low.SBCPerHit || cond["tlc"]["answer_fairness_median"] != 1 ||
		cond["alc"]["answer_cover_yes_share"] != 1.0/6 || cond["tlc"][study.PeakRollbackMetric] != peak || tlc.RollbackMeanM <= 0 || tlc.SBCReports == 0 {
		t.Errorf("conditions %v; tlc %+v", cond, tlc)
	}
	refs := map[string]bool{}
	for _, ref := range res.Published {
		refs[ref.Metric+"/"+ref.Condition+"/"+ref.Test] = ref.Citation != ""
	}
	for _, want := range []string{"sbc_per_hit_low/tlc/", "sbc_per_hit_low/alc/", "rollback_mean_m/tlc/", study.PeakRollbackMetric + "/tlc/",
		"hit_accuracy_high_ping/alc/" + experiment.ComparisonName("hit_accuracy_high_ping", "tlc", "alc")} {
		if !refs[want] {
			t.Errorf("published figure %s missing or without its citation: %v", want, refs)
		}
	}
	// The three high-ping people are too few to test (the policy's 6):
	// no test of any kind, the report says why.
	for _, tr := range res.Tests {
		if tr.Metric == "hit_accuracy_high_ping" {
			t.Errorf("high-ping accuracy tested over %d pairs: %+v", tr.N, tr)
		}
	}
}

// TestStudyReportMatchesRun: study report on the database study run
// filled writes the report study run wrote, figure for figure.
func TestStudyReportMatchesRun(t *testing.T) {
	tmp := t.TempDir()
	db := filepath.Join(tmp, "x.db")
	run, rep := filepath.Join(tmp, "run"), filepath.Join(tmp, "report")
	if code, _, errOut := lagkit("study", "run", "../../presets/alc.toml", "--simulate", "--quick", "--seed", "1", "--db", db, "--out", run); code != 0 {
		t.Fatalf("study run: exit %d: %s", code, errOut)
	}
	code, out, errOut := lagkit("study", "report", "--db", db, "--out", rep, "--json")
	if code != 0 || errOut != "" {
		t.Fatalf("study report: exit %d: %s", code, errOut)
	}
	if js, _ := os.ReadFile(filepath.Join(rep, study.JSONFile)); out != string(js) {
		t.Errorf("--json printed %d bytes, not the %d of study.json", len(out), len(js))
	}
	for _, name := range []string{study.JSONFile, study.MarkdownFile, "study_conditions.csv", "study_techniques.csv", "study_rounds.csv"} {
		a, err1 := os.ReadFile(filepath.Join(run, name))
		b, err2 := os.ReadFile(filepath.Join(rep, name))
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: %v, %v", name, err1, err2)
		}
		if string(a) != string(b) {
			t.Errorf("%s differs between study run and study report", name)
		}
	}
	a, ra := readStudyReport(t, run)
	_, rb := readStudyReport(t, rep)
	ra.WallS, rb.WallS, ra.Provenance, rb.Provenance = 0, 0, experiment.Provenance{}, experiment.Provenance{}
	ja, _ := json.Marshal(ra)
	jb, _ := json.Marshal(rb)
	if string(ja) != string(jb) {
		t.Error("results.json differs between study run and study report")
	}
	// A pilot is analysed as its live study: the preset's seats are all
	// meant for people, so the hits on them fill the rollback bands as
	// the hits on people will.
	if a.AnswersNote != study.NoAnswersFromBots || len(a.Rollback) == 0 || a.Techniques[0].Shots == 0 || a.Subjects != study.SubjectsPeople {
		t.Errorf("simulated report: note %q, %d rollback bands, %d shots", a.AnswersNote, len(a.Rollback), a.Techniques[0].Shots)
	}
	md, _ := os.ReadFile(filepath.Join(rep, study.MarkdownFile))
	for _, want := range []string{"No answers: every seat was played by a bot", "sbc_per_hit_low under tlc: published 0.07583"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("study.md lacks %q", want)
		}
	}
}

// TestStudyReportInBrowser: a study report of people, with its
// questionnaire, tests and rollback plot, renders offline in headless
// Chromium with every plot drawn and nothing off the page
// (report/browser/check.mjs). Skipped where node, Debian's chromium or
// the script's node_modules are missing (report/browser/install.sh).
func TestStudyReportInBrowser(t *testing.T) {
	tmp := t.TempDir()
	dsn, dir := filepath.Join(tmp, "study.db"), filepath.Join(tmp, "report")
	storeStudies(t, dsn, peopleStudy(t))
	if code, _, errOut := lagkit("study", "report", "--db", dsn, "--out", dir); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	out := browsertest.Check(t, filepath.Join(dir, "report.html"), filepath.Join(tmp, "report.png"))
	if !strings.Contains(out, "ok: 5 plots rendered") {
		t.Errorf("browser check did not see the five plots:\n%s", out)
	}
	page, _ := os.ReadFile(filepath.Join(dir, "report.html"))
	for _, want := range []string{"fairness: alc − tlc", "Wilcoxon signed-rank", "laggy | odd", "study_rollback.svg", "Published figures"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
}

// TestStudyReportErrors: a missing database, an empty one and bad flags
// get clear errors, and no database file is created by asking.
func TestStudyReportErrors(t *testing.T) {
	tmp := t.TempDir()
	missing := filepath.Join(tmp, "typo.db")
	empty := filepath.Join(tmp, "empty.db")
	storeStudies(t, empty)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"study", "report", "--db", missing, "--out", filepath.Join(tmp, "a")}, 1, "typo.db does not exist: give --db the study database"},
		{[]string{"study", "report", "--db", empty, "--out", filepath.Join(tmp, "b")}, 1, "empty.db holds no study"},
		{[]string{"study", "report", "--db", "mysql://x/y", "--out", filepath.Join(tmp, "c")}, 1, `unknown scheme "mysql"`},
		{[]string{"study", "report", "extra"}, 2, "unknown command \"extra\""},
	} {
		code, _, errOut := lagkit(c.args...)
		if code != c.code || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, %q; want exit %d and %q", c.args, code, errOut, c.code, c.want)
		}
	}
	if _, err := os.Stat(missing); err == nil {
		t.Error("study report created the database it was asked to read")
	}
}
