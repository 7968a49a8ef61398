package reckoning

import (
	"slices"
	"testing"

	"github.com/lagkit/lagkit/geom"
)

// TestReplicationRegistry: every listed name builds its replication, full
// sends every state, dead reckons at the default threshold, led judges
// each team against its own shipped trend map, and unknown names and
// maps without trend maps are refused.
func TestReplicationRegistry(t *testing.T) {
	if got := Replications.Names(); !slices.Equal(got, []string{"full", "dead", "led"}) {
		t.Fatalf("names %v", got)
	}
	for _, name := range Replications.Names() {
		r, err := NewReplication(name, "metro")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		switch name {
		case "full":
			if r.Policy != nil || r.Teams != nil {
				t.Errorf("full: %+v, want every state sent", r)
			}
		case "dead":
			if d, ok := r.Policy.(Dead); !ok || d.Eta(geom.Vec3{}, geom.Vec3{}) != DefaultEta || r.Teams != nil {
				t.Errorf("dead: %+v, want dead reckoning at the default threshold", r)
			}
		case "led":
			all, ok := r.Policy.(Led)
			if !ok || all.Trend == nil || all.Trend.Team != -1 || len(r.Teams) != 2 {
				t.Fatalf("led: %+v, want led reckoning with two team policies", r)
			}
			for team, p := range r.Teams {
				if l, ok := p.(Led); !ok || l.Trend == nil || l.Trend.Team != team {
					t.Errorf("led team %d: %+v, want its own shipped trend map", team, p)
				}
			}
		}
	}
	for _, c := range []struct{ name, mapName string }{{"psychic", "metro"}, {"led", "nowhere"}, {"led", "my-map.json"}, {"", "metro"}} {
		if _, err := NewReplication(c.name, c.mapName); err == nil {
			t.Errorf("replication %q on %q accepted", c.name, c.mapName)
		}
	}
}
