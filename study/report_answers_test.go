package study

import (
	"math"
	"testing"
	"time"

	"github.com/lagkit/lagkit/record"
)

// TestRollbackBands: hits on people and their reports fall in 5 cm
// bands, the last open; a hit on a bot and a bot's report count in none,
// and a report about no hit in no band.
func TestRollbackBands(t *testing.T) {
	for _, c := range []struct {
		m    float64
		band int
	}{{0, 0}, {-1, 0}, {math.NaN(), 0}, {0.049, 0}, {0.05, 1}, {0.2499, 4}, {0.25, 5}, {0.4999, 9}, {0.5, 10}, {7, 10}} {
		if got := binOf(c.m); got != c.band {
			t.Errorf("binOf(%v) = %d, want %d", c.m, got, c.band)
		}
	}
	recs := []record.Record{
		record.Study{Name: "s", Started: epoch},
		record.Round{Index: 0, Name: "r", Technique: "policy=tlc", Started: epoch},
		record.Participant{Seat: 0, Code: "A", Round: 0, LatencyMS: 10},
		record.Participant{Seat: 1, Code: "B", Round: 0, LatencyMS: 125},
		record.Participant{Seat: 2, Bot: true, Round: 0, LatencyMS: 10},
		// A rejoin records seat 1 again: it stays one seat of its group.
		record.Participant{Seat: 1, Code: "B", Round: 0, LatencyMS: 125},
	}
	for i := range 12 {
		recs = append(recs, record.Shot{Round: 0, Shooter: 1, Victim: 0, Hit: true, Registered: true, RewindMS: 250, RollbackM: 0.26})
		if i%3 == 0 {
			recs = append(recs, record.SBCReport{Round: 0, Reporter: 0, Shooter: 1, RollbackM: 0.26})
		}
	}
	recs = append(recs,
		record.Shot{Round: 0, Shooter: 1, Victim: 2, Hit: true, Registered: true, RewindMS: 250, RollbackM: 0.26},
		record.SBCReport{Round: 0, Reporter: 2, Shooter: 1, RollbackM: 0.26},
		record.SBCReport{Round: 0, Reporter: 0, Shooter: -1},
		record.Round{Index: 0, Name: "r", Technique: "policy=tlc", Ended: epoch.Add(time.Minute)},
	)
	rep, err := Summarise(recs)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Rollback) != 2*nBins {
		t.Fatalf("%d bands, want %d for the technique and all", len(rep.Rollback), 2*nBins)
	}
	for _, b := range rep.Rollback {
		want := [2]int{}
		if b.FromM == 0.25 {
			want = [2]int{12, 4}
		}
		if [2]int{b.Hits, b.Reports} != want {
			t.Errorf("band %+v: want %v hits and reports", b, want)
		}
	}
	if at, ok := rep.PeakRollback("policy=tlc"); !ok || at != 0.275 {
		t.Errorf("peak at %v (%v), want 0.275", at, ok)
	}
	tech := rep.Techniques[0]
	// The bot's hit received and its report count in its own group, not
	// in the people's figures, low-ping or overall.
	if tech.Seats != 2 || len(tech.Groups) != 3 || !tech.Groups[1].Bots || tech.Groups[2].Seats != 1 || tech.SBCReports != 5 || tech.RewoundHits != 13 ||
		math.Abs(tech.RollbackMeanM-0.26) > 1e-12 || tech.High.HitAccuracy != 1 || tech.Low.HitsReceived != 12 {
		t.Errorf("technique %+v", tech)
	}
	if rep.Rounds[0].Teams[0] == nil || len(rep.Rounds[0].Teams[0]) != 3 {
		t.Errorf("teams %v: the rejoin counted twice", rep.Rounds[0].Teams)
	}
	if _, ok := (&Report{}).PeakRollback("x"); ok {
		t.Error("a report without bands has a peak")
	}
}

// TestNoRoundsNote: a study that played no round says so rather than
// blaming bots.
func TestNoRoundsNote(t *testing.T) {
	rep, err := Summarise([]record.Record{record.Study{Name: "empty"}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.AnswersNote != "no answers: the study played no rounds" {
		t.Errorf("note %q", rep.AnswersNote)
	}
	if err := rep.Write(t.TempDir()); err != nil {
		t.Errorf("the report of an empty study: %v", err)
	}
}
