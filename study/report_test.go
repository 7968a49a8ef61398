package study

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lagkit/lagkit/record"
)

// people is a study of two people and a bot, as a live driver would
// record it: seat 0 at 10 ms one way, seats 1 and 2 at 125 ms.
func people() []record.Record {
	recs := []record.Record{
		record.Study{Name: "live", Seed: 9, Started: epoch},
		record.Round{Index: 0, Name: "r1", Map: "metro", Mode: "ctf", Technique: "policy=alc", Duration: time.Minute, Started: epoch},
		record.Participant{Seat: 0, Code: "A", Team: 0, Round: 0, LatencyMS: 10},
		record.Participant{Seat: 1, Code: "B", Team: 1, Round: 0, LatencyMS: 125},
		record.Participant{Seat: 2, Team: 0, Bot: true, Round: 0, LatencyMS: 125},
		// Seat 1 (250 ms) hits seat 0 (20 ms) three times: one behind
		// cover and upheld on appeal (not registered), one behind cover and
		// registered, one confirmed; and misses once.
		record.Shot{Round: 0, Shooter: 1, Victim: 0, Hit: true, Registered: false, ObjectiveSBC: true, Appeal: "denied_upheld"},
		record.Shot{Round: 0, Shooter: 1, Victim: 0, Hit: true, Registered: true, ObjectiveSBC: true, Appeal: "timeout"},
		record.Shot{Round: 0, Shooter: 1, Victim: 0, Hit: true, Registered: true, Appeal: "confirmed", Kill: true},
		record.Shot{Round: 0, Shooter: 1, Victim: -1},
		// Seat 0 hits seat 2 once in two shots.
		record.Shot{Round: 0, Shooter: 0, Victim: 2, Hit: true, Registered: true},
		record.Shot{Round: 0, Shooter: 0, Victim: -1},
		record.Kill{Round: 0, Killer: 1, Victim: 0},
		record.SBCReport{Round: 0, Reporter: 0, Shooter: 1},
		record.Round{Index: 0, Name: "r1", Map: "metro", Mode: "ctf", Technique: "policy=alc", Duration: time.Minute, Started: epoch, Ended: epoch.Add(time.Minute)},
		record.Answer{Round: 0, Seat: 0, Question: "fair", Kind: record.Fairness, Value: -3},
		record.Answer{Round: 0, Seat: 1, Question: "fair", Kind: record.Fairness, Value: 4},
		record.Answer{Round: 0, Seat: 0, Question: "cover", Kind: record.YesNo, Value: 1},
		record.Answer{Round: 0, Seat: 1, Question: "cover", Kind: record.YesNo, Value: 0},
		record.Answer{Round: 0, Seat: 0, Question: "notes", Kind: record.Text, Text: "laggy | odd"},
	}
	return recs
}

func TestSummariseFigures(t *testing.T) {
	rep, err := Summarise(people())
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Rounds) != 1 || len(rep.Techniques) != 1 {
		t.Fatalf("%d rounds and %d techniques, want 1 and 1", len(rep.Rounds), len(rep.Techniques))
	}
	// The round's own figures are the people's: the hit the bot (seat 2)
	// received is in its group's row alone.
	r := rep.Rounds[0]
	if r.Shots != 6 || r.Hits != 3 || r.HitAccuracy != 0.5 || r.HitsReceived != 2 || r.SBC != 1 || r.Appeals != 3 || r.Kills != 1 {
		t.Errorf("round figures %+v", r.Figures)
	}
	if r.Outcomes["denied_upheld"] != 1 || r.Outcomes["timeout"] != 1 || r.Outcomes["confirmed"] != 1 {
		t.Errorf("outcomes %v", r.Outcomes)
	}
	if !r.Ended.Equal(epoch.Add(time.Minute)) || r.Seats != 2 || r.Bots != 1 || len(r.Teams[0]) != 2 {
		t.Errorf("round %+v", r)
	}
	if len(r.Groups) != 3 || r.Groups[0].Bots || r.Groups[1].Bots || !r.Groups[2].Bots || rep.Subjects != SubjectsPeople {
		t.Fatalf("groups %+v, want people at 20 and 250 ms, then the bot at 250 ms", r.Groups)
	}
	low, high, bot := r.Groups[0], r.Groups[1], r.Groups[2]
	// Low-ping victims: two registered hits, one behind cover; the upheld
	// denial is no hit received. Their shooter hit one in two.
	if low.RTTms != 20 || low.Seats != 1 || low.HitsReceived != 2 || low.SBC != 1 || low.SBCPerHit != 0.5 ||
		low.Appeals != 3 || low.HitAccuracy != 0.5 || low.Deaths != 1 || low.SBCReports != 1 {
		t.Errorf("20 ms group %+v", low)
	}
	// The bot at 250 ms is counted apart from the person at 250 ms, and
	// out of the people's high-ping figures.
	if high.RTTms != 250 || high.Seats != 1 || high.Shots != 4 || high.Hits != 2 || high.HitAccuracy != 0.5 ||
		high.HitsReceived != 0 || high.Kills != 1 {
		t.Errorf("250 ms group %+v", high)
	}
	if bot.RTTms != 250 || bot.Seats != 1 || bot.HitsReceived != 1 || r.High.HitsReceived != 0 || r.High.Shots != 4 {
		t.Errorf("250 ms bots %+v, high-ping people %+v", bot, r.High)
	}
	if rep.AnswersNote != "" || len(rep.Questions) != 3 {
		t.Fatalf("answers: note %q, %d summaries", rep.AnswersNote, len(rep.Questions))
	}
	fair, cover, notes := rep.Questions[0], rep.Questions[1], rep.Questions[2]
	// Two answers give no 95% interval of the median; the yes share's
	// Wilson interval stays within 0 to 1.
	if fair.N != 2 || *fair.Mean != 0.5 || *fair.Median != 0.5 || fair.CILo != nil || fair.CINote != NTooSmall {
		t.Errorf("fairness %+v", fair)
	}
	if cover.Question != "cover" || *cover.Mean != 0.5 || cover.CILo == nil || *cover.CILo < 0 || *cover.CIHi > 1 ||
		notes.Mean != nil || notes.Texts[0] != "laggy | odd" {
		t.Errorf("yes/no %+v, text %+v", cover, notes)
	}
}

// TestSummariseBotsAnswerNothing: a simulated study's report says why it
// has no answers.
func TestSummariseBotsAnswerNothing(t *testing.T) {
	rep, err := Summarise(runPilot(t, 1))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Techniques[0].Seats != 4 {
		t.Errorf("technique of %d seats, want the study's 4", rep.Techniques[0].Seats)
	}
	if rep.AnswersNote != NoAnswersFromBots || len(rep.Questions) != 0 || len(rep.Rounds) != 2 || len(rep.Techniques) != 2 {
		t.Fatalf("report: note %q, %d answer summaries, %d rounds, %d techniques", rep.AnswersNote, len(rep.Questions), len(rep.Rounds), len(rep.Techniques))
	}
	if !strings.Contains(rep.Markdown(), "No answers: every seat was played by a bot") {
		t.Error("the Markdown report does not say the bots answered nothing")
	}
}

func TestSummariseRefuses(t *testing.T) {
	if _, err := Summarise(nil); err == nil {
		t.Error("no records: want an error")
	}
	if _, err := Summarise([]record.Record{record.Shot{}}); err == nil {
		t.Error("a shot before the study: want an error")
	}
}

func TestReportWrite(t *testing.T) {
	rep, err := Summarise(people())
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := rep.Write(dir); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{JSONFile, MarkdownFile, "results.json", "report.html", "study_rounds.csv", "study_techniques.csv"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	data, err := os.ReadFile(filepath.Join(dir, JSONFile))
	if err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if back.Seed != "9" || back.Rounds[0].SBCPerHit != rep.Rounds[0].SBCPerHit {
		t.Errorf("study.json reads back as %+v", back)
	}
	md, _ := os.ReadFile(filepath.Join(dir, MarkdownFile))
	for _, want := range []string{"| 20, people | 1 | 2 | 1 | 0.5000 | 2 | 1 | 0.5000 | 3 (confirmed 1, denied_upheld 1, timeout 1)", "| 1 | notes | text | 1 | laggy \\| odd |"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("study.md lacks %q:\n%s", want, md)
		}
	}
	res := rep.Results()
	if m := res.Conditions[0].Metrics; m["sbc_per_hit_rtt20ms"] != 0.5 || m["hit_accuracy_rtt250ms"] != 0.5 {
		t.Errorf("results metrics %v", m)
	}
}
