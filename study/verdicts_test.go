package study

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/lagkit/lagkit/record"
)

// verdictStudy plays two rounds of eight bots at a 150 ms round trip,
// one under time lag compensation and one under none.
const verdictStudy = `name = "verdicts"

[[seat]]
count = 8

[[technique]]
name = "tlc"

[[technique]]
name = "none"
policy = { name = "none" }

[[latency]]
latency_ms = 75

[[round]]
name = "rewound"
map = "metro"
mode = "tdm"
duration = "60s"
technique = "tlc"

[[round]]
name = "present"
map = "metro"
mode = "tdm"
duration = "60s"
technique = "none"
`

// TestSimulatedVerdicts: a simulated study's bots fire through the real
// client core, so every hitscan shot keeps its client's verdict beside
// the server's, and the report sets them side by side per technique.
// At a 150 ms round trip, time lag compensation tests what the shooter
// drew, and client and server mostly agree; without compensation the
// server refuses many of the hits the clients showed, far more than
// under tlc and more than it grants shots the clients showed missing.
func TestSimulatedVerdicts(t *testing.T) {
	s, err := Parse("verdicts.toml", []byte(verdictStudy))
	if err != nil {
		t.Fatal(err)
	}
	var mem record.Memory
	if err := Run(context.Background(), s, NewSimulation(epoch), &mem, Options{Seed: 11}); err != nil {
		t.Fatal(err)
	}
	judged := 0
	for _, r := range mem.Records {
		if sh, ok := r.(record.Shot); ok && sh.ClientVerdict != "" {
			judged++
		}
	}
	if judged == 0 {
		t.Fatal("no shot kept its client's verdict")
	}
	rep, err := Summarise(mem.Records)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Techniques) != 2 {
		t.Fatalf("%d techniques", len(rep.Techniques))
	}
	tlc, none := rep.Techniques[0].Verdicts, rep.Techniques[1].Verdicts
	t.Logf("tlc %+v\nnone %+v", tlc, none)
	if tlc.Shots < 100 || none.Shots < 100 {
		t.Fatalf("too few shots with a verdict to compare: tlc %d, none %d", tlc.Shots, none.Shots)
	}
	if tlc.Agreement < 0.9 {
		t.Errorf("tlc: agreement %.3f, want client and server to mostly agree", tlc.Agreement)
	}
	if none.Refused <= none.Granted || none.Refused <= 3*tlc.Refused || none.RefusedShare <= 2*tlc.RefusedShare {
		t.Errorf("none refuses %d client hits (%.3f of them) and grants %d; tlc refuses %d (%.3f): want none to refuse many more",
			none.Refused, none.RefusedShare, none.Granted, tlc.Refused, tlc.RefusedShare)
	}
	md := rep.Markdown()
	if !strings.Contains(md, "Client and server verdicts, shot by shot") || !strings.Contains(md, "| refused per client hit |") {
		t.Error("the Markdown report has no table of client and server verdicts")
	}
	res := rep.Results()
	for _, c := range res.Conditions {
		if _, ok := c.Metrics["verdict_agreement"]; !ok {
			t.Errorf("condition %s has no verdict_agreement", c.Name)
		}
	}
}

// TestVerdictsPeopleApart: verdicts are counted shot by shot (a
// shotgun's pellets once), shots without a client verdict are left out,
// and in a study with people the technique's own figures are the
// people's, the bot's shots in its group's row alone.
func TestVerdictsPeopleApart(t *testing.T) {
	recs := []record.Record{
		record.Study{Name: "live", Seed: 9, Started: epoch},
		record.Round{Index: 0, Name: "r1", Map: "metro", Mode: "tdm", Technique: "policy=tlc", Duration: time.Minute, Started: epoch},
		record.Participant{Seat: 0, Code: "A", Team: 0, Round: 0, LatencyMS: 10},
		record.Participant{Seat: 1, Team: 1, Bot: true, Round: 0, LatencyMS: 10},
		// Seat 0: a shotgun shot the client showed as a hit, one pellet of
		// three registered; a shot it showed as a hit, refused; a shot it
		// showed missing, granted; a projectile shot (no verdict).
		record.Shot{Round: 0, Shooter: 0, ShotTick: 5, Victim: -1, ClientVerdict: record.VerdictHit},
		record.Shot{Round: 0, Shooter: 0, ShotTick: 5, Victim: 1, Hit: true, Registered: true, ClientVerdict: record.VerdictHit},
		record.Shot{Round: 0, Shooter: 0, ShotTick: 5, Victim: -1, ClientVerdict: record.VerdictHit},
		record.Shot{Round: 0, Shooter: 0, ShotTick: 9, Victim: -1, ClientVerdict: record.VerdictHit},
		record.Shot{Round: 0, Shooter: 0, ShotTick: 12, Victim: 1, Hit: true, Registered: true, ClientVerdict: record.VerdictMiss},
		record.Shot{Round: 0, Shooter: 0, ShotTick: 14, Victim: 1, Hit: true, Registered: true},
		// The bot: a hit both agree on.
		record.Shot{Round: 0, Shooter: 1, ShotTick: 5, Victim: 0, Hit: true, Registered: true, ClientVerdict: record.VerdictHit},
	}
	rep, err := Summarise(recs)
	if err != nil {
		t.Fatal(err)
	}
	want := Verdicts{Shots: 3, ClientHits: 2, ServerHits: 2, Refused: 1, Granted: 1}
	want.done()
	if got := rep.Techniques[0].Verdicts; got != want {
		t.Errorf("the people's verdicts %+v, want %+v", got, want)
	}
	if got := rep.Rounds[0].Verdicts; got != want {
		t.Errorf("the round's verdicts %+v, want %+v", got, want)
	}
	var bots Verdicts
	for _, g := range rep.Techniques[0].Groups {
		if g.Bots {
			bots = g.Verdicts
		}
	}
	if bots.Shots != 1 || bots.Agreement != 1 {
		t.Errorf("the bots' verdicts %+v, want one shot agreed", bots)
	}
	// Reported twice, the shots are counted once.
	var s Summariser
	for _, r := range recs {
		s.Put(r)
	}
	s.Report()
	again, _ := s.Report()
	if got := again.Techniques[0].Verdicts; got != want {
		t.Errorf("reported again: %+v, want %+v", got, want)
	}
}
