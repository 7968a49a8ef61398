package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lagkit/lagkit/record"
	"github.com/lagkit/lagkit/study"
)

// mixedSchedule is a study of three people and two bots, every seat at
// 250 ms round trip, tlc then clc.
const mixedSchedule = `name = "mixed"
[[seat]]
code = "A1"
[[seat]]
code = "A2"
[[seat]]
code = "A3"
[[seat]]
bot = true
count = 2
[[technique]]
name = "tlc"
[[technique]]
name = "clc"
policy = { name = "clc" }
[[latency]]
latency_ms = 125
[[round]]
map = "arena"
mode = "ffa"
duration = "1:00"
technique = "tlc"
[[round]]
map = "arena"
mode = "ffa"
duration = "1:00"
technique = "clc"
`

// mixedStudy returns the records of mixedSchedule: every seat shoots
// seat (shooter+1)%5 ten times a round and hits some.
func mixedStudy(t *testing.T) []record.Record {
	t.Helper()
	s, err := study.Parse("mixed.toml", []byte(mixedSchedule))
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	recs := []record.Record{record.Study{Name: "mixed", Schedule: mixedSchedule, Seed: 1, Started: t0}}
	for _, p := range s.Plans() {
		rnd := record.Round{Index: p.Index, Name: p.Name, Map: p.Map, Mode: string(p.Mode), Technique: p.Technique.String(),
			Duration: p.Duration, Started: t0.Add(time.Duration(p.Index) * 2 * time.Minute)}
		recs = append(recs, rnd)
		for _, st := range s.Seats() {
			recs = append(recs, record.Participant{Seat: st.Index, Code: st.Code, Bot: st.Bot, Round: p.Index, LatencyMS: 125})
		}
		for shooter := range 5 {
			for k := range 10 {
				hit := k < 3+shooter+p.Index*(shooter%2)
				victim := -1
				if hit {
					victim = (shooter + 1) % 5
				}
				recs = append(recs, record.Shot{Round: p.Index, At: time.Duration(shooter*10+k) * 100 * time.Millisecond, Shooter: shooter,
					Victim: victim, Hit: hit, Registered: hit, Policy: p.Technique.Policy.Name})
			}
		}
		rnd.Ended = rnd.Started.Add(p.Duration)
		recs = append(recs, rnd)
	}
	return recs
}

// TestStudyReportPeopleNotBots: in a study with people, the paired test
// of high-ping accuracy pairs the three people, not the two bots; the
// tables count the bots' seats apart and say so, each technique's own
// figures being its people's. A simulated study, of
// bots alone, still gets its test and tables, labelled as bot seats.
func TestStudyReportPeopleNotBots(t *testing.T) {
	tmp := t.TempDir()
	db := filepath.Join(tmp, "study.db")
	storeStudies(t, db, mixedStudy(t))
	dir := filepath.Join(tmp, "report")
	if code, out, errOut := lagkit("study", "report", "--db", db, "--out", dir); code != 0 {
		t.Fatalf("exit %d, %q, %q", code, out, errOut)
	}
	rep, _ := readStudyReport(t, dir)
	// Three people pair (not the five seats), under the statistics
	// policy's 6: untested, and said so.
	var untested []string
	for _, u := range rep.Untested {
		if u.Outcome == "hit_accuracy_high_ping" {
			untested = append(untested, fmt.Sprintf("%d %s", u.N, u.Reason))
		}
	}
	if len(untested) != 1 || !strings.HasPrefix(untested[0], "3 not tested: 3 participant pairs") {
		t.Errorf("high-ping accuracy %q: want the 3 people, untested", untested)
	}
	if rep.Subjects != study.SubjectsPeople || rep.Techniques[0].High.Shots != 30 {
		t.Errorf("subjects %q, tlc's high-ping shooters %+v: want the people's 30 shots", rep.Subjects, rep.Techniques[0].High)
	}
	rows := readCSV(t, filepath.Join(dir, "study_techniques.csv"))
	i := slices.Index(rows[0], "players")
	var got []string
	for _, r := range rows[1:] {
		got = append(got, r[0]+" "+r[i]+" "+r[i+1])
	}
	// Each technique's own row is its people's (the bots have a row of
	// their own), then its round-trip groups.
	if want := []string{"tlc people 3", "tlc people 3", "tlc bots 2", "clc people 3", "clc people 3", "clc bots 2"}; !slices.Equal(got, want) {
		t.Errorf("study_techniques.csv technique, players, seats: %q, want %q", got, want)
	}

	sim := filepath.Join(tmp, "sim")
	if code, _, errOut := lagkit("study", "run", "../../presets/alc.toml", "--simulate", "--quick", "--out", sim, "--db", filepath.Join(tmp, "sim.db")); code != 0 {
		t.Fatalf("simulate: exit %d, %q", code, errOut)
	}
	rep, _ = readStudyReport(t, sim)
	// A pilot is analysed as its live study: the preset's 6 seats are
	// meant for people, and its 3 high-ping ones are the pairs, too few
	// for the statistics policy's test, which says so.
	named := false
	for _, u := range rep.Untested {
		if u.Outcome == "hit_accuracy_high_ping" && u.N == 3 && strings.Contains(u.Reason, "3 participant pairs") {
			named = true
		}
	}
	if !named {
		t.Errorf("simulated high-ping comparison: untested %+v, want its 3 high-ping participant seats named as too few", rep.Untested)
	}
	md, err := os.ReadFile(filepath.Join(sim, study.MarkdownFile))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Subjects != study.SubjectsPeople || !strings.Contains(string(md), "This is a pilot") {
		t.Errorf("simulated report: subjects %q:\n%s", rep.Subjects, md)
	}
}
