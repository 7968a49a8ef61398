package study

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/lagkit/lagkit/experiment"
	"github.com/lagkit/lagkit/record"
)

// TestALCStudyAgreesWithExperiment: the alc preset's design, played by
// the study runner, gives the figures lagkit's alc experiment gives for
// the same matches, exactly. The experiment picks its 270 ms players
// from the seed and the preset fixes them by seat, so the test gives the
// schedule the seats the experiment's seed picks; every round of a
// technique plays the experiment's replicate of the same number under
// the same seed, and the study's figures come from its records alone.
//
// Hits, hits received, SBC and appeals agree exactly. Shots, and so
// accuracy, may differ by the shots still unjudged when the round ends:
// the experiment counts every ray fired (the server's counter), the study
// the shots judged (record.Shot), and under alc a hit waits up to twice
// low_ping_ms (100 ms) for its victim's word. A player has at most two
// such shots at the end (the rifle fires every 100 ms), so the study
// counts at most 2 x experiment.ALCPlayers fewer shots, and never more.
func TestALCStudyAgreesWithExperiment(t *testing.T) {
	if testing.Short() {
		t.Skip("plays four 30 s matches of experiment.ALCPlayers bots")
	}
	const seed, seconds = 1, 30
	e, err := experiment.Get("alc")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]map[string]float64{}
	for _, c := range experiment.Planned(e, experiment.Options{Seed: seed, Quick: true}) {
		if c.Replicate != 0 || (c.Condition != "tlc" && c.Condition != "alc") {
			continue
		}
		c.Params["minutes"] = seconds / 60.0
		res, err := e.RunCell(c)
		if err != nil {
			t.Fatal(err)
		}
		want[c.Condition] = res.Metrics
	}
	// The round trips the experiment's seed gives each player, by index.
	rtts := experiment.ALCLatency(experiment.ReplicateSeed(seed, 0))
	var rules strings.Builder
	for i := range experiment.ALCPlayers {
		fmt.Fprintf(&rules, "[[latency]]\nseats = [%d]\nlatency_ms = %v\n", i, rtts[i]/2)
	}
	text := fmt.Sprintf(`name = "alc"
[[seat]]
count = %d
[[technique]]
name = "tlc"
policy = { name = "tlc" }
[[technique]]
name = "alc"
policy = { name = "alc" }
%s
[[round]]
name = "tlc"
map = "metro"
mode = "ctf"
duration = "%ds"
technique = "tlc"
[[round]]
name = "alc"
map = "metro"
mode = "ctf"
duration = "%ds"
technique = "alc"
`, experiment.ALCPlayers, rules.String(), seconds, seconds)
	s, err := Parse("alc-test.toml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	var mem record.Memory
	if err := Run(context.Background(), s, NewSimulation(time.Unix(0, 0).UTC()), &mem, Options{Seed: seed}); err != nil {
		t.Fatal(err)
	}
	rep, err := Summarise(mem.Records)
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range rep.Techniques {
		name := strings.Fields(tr.Setting)[0][len("policy="):]
		m := want[name]
		var low, high GroupFigures
		for _, g := range tr.Groups {
			switch g.RTTms {
			case 20:
				low = g
			case 270:
				high = g
			}
		}
		const unjudged = 2 * experiment.ALCPlayers
		for _, c := range []struct {
			metric      string
			shots, hits int
			acc         float64
		}{
			{"", tr.Shots, tr.Hits, tr.HitAccuracy}, {"_high", high.Shots, high.Hits, high.HitAccuracy},
		} {
			shots, acc := m["shots"+c.metric], m["hit_accuracy"+c.metric]
			if d := shots - float64(c.shots); d < 0 || d > unjudged {
				t.Errorf("%s: study shots%s = %d, experiment %v: want at most %d fewer, never more", name, c.metric, c.shots, shots, unjudged)
			}
			if float64(c.hits) != m["hits"+c.metric] {
				t.Errorf("%s: study hits%s = %d, experiment %v", name, c.metric, c.hits, m["hits"+c.metric])
			}
			// hits/shots against hits/(shots+d) with d <= unjudged.
			if tol := acc * unjudged / float64(c.shots); math.Abs(c.acc-acc) > tol {
				t.Errorf("%s: study hit_accuracy%s = %v, experiment %v: want within %v", name, c.metric, c.acc, acc, tol)
			}
		}
		for _, c := range []struct {
			metric string
			got    float64
		}{
			{"hits_received", float64(tr.HitsReceived)}, {"sbc", float64(tr.SBC)}, {"sbc_per_hit", tr.SBCPerHit},
			{"hits_received_low", float64(low.HitsReceived)}, {"sbc_low", float64(low.SBC)}, {"sbc_per_hit_low", low.SBCPerHit},
			{"appeals", float64(tr.Appeals)}, {"confirmed", float64(tr.Outcomes["confirmed"])},
			{"denials_upheld", float64(tr.Outcomes["denied_upheld"])}, {"denials_refuted", float64(tr.Outcomes["denied_refuted"])},
			{"timeouts", float64(tr.Outcomes["timeout"])},
		} {
			if c.got != m[c.metric] {
				t.Errorf("%s: study %s = %v, experiment %v", name, c.metric, c.got, m[c.metric])
			}
		}
		t.Logf("%s: shots %d hits %d accuracy %.4f (high-ping %.4f), SBC %d of %d hits on low-ping victims (%.4f), appeals %d",
			name, tr.Shots, tr.Hits, tr.HitAccuracy, high.HitAccuracy, low.SBC, low.HitsReceived, low.SBCPerHit, tr.Appeals)
	}
	if len(rep.Techniques) != 2 {
		t.Fatalf("%d techniques in the report, want 2", len(rep.Techniques))
	}
}
