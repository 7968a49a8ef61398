package match

import (
	"bytes"
	"testing"
	"time"

	"github.com/lagkit/lagkit/reckoning"
)

// TestPathsRecorded checks that a match with Paths set writes a path
// file with every player, on its team, at the path rate.
func TestPathsRecorded(t *testing.T) {
	var buf bytes.Buffer
	if _, err := Run(Config{Bots: 4, Duration: 5 * time.Second, Seed: 3, Paths: &buf}, nil); err != nil {
		t.Fatal(err)
	}
	samples, err := reckoning.ReadPaths("paths.csv", &buf)
	if err != nil {
		t.Fatal(err)
	}
	per := map[int][]reckoning.Sample{}
	for _, s := range samples {
		per[s.Player] = append(per[s.Player], s)
		if s.Team != s.Player%2 {
			t.Errorf("player %d on team %d", s.Player, s.Team)
		}
	}
	if len(per) != 4 {
		t.Fatalf("paths of %d players, want 4", len(per))
	}
	// 64 Hz ticks recorded every third tick: 46.875 ms apart.
	for id, s := range per {
		for i := 1; i < len(s); i++ {
			if dt := s[i].T - s[i-1].T; dt < 46875*time.Microsecond {
				t.Fatalf("player %d: samples %v apart", id, dt)
			}
		}
		if len(s) < 90 {
			t.Errorf("player %d: %d samples in 5 s, want about 106", id, len(s))
		}
	}
	if _, err := Run(Config{Bots: 2, Duration: time.Second, Paths: &buf, PathRate: 65}, nil); err == nil {
		t.Error("a path rate above the tick rate was accepted")
	}
}
