package study

import (
	"strings"
	"testing"
	"time"

	"github.com/lagkit/lagkit/record"
)

// TestReportDropoutsAndCutRounds: a participant who left mid-match
// keeps the round they played; in the round a bot took their seat the
// seat counts as a bot's, its shots in the bots' figures; a round a
// lost game server cut short counts nowhere. Both are listed.
func TestReportDropoutsAndCutRounds(t *testing.T) {
	recs := people()
	recs = append(recs,
		record.Round{Index: 1, Name: "r2", Map: "metro", Mode: "ctf", Technique: "policy=alc", Duration: time.Minute, Started: epoch.Add(2 * time.Minute)},
		record.Participant{Seat: 0, Code: "A", Team: 0, Round: 1, LatencyMS: 10},
		// Seat 1's person left 2 s into the round: recorded again as
		// stood in from then.
		record.Participant{Seat: 1, Code: "B", Team: 1, Round: 1, LatencyMS: 125, StandIn: true, StandInAt: 2 * time.Second},
		record.Participant{Seat: 2, Team: 0, Bot: true, Round: 1, LatencyMS: 125},
		record.Shot{Round: 1, Shooter: 1, Victim: 0, Hit: true, Registered: true},
		record.Shot{Round: 1, Shooter: 0, Victim: -1},
		record.Round{Index: 1, Name: "r2", Map: "metro", Mode: "ctf", Technique: "policy=alc", Duration: time.Minute, Started: epoch.Add(2 * time.Minute), Ended: epoch.Add(3 * time.Minute)},
		// The third round's game server was lost.
		record.Round{Index: 2, Name: "r3", Map: "metro", Mode: "ctf", Technique: "policy=alc", Duration: time.Minute, Started: epoch.Add(4 * time.Minute), Cut: true},
		record.Participant{Seat: 0, Code: "A", Team: 0, Round: 2, LatencyMS: 10},
		record.Shot{Round: 2, Shooter: 0, Victim: 2, Hit: true, Registered: true},
	)
	rep, err := Summarise(recs)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Rounds) != 2 || len(rep.CutRounds) != 1 || rep.CutRounds[0].Round != 2 || rep.CutRounds[0].Name != "r3" {
		t.Fatalf("rounds %d, cut %+v", len(rep.Rounds), rep.CutRounds)
	}
	if len(rep.StandIns) != 1 || rep.StandIns[0] != (StandIn{Round: 1, Seat: 1, Code: "B", FromS: 2}) {
		t.Errorf("stand-ins %+v", rep.StandIns)
	}
	r := rep.Rounds[1]
	// The people's figures are seat 0's alone: one shot, no hit; seat
	// 1's hit is the bots'.
	if r.Bots != 2 || r.Shots != 1 || r.Hits != 0 || r.HitsReceived != 1 {
		t.Errorf("the stood-in round: bots %d, figures %+v", r.Bots, r.Figures)
	}
	// The technique pools the first round whole and the second's
	// person: the cut round's hit counts nowhere.
	if tech := rep.Techniques[0]; tech.Shots != 7 || tech.Hits != 3 {
		t.Errorf("technique figures %+v", tech.Figures)
	}
	md := rep.Markdown()
	for _, want := range []string{"## Dropouts and lost game servers", "| 3 | r3 | policy=alc |", "| 2 | 1 | B | 2 s into the round |"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
}

// TestReportTargetRoundTrip: seats held at a target round trip count at
// that round trip, whatever was injected to hold it (the difference from
// each one's own network): seat 0 at 40 ms is a low-ping victim, seat 1
// at 200 ms a high-ping shooter. By the one-way latency the schedule
// injects, 0 under a target, both were counted low-ping at 0 ms.
func TestReportTargetRoundTrip(t *testing.T) {
	recs := []record.Record{
		record.Study{Name: "online", Seed: 3, Started: epoch},
		record.Round{Index: 0, Name: "r1", Map: "metro", Mode: "tdm", Technique: "policy=alc", Duration: time.Minute, Started: epoch},
		record.Participant{Seat: 0, Code: "A", Team: 0, Round: 0, TargetRTTMS: 40},
		record.Participant{Seat: 1, Code: "B", Team: 1, Round: 0, TargetRTTMS: 200},
		record.Shot{Round: 0, Shooter: 1, Victim: 0, Hit: true, Registered: true, ObjectiveSBC: true},
		record.Shot{Round: 0, Shooter: 1, Victim: -1},
		record.Round{Index: 0, Name: "r1", Map: "metro", Mode: "tdm", Technique: "policy=alc", Duration: time.Minute, Started: epoch, Ended: epoch.Add(time.Minute)},
	}
	rep, err := Summarise(recs)
	if err != nil {
		t.Fatal(err)
	}
	r := rep.Rounds[0]
	var rtts []float64
	for _, g := range r.Groups {
		rtts = append(rtts, g.RTTms)
	}
	if len(rtts) != 2 || rtts[0] != 40 || rtts[1] != 200 {
		t.Errorf("groups at round trips %v, want 40 and 200 ms", rtts)
	}
	if r.Low.HitsReceived != 1 || r.Low.SBC != 1 || r.Low.Shots != 0 {
		t.Errorf("low-ping figures %+v, want seat 0's one hit received, behind cover", r.Low)
	}
	if r.High.Shots != 2 || r.High.HitsReceived != 0 {
		t.Errorf("high-ping figures %+v, want seat 1's two shots", r.High)
	}
}
