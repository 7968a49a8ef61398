package study

import (
	"fmt"
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

// TestReportLowPingFromSchedule: the report's low-ping round trip is the
// one the schedule's alc judges victims apart at: at low_ping_ms 100 a
// seat held at 80 ms is a low-ping victim, at the default 50 it is not.
func TestReportLowPingFromSchedule(t *testing.T) {
	for _, c := range []struct {
		policy  string
		lowPing float64
		low     int
	}{{`{ name = "alc", low_ping_ms = 100 }`, 100, 1}, {`{ name = "alc" }`, 50, 0}} {
		sched := "name = \"online\"\n[[technique]]\nname = \"alc\"\npolicy = " + c.policy + "\n"
		recs := []record.Record{
			record.Study{Name: "online", Seed: 3, Started: epoch, Schedule: sched},
			record.Round{Index: 0, Name: "r1", Map: "metro", Mode: "tdm", Technique: "alc", Duration: time.Minute, Started: epoch},
			record.Participant{Seat: 0, Code: "A", Team: 0, Round: 0, TargetRTTMS: 80},
			record.Participant{Seat: 1, Code: "B", Team: 1, Round: 0, TargetRTTMS: 200},
			record.Shot{Round: 0, Shooter: 1, Victim: 0, Hit: true, Registered: true},
			record.Round{Index: 0, Name: "r1", Map: "metro", Mode: "tdm", Technique: "alc", Duration: time.Minute, Started: epoch, Ended: epoch.Add(time.Minute)},
		}
		rep, err := Summarise(recs)
		if err != nil {
			t.Fatal(err)
		}
		if rep.LowPingMS != c.lowPing || rep.Rounds[0].Low.HitsReceived != c.low || rep.Techniques[0].Low.HitsReceived != c.low {
			t.Errorf("%s: low ping %v ms, low-ping hits received %d (round) %d (technique); want %v ms, %d",
				c.policy, rep.LowPingMS, rep.Rounds[0].Low.HitsReceived, rep.Techniques[0].Low.HitsReceived, c.lowPing, c.low)
		}
		if md := rep.Markdown(); !strings.Contains(md, fmt.Sprintf("round trip up to %v ms", c.lowPing)) {
			t.Errorf("%s: the markdown does not say the low-ping round trip is %v ms", c.policy, c.lowPing)
		}
	}
}

// TestReportLowPingRoundsOfEachSeat: in a study that crosses latency
// with technique, a seat is low-ping in some rounds of a technique and
// high-ping in others; its low-ping rounds are its share of the primary
// outcome. It used to count only where every round of both techniques
// was low-ping, which left such a study no pair to test.
func TestReportLowPingRoundsOfEachSeat(t *testing.T) {
	sched := "name = \"crossed\"\n[[technique]]\nname = \"tlc\"\n[[technique]]\nname = \"alc\"\npolicy = { name = \"alc\", low_ping_ms = 100 }\n"
	recs := []record.Record{record.Study{Name: "crossed", Seed: 3, Started: epoch, Schedule: sched}}
	for i, tech := range []string{"tlc", "alc", "tlc", "alc"} {
		low, high := i/2, 1-i/2 // seat 0 at 80 ms in the first two rounds, seat 1 in the last two
		at := epoch.Add(time.Duration(i) * 2 * time.Minute)
		recs = append(recs,
			record.Round{Index: i, Name: fmt.Sprintf("r%d", i+1), Map: "metro", Mode: "tdm", Technique: tech, Duration: time.Minute, Started: at},
			record.Participant{Seat: low, Code: fmt.Sprint("P", low), Team: 0, Round: i, TargetRTTMS: 80},
			record.Participant{Seat: high, Code: fmt.Sprint("P", high), Team: 1, Round: i, TargetRTTMS: 200},
			// The high-ping seat hits the low-ping one behind cover
			// under tlc, in the open under alc.
			record.Shot{Round: i, Shooter: high, Victim: low, Hit: true, Registered: true, ObjectiveSBC: tech == "tlc"},
			record.Shot{Round: i, Shooter: high, Victim: -1},
			record.Round{Index: i, Name: fmt.Sprintf("r%d", i+1), Map: "metro", Mode: "tdm", Technique: tech, Duration: time.Minute, Started: at, Ended: at.Add(time.Minute)},
		)
	}
	rep, err := Summarise(recs)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Main == nil || len(rep.Main.Pairs) != 1 {
		t.Fatalf("main outcome %+v, want one pair of techniques", rep.Main)
	}
	p := rep.Main.Pairs[0]
	if len(p.Seats) != 2 || p.XA[0] != 1 || p.XA[1] != 1 || p.XB[0] != 0 || p.XB[1] != 0 {
		t.Errorf("pair %s–%s: seats %v, SBC per hit %v under %s and %v under %s; want both seats, 1 and 0", p.A, p.B, p.Seats, p.XA, p.A, p.XB, p.B)
	}
	for _, tech := range rep.Techniques {
		iv, _ := tech.Interval("hit_accuracy_high_ping")
		if iv.N != 2 || iv.Estimate != 0.5 {
			t.Errorf("%s: high-ping accuracy %v over %d participants, want 0.5 over 2", tech.Name, iv.Estimate, iv.N)
		}
	}
}
