package study

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/lagkit/lagkit/record"
)

const pilot = `name = "pilot"

[[seat]]
count = 4

[[technique]]
name = "tlc"

[[technique]]
name = "none"
policy = { name = "none" }

[[latency]]
latency_ms = 10

[[latency]]
seats = [1, 3]
latency_ms = 60

[[round]]
name = "plain"
map = "arena"
mode = "tdm"
duration = "8s"
interval = "1:00"
technique = "tlc"

[[round]]
name = "ready"
map = "arena"
mode = "ffa"
duration = "8s"
warmup = "2s"
ready = true
technique = "none"
latency = [{ seats = [0], latency_ms = 100 }]

[[question]]
id = "fair"
text = "How fair was it?"
kind = "fairness"
`

var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func runPilot(t *testing.T, seed uint64) []record.Record {
	t.Helper()
	s, err := Parse("pilot.toml", []byte(pilot))
	if err != nil {
		t.Fatal(err)
	}
	var mem record.Memory
	if err := Run(context.Background(), s, NewSimulation(epoch), &mem, Options{Seed: seed}); err != nil {
		t.Fatal(err)
	}
	return mem.Records
}

// TestRunRecords: the simulated study records the study, each round's
// start and end on the virtual clock, a participant per seat per round
// with its latency, each seat's connect and disconnect, shots and kills
// within the measured part, and paths at 20 Hz; bots answer nothing.
func TestRunRecords(t *testing.T) {
	recs := runPilot(t, 7)
	st, ok := recs[0].(record.Study)
	if !ok || st.Name != "pilot" || !st.Simulated || st.Seed != 7 || st.Schedule != pilot || !st.Started.Equal(epoch) {
		t.Fatalf("first record %+v, want the study", recs[0])
	}
	var rounds []record.Round
	parts := map[[2]int]record.Participant{}
	sessions := map[string]int{}
	shots, kills, answers := 0, 0, 0
	paths := map[[2]int]int{}
	for _, r := range recs[1:] {
		switch v := r.(type) {
		case record.Round:
			rounds = append(rounds, v)
		case record.Participant:
			parts[[2]int{v.Round, v.Seat}] = v
		case record.Session:
			sessions[v.Kind]++
		case record.Shot:
			shots++
			if v.At < 0 || v.At > 8*time.Second {
				t.Errorf("shot at %v, outside the measured 8 s", v.At)
			}
			if v.Shooter < 0 || v.Shooter > 3 || v.Victim < -1 || v.Victim > 3 {
				t.Errorf("shot %+v: seats outside 0..3", v)
			}
		case record.Kill:
			kills++
		case record.Path:
			paths[[2]int{v.Round, v.Seat}]++
			if v.At < 0 {
				t.Errorf("path point at %v, in the lead-in", v.At)
			}
		case record.Answer:
			answers++
		}
	}
	if len(rounds) != 4 {
		t.Fatalf("%d round records, want a start and an end for each of 2", len(rounds))
	}
	// Round 1 starts at once and lasts 8 s; the minute's interval, the
	// 2 s warm-up and the 3 s countdown pass before round 2 starts.
	wantTimes := []time.Time{epoch, epoch.Add(8 * time.Second), epoch.Add(73 * time.Second), epoch.Add(81 * time.Second)}
	for i, r := range rounds {
		at := r.Started
		if i%2 == 1 {
			at = r.Ended
		}
		if !at.Equal(wantTimes[i]) || r.Index != i/2 {
			t.Errorf("round record %d: %+v, want round %d at %v", i, r, i/2, wantTimes[i])
		}
	}
	if rounds[2].Technique != "none" || rounds[2].Setting != "policy=none delay=none time_warp=0s prediction=off replication=full display=interpolate" {
		t.Errorf("technique %q, setting %q", rounds[2].Technique, rounds[2].Setting)
	}
	wantLatency := [2][4]float64{{10, 60, 10, 60}, {100, 60, 10, 60}}
	for round := range 2 {
		for seat := range 4 {
			p, ok := parts[[2]int{round, seat}]
			if !ok || p.LatencyMS != wantLatency[round][seat] || !p.Bot {
				t.Errorf("round %d seat %d: participant %+v, want a bot at %v ms", round, seat, p, wantLatency[round][seat])
			}
			// 20 Hz while alive: at least 10 Hz over the 8 s.
			if n := paths[[2]int{round, seat}]; n < 80 {
				t.Errorf("round %d seat %d: %d path points in 8 s, want at least 10 a second", round, seat, n)
			}
		}
	}
	teams := 0
	for seat := range 4 {
		teams += parts[[2]int{0, seat}].Team
	}
	if teams != 2 {
		t.Errorf("tdm round: %d seats on team 1, want 2 of 4", teams)
	}
	if sessions[record.Connect] != 8 || sessions[record.Disconnect] != 8 {
		t.Errorf("sessions %v, want 8 connects and 8 disconnects", sessions)
	}
	if shots == 0 || kills == 0 || answers != 0 {
		t.Errorf("%d shots, %d kills, %d answers: want shots and kills, and no answers from bots", shots, kills, answers)
	}
}

// TestRunDeterministic: the same seed records the same study bit for
// bit; another seed plays other matches.
func TestRunDeterministic(t *testing.T) {
	a, b := runPilot(t, 3), runPilot(t, 3)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("two runs under seed 3 recorded different studies")
	}
	if reflect.DeepEqual(a[1:], runPilot(t, 4)[1:]) {
		t.Fatal("seeds 3 and 4 recorded the same rounds")
	}
}

func TestRunCancelled(t *testing.T) {
	s, err := Parse("pilot.toml", []byte(pilot))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var mem record.Memory
	err = Run(ctx, s, NewSimulation(epoch), &mem, Options{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want one wrapping context.Canceled", err)
	}
	// The study, its techniques, its questions and its seats' orders of
	// techniques, no round.
	for _, r := range mem.Records {
		switch r.(type) {
		case record.Study, record.Technique, record.SeatOrder, record.Question:
		default:
			t.Errorf("record %T of a study cancelled before its first round", r)
		}
	}
	if n := 1 + len(s.Techniques) + len(s.Instruments()) + len(s.Seats()); len(mem.Records) != n {
		t.Errorf("%d records, want the study's, its techniques, its questions and %d seat orders", len(mem.Records), len(s.Seats()))
	}
}

// TestSimulationRefusesMixedJitter: the simulation driver gives every
// seat of a round one jitter and loss, and says so rather than play
// something else.
func TestSimulationRefusesMixedJitter(t *testing.T) {
	text := pilot + "\n[[latency]]\nseats = [2]\nlatency_ms = 10\njitter_ms = 5\n"
	s, err := Parse("pilot.toml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	var mem record.Memory
	err = Run(context.Background(), s, NewSimulation(epoch), &mem, Options{})
	if err == nil || !strings.Contains(err.Error(), "one jitter and loss") {
		t.Fatalf("error %v, want the driver's refusal", err)
	}
}

// TestTargetRTTRecorded: a round whose seats are held at a round trip
// plays it (a simulated link adds nothing of its own, so the target is
// injected whole), and the participants, the network records and the
// report's manipulation check say what was targeted, injected and
// measured.
func TestTargetRTTRecorded(t *testing.T) {
	text := strings.Replace(pilot, "latency = [{ seats = [0], latency_ms = 100 }]", "latency = [{ seats = [0], target_rtt_ms = 180 }]", 1)
	s, err := Parse("pilot.toml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	var mem record.Memory
	if err := Run(context.Background(), s, NewSimulation(epoch), &mem, Options{Seed: 3}); err != nil {
		t.Fatal(err)
	}
	var held []record.Network
	for _, r := range mem.Records {
		switch r := r.(type) {
		case record.Participant:
			if want := map[bool]float64{true: 180}[r.Round == 1 && r.Seat == 0]; r.TargetRTTMS != want {
				t.Errorf("participant %+v: target %v, want %v", r, r.TargetRTTMS, want)
			}
		case record.Network:
			if r.TargetRTTMS > 0 {
				held = append(held, r)
			}
		}
	}
	if len(held) != 1 || held[0].Seat != 0 || held[0].Round != 1 {
		t.Fatalf("held seats %+v, want seat 0 in round 2", held)
	}
	n := held[0]
	if inj := n.DelayUpMS + n.DelayDownMS; inj < 175 || inj > 185 || n.RTTMeanMS < 170 || n.RTTMeanMS > 215 {
		t.Errorf("seat 0 held at 180 ms: injected %.1f ms, measured %.1f ms", inj, n.RTTMeanMS)
	}
	rep, err := Summarise(mem.Records)
	if err != nil {
		t.Fatal(err)
	}
	if md := rep.Markdown(); !strings.Contains(md, "| 2 | none | 0 | 180 | ") {
		t.Errorf("the report's network table lacks the held seat:\n%s", md[strings.Index(md, "## Network"):])
	}
	if _, err := Parse("bad.toml", []byte(strings.Replace(pilot, "latency_ms = 100 }", "latency_ms = 100, target_rtt_ms = 150 }", 1))); err == nil ||
		!strings.Contains(err.Error(), "target_rtt_ms: with latency_ms 100: give one") {
		t.Errorf("a rule with both: %v", err)
	}
}
