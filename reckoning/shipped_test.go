package reckoning_test

import (
	"testing"

	"github.com/lagkit/lagkit/reckoning"
	"github.com/lagkit/lagkit/world"
)

// TestShippedTrendMaps checks that every shipped map has trend maps for
// every team and for each of teams 0 and 1, and that they cover the map
// and have trends where players walk.
func TestShippedTrendMaps(t *testing.T) {
	for _, name := range world.Names() {
		m, err := world.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, team := range []int{-1, 0, 1} {
			tm, err := reckoning.Shipped(name, team)
			if err != nil {
				t.Errorf("%s team %d: %v", name, team, err)
				continue
			}
			if tm.Map != m.Name || tm.Team != team || tm.NX != reckoning.DefaultGrid || tm.NY != reckoning.DefaultGrid {
				t.Errorf("%s team %d: map %q team %d grid %d x %d", name, team, tm.Map, tm.Team, tm.NX, tm.NY)
			}
			if tm.Bounds.Min.X != m.Bounds.Min.X || tm.Bounds.Min.Y != m.Bounds.Min.Y ||
				tm.Bounds.Max.X != m.Bounds.Max.X || tm.Bounds.Max.Y != m.Bounds.Max.Y {
				t.Errorf("%s team %d: bounds %v, map's %v", name, team, tm.Bounds, m.Bounds)
			}
			// Players leave their spawns, so the cells there have a trend.
			found := 0
			for _, sp := range m.SpawnsFor(max(team, 0)) {
				if _, ok := tm.Lookup(sp.Pos); ok {
					found++
				}
			}
			if found == 0 {
				t.Errorf("%s team %d: no trend at any spawn", name, team)
			}
		}
	}
	if _, err := reckoning.Shipped("nowhere", -1); err == nil {
		t.Error("a trend map for an unknown map")
	}
}
