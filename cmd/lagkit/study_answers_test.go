package main

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lagkit/lagkit/record"
	"github.com/lagkit/lagkit/study"
)

// twoPeopleSchedule is a one-round study of two people and a bot.
const twoPeopleSchedule = `name = "small"
[[seat]]
code = "P1"
[[seat]]
code = "P2"
[[seat]]
bot = true
[[technique]]
name = "tlc"
[[round]]
name = "only"
map = "arena"
mode = "ffa"
duration = "1:00"
[[question]]
id = "cover"
text = "I was shot behind cover."
kind = "yesno"
[[question]]
id = "fair"
text = "How fair?"
kind = "fairness"
[[question]]
id = "notes"
text = "Anything else?"
kind = "text"
`

// smallStudy returns the records of twoPeopleSchedule played once: the
// two people answer yes and no, -5 and 5, and one writes a note over
// two lines with a pipe in it.
func smallStudy(t *testing.T) []record.Record {
	t.Helper()
	s, err := study.Parse("small.toml", []byte(twoPeopleSchedule))
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	p := s.Plans()[0]
	rnd := record.Round{Index: 0, Name: p.Name, Map: p.Map, Mode: string(p.Mode), Technique: p.Technique.String(), Duration: p.Duration, Started: t0}
	recs := []record.Record{record.Study{Name: "small", Schedule: twoPeopleSchedule, Seed: 1, Started: t0}, rnd}
	for _, st := range s.Seats() {
		recs = append(recs, record.Participant{Seat: st.Index, Code: st.Code, Bot: st.Bot, Round: 0, LatencyMS: 10})
	}
	recs = append(recs, record.Shot{Round: 0, At: time.Second, Shooter: 0, Victim: 1, Hit: true, Registered: true, Policy: "tlc"},
		record.Shot{Round: 0, At: 2 * time.Second, Shooter: 1, Victim: -1, Policy: "tlc"})
	rnd.Ended = t0.Add(time.Minute)
	recs = append(recs, rnd,
		record.Answer{Round: 0, Seat: 0, Question: "cover", Kind: record.YesNo, Value: 1},
		record.Answer{Round: 0, Seat: 1, Question: "cover", Kind: record.YesNo, Value: 0},
		record.Answer{Round: 0, Seat: 0, Question: "fair", Kind: record.Fairness, Value: -5},
		record.Answer{Round: 0, Seat: 1, Question: "fair", Kind: record.Fairness, Value: 5},
		record.Answer{Round: 0, Seat: 1, Question: "notes", Kind: record.Text, Text: "laggy | odd\nthen fine"})
	return recs
}

// TestStudyReportSmallN: with two answers a question, the report's
// intervals stay within each scale: the yes share's Wilson interval, and
// no interval of the fairness median but "n too small"; the note with a
// line break and a pipe stays in its table cell.
func TestStudyReportSmallN(t *testing.T) {
	tmp := t.TempDir()
	db := filepath.Join(tmp, "study.db")
	storeStudies(t, db, smallStudy(t))
	dir := filepath.Join(tmp, "report")
	if code, out, errOut := lagkit("study", "report", "--db", db, "--out", dir); code != 0 {
		t.Fatalf("exit %d, %q, %q", code, out, errOut)
	}
	rep, _ := readStudyReport(t, dir)
	if len(rep.Questions) != 3 {
		t.Fatalf("questions %+v", rep.Questions)
	}
	cover, fair := rep.Questions[0], rep.Questions[1]
	if cover.Question != "cover" || cover.CILo == nil || *cover.CILo < 0 || *cover.CIHi > 1 || cover.CIOf != study.CIOfYesShare {
		t.Errorf("cover %+v", cover)
	}
	if fair.Question != "fair" || fair.CILo != nil || fair.CINote != study.NTooSmall || *fair.Median != 0 {
		t.Errorf("fair %+v", fair)
	}
	md, err := os.ReadFile(filepath.Join(dir, study.MarkdownFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| 1 | cover | yesno | 2 | 0.50 |  | 0.09 to 0.91 |", "| 1 | fair | fairness | 2 | 0.00 | 0.00 | n too small |",
		"| 1 | notes | text | 1 | laggy \\| odd<br>then fine |  |  |", "| tlc | only | 1 | notes | laggy \\| odd<br>then fine |"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("study.md lacks %q:\n%s", want, md)
		}
	}
	// Every row of every table has as many cells as its header.
	var cells int
	for _, line := range strings.Split(string(md), "\n") {
		if !strings.HasPrefix(line, "|") {
			cells = 0
			continue
		}
		n := strings.Count(strings.ReplaceAll(line, `\|`, ""), "|")
		if cells == 0 {
			cells = n
		} else if n != cells {
			t.Errorf("row %q has %d cell borders, its header %d", line, n, cells)
		}
	}
}

// TestStudyExportAnswers: the exported answers number their round from
// 1, and a free-text answer has an empty value, not 0.
func TestStudyExportAnswers(t *testing.T) {
	tmp := t.TempDir()
	db := filepath.Join(tmp, "study.db")
	storeStudies(t, db, smallStudy(t))
	ex := filepath.Join(tmp, "export")
	if code, out, errOut := lagkit("study", "export", "--db", db, "--out", ex); code != 0 {
		t.Fatalf("exit %d, %q, %q", code, out, errOut)
	}
	data, err := os.ReadFile(filepath.Join(ex, "answers.csv"))
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(strings.NewReader(string(data))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{{"study", "study_id", "round", "seat", "question", "kind", "value", "text"},
		{"1", "1", "1", "0", "cover", "yesno", "1", ""}, {"1", "1", "1", "1", "cover", "yesno", "0", ""},
		{"1", "1", "1", "0", "fair", "fairness", "-5", ""}, {"1", "1", "1", "1", "fair", "fairness", "5", ""},
		{"1", "1", "1", "1", "notes", "text", "", "laggy | odd\nthen fine"}}
	if len(recs) != len(want) {
		t.Fatalf("answers.csv:\n%s", data)
	}
	for i, w := range want {
		if !slices.Equal(recs[i][:len(w)], w) {
			t.Errorf("answers.csv row %d: %q, want %q", i, recs[i], w)
		}
	}
}
