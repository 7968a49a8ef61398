package study

import (
	"strings"
	"testing"

	"github.com/lagkit/lagkit/match"
)

// TestClientPredictionOff: a technique with client_prediction = false
// names it in its record, and the match a round of it plays has every
// client show its own player unpredicted; without it, every client
// predicts and the technique's record is as before.
func TestClientPredictionOff(t *testing.T) {
	src := strings.Replace(pilot, "[[technique]]\nname = \"none\"", "[[technique]]\nname = \"none\"\nclient_prediction = false", 1)
	s, err := Parse("pilot.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range s.Plans() {
		off := p.Technique.Name == "none"
		if got := strings.Contains(p.Technique.String(), "client_prediction=off"); got != off {
			t.Errorf("round %d (%s): technique %q", p.Index, p.Technique.Name, p.Technique.String())
		}
		mc, err := p.MatchConfig(len(s.Seats()), 1)
		if err != nil {
			t.Fatal(err)
		}
		mc.Duration = p.LeadIn() + 2e9
		res, err := match.Run(mc, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, pr := range res.Players {
			if pr.Predicting == off {
				t.Errorf("round %d (%s): player %d predicting %v", p.Index, p.Technique.Name, pr.ID, pr.Predicting)
			}
		}
	}
}
