package match

import (
	"testing"
	"time"

	"github.com/lagkit/lagkit/lagcomp"
)

// TestSightsAreTheVictimsJudgment: in a simulated match the victims'
// judgments of the hits on them reach the server through the wire
// (server.ShotRecord.Sight, what a study stores), and each is the one
// the victim's client made (Shot.SBC, read from the client), over
// links that lose a tenth of the packets: every registered hit is told
// to its victim, no miss is, and all but the hits in the match's last
// round trip are judged.
func TestSightsAreTheVictimsJudgment(t *testing.T) {
	const d = 30 * time.Second
	res, err := Run(Config{Map: "metro", Mode: "ctf", Bots: 6, Duration: d, Seed: 3, Policy: lagcomp.Config{Name: "tlc"},
		Latency: map[int]float64{0: 270, 1: 270, 2: 270}, Loss: 0.1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	told, known, sbc := 0, 0, 0
	for _, s := range res.Shots {
		switch {
		case s.Victim < 0 && s.Told:
			t.Fatalf("a miss told: %+v", s)
		case s.Registered && !s.Told:
			t.Fatalf("a registered hit not told: %+v", s)
		case !s.Told:
			continue
		}
		told++
		if !s.Sight.Known {
			if s.Time < d-time.Second {
				t.Errorf("hit at %v never judged", s.Time)
			}
			continue
		}
		known++
		if s.Sight.SBC != s.SBC {
			t.Errorf("hit at %v: the server has the victim's judgment as %v, the client made %v", s.Time, s.Sight.SBC, s.SBC)
		}
		if s.SBC {
			sbc++
		}
	}
	t.Logf("%d hits told, %d judged, %d behind cover", told, known, sbc)
	if told < 10 || sbc == 0 {
		t.Fatalf("%d hits told, %d behind cover: the match tests nothing", told, sbc)
	}
}
