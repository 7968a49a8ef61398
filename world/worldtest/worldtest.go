// Package worldtest provides small maps for tests of the packages that
// build on world.
package worldtest

import (
	"testing"

	"github.com/lagkit/lagkit/world"
)

// Open returns the open field (world.Field): 200 x 200 m without
// boxes, so a player can walk straight for seconds without meeting
// anything.
func Open(t testing.TB) *world.Map {
	t.Helper()
	return world.Field()
}

// coverMap is the open field with two boxes 10 m along +X from the
// origin, for shots behind cover: a wall and a low cover.
const coverMap = `{
  "name": "cover",
  "bounds": {"min": [-100, -100, 0], "max": [100, 100, 10]},
  "boxes": [
    {"kind": "wall", "min": [10, 0, 0], "max": [10.5, 4, 3]},
    {"kind": "cover", "min": [10, -8, 0], "max": [10.5, -4, 1.25]}
  ],
  "spawns": [
    {"team": 0, "pos": [-40, -40, 0], "yaw": 0},
    {"team": 1, "pos": [-40, 40, 0], "yaw": 0}
  ],
  "objectives": []
}`

// Cover returns a 200 x 200 m field with two boxes between x = 10 and
// x = 10.5 m: Boxes[0], a wall 3 m high from y = 0 to 4 (its edge on the
// X axis, so a player standing on the axis beyond it is half hidden from
// the origin), and Boxes[1], a low cover 1.25 m high from y = -8 to -4,
// which hides a crouching player's head but not a standing one's. The
// spawns lie far from both, in the -X half.
func Cover(t testing.TB) *world.Map {
	t.Helper()
	return parse(t, "cover.json", coverMap)
}

func parse(t testing.TB, name, data string) *world.Map {
	t.Helper()
	m, err := world.Parse(name, []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	return m
}
