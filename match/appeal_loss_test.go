package match

import (
	"testing"
	"time"

	"github.com/lagkit/lagkit/lagcomp"
	"github.com/lagkit/lagkit/shooter/mode"
	"github.com/lagkit/lagkit/wire"
)

// TestLostAppealsAreSentAgain: under alc with 20 ms round trips and 20%
// loss each way, a victim's answer to a provisional hit that the network
// loses is sent again within the appeal's window, so that loss rarely
// turns into silence, which [alc] counts as a confirmation. Answered
// once, 43 of 162 appeals (27%) timed out here; with the copies 10 of
// 157 (6%) do, mostly hits whose event arrived too late to answer.
func TestLostAppealsAreSentAgain(t *testing.T) {
	if testing.Short() {
		t.Skip("a minute of simulated play")
	}
	res, err := Run(Config{Map: "arena", Mode: mode.TDM, Bots: 8, Seed: 3, Duration: 2 * time.Minute,
		Policy: lagcomp.Config{Name: "alc"}, BaseRTTms: 20, Loss: 0.2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	appealed, timedOut := 0, 0
	for _, s := range res.Shots {
		if s.Appealed {
			appealed++
			if s.Outcome == wire.OutcomeTimeout {
				timedOut++
			}
		}
	}
	t.Logf("%d appeals, %d timed out", appealed, timedOut)
	if appealed < 50 {
		t.Fatalf("%d appeals: too few to tell", appealed)
	}
	if timedOut*10 > appealed {
		t.Errorf("%d of %d appeals timed out, want at most 10%%", timedOut, appealed)
	}
}
