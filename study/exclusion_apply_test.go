package study

import (
	"reflect"
	"testing"

	"github.com/lagkit/lagkit/record"
)

// TestExclusionRulesApplied: each of the four rules excludes the one
// participant it is about, with its value, its limit and why, and no
// one else: seat 0 measured 60 ms off its 200 ms target in its third
// round (15 ms off in its first is within the limit), seat 1 answered
// three attention checks other than instructed, seat 2 played two of the
// session's four rounds, seat 3's page drew 20 frames a second (its
// median). Seat 4 passes every rule; the bot's seat, far off on each,
// is not judged; a round trip with no samples, or in a round with no
// target, is not judged against one.
func TestExclusionRulesApplied(t *testing.T) {
	r := &Report{Subjects: SubjectsPeople, Sessions: []SessionInfo{{Rounds: 4, Seats: 6}}}
	for seat := range 6 {
		rounds := 4
		if seat == 2 {
			rounds = 2
		}
		for round := 1; round <= rounds; round++ {
			r.Participants = append(r.Participants, ParticipantRound{Round: round, Seat: seat, Code: string(rune('A' + seat)), Bot: seat == 5})
			frame := 10.0 // ms: 100 frames a second
			if seat == 3 || seat == 5 {
				frame = 50 // 20 frames a second
			}
			r.Frames = append(r.Frames, FrameRow{Round: round, Seat: seat, Frames: 1000, MeanMS: frame})
		}
	}
	attention := CheckResult{Question: "attention", Check: CheckAttention}
	for seat := range 5 {
		passed := 4
		if seat == 1 {
			passed = 1
		}
		attention.Participants = append(attention.Participants, CheckParticipant{Seat: seat, Answered: 4, Passed: passed})
	}
	r.Checks = []CheckResult{attention}
	net := func(round, seat int, target, measured float64, samples int) NetworkRow {
		return NetworkRow{Network: record.Network{Round: round, Seat: seat, TargetRTTMS: target, RTTMeanMS: measured, RTTSamples: samples}}
	}
	r.Network = []NetworkRow{
		net(0, 0, 80, 95, 100), net(2, 0, 200, 260, 100),
		net(0, 1, 80, 500, 0),     // no samples: nothing measured
		net(0, 2, 0, 300, 100),    // no target
		net(0, 4, 80, 100, 100),   // 20 ms off: within
		net(0, 5, 80, 400, 100),   // a bot's
		net(1, 4, 200, 175, 100),  // 25 ms under: within
		net(3, 4, 200, 229.9, 50), // within
	}
	ex := r.exclude(&Exclusion{FailedChecks: 2, MinRounds: 0.75, MinFPS: 30, MaxRTTErrorMS: 30})
	want := []Excluded{
		{Seat: 0, Code: "A", Rule: RuleMaxRTTError, Value: 60, Limit: 30, Detail: "round 3: measured 260.0 ms against a target of 200 ms"},
		{Seat: 1, Code: "B", Rule: RuleFailedChecks, Value: 3, Limit: 2, Detail: "3 attention checks answered other than instructed"},
		{Seat: 2, Code: "C", Rule: RuleMinRounds, Value: 0.5, Limit: 0.75, Detail: "played 2 of 4 rounds"},
		{Seat: 3, Code: "D", Rule: RuleMinFPS, Value: 20, Limit: 30, Detail: "median 20.0 frames a second over 4 rounds"},
	}
	if ex.Judged != 5 || !reflect.DeepEqual(ex.Seats, []int{0, 1, 2, 3}) || !reflect.DeepEqual(ex.Excluded, want) {
		t.Errorf("judged %d, excluded seats %v:\n%+v\nwant 5 judged, seats 0 to 3:\n%+v", ex.Judged, ex.Seats, ex.Excluded, want)
	}
	// Each rule alone leaves the others' participants in.
	for _, c := range []struct {
		rules Exclusion
		seat  int
	}{{Exclusion{MaxRTTErrorMS: 30}, 0}, {Exclusion{FailedChecks: 2}, 1}, {Exclusion{MinRounds: 0.75}, 2}, {Exclusion{MinFPS: 30}, 3}} {
		if ex := r.exclude(&c.rules); !reflect.DeepEqual(ex.Seats, []int{c.seat}) {
			t.Errorf("rules %+v exclude seats %v, want %d alone", c.rules, ex.Seats, c.seat)
		}
	}
}
