package bots_test

import (
	"testing"
	"time"

	"github.com/lagkit/lagkit/match"
)

// TestBotsKeepMoving: in a minute of capture the flag on each shipped
// map, with corners rounded and headings wandering, no bot stands still
// for long (a stay in cover, a stand to fire) and every bot covers
// ground.
func TestBotsKeepMoving(t *testing.T) {
	for _, m := range []string{"metro", "arena", "courtyard"} {
		r, err := match.Run(match.Config{Map: m, Bots: 6, Duration: time.Minute, Seed: 5}, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range r.Players {
			if p.MaxStillS > 10 || p.DistanceM < 80 {
				t.Errorf("%s player %d: stood still for %.1f s, walked %.0f m in a minute", m, p.ID, p.MaxStillS, p.DistanceM)
			}
		}
	}
}
