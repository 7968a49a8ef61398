package study

import (
	"testing"

	"github.com/lagkit/lagkit/record"
)

// TestRunRecordsDuels: a simulated study asks its matches for their
// duels (match.Config.Duels, off in a plain match) and records them.
func TestRunRecordsDuels(t *testing.T) {
	duels := 0
	for _, r := range runPilot(t, 7) {
		if d, ok := r.(record.Duel); ok {
			duels++
			if d.A < 0 || d.A > 3 || d.B < 0 || d.B > 3 || d.A == d.B {
				t.Errorf("duel %+v: seats outside 0..3", d)
			}
		}
	}
	if duels == 0 {
		t.Error("the simulated study recorded no duels")
	}
}
