// Package worldtest provides small maps for tests of the packages that
// build on world.
package worldtest

import (
	"testing"

	"github.com/lagkit/lagkit/world"
)

// openMap is a 200 x 200 m field without boxes, with one spawn per team
// near the centre, so a player can walk straight for seconds without
// meeting anything.
const openMap = `{
  "name": "open",
  "bounds": {"min": [-100, -100, 0], "max": [100, 100, 10]},
  "boxes": [],
  "spawns": [
    {"team": 0, "pos": [0, 0, 0], "yaw": 0},
    {"team": 1, "pos": [0, 5, 0], "yaw": 0}
  ],
  "objectives": []
}`

// Open returns the open test map.
func Open(t testing.TB) *world.Map {
	t.Helper()
	m, err := world.Parse("open.json", []byte(openMap))
	if err != nil {
		t.Fatal(err)
	}
	return m
}
