package world

// fieldMap is a 200 x 200 m field without boxes, one spawn per team near
// the centre.
const fieldMap = `{
  "name": "open",
  "bounds": {"min": [-100, -100, 0], "max": [100, 100, 10]},
  "boxes": [],
  "spawns": [
    {"team": 0, "pos": [0, 0, 0], "yaw": 0},
    {"team": 1, "pos": [0, 5, 0], "yaw": 0}
  ],
  "objectives": []
}`

// Field returns a new 200 x 200 m map named "open" without boxes, with
// one spawn per team near the centre: nothing for a player to meet in
// seconds of walking straight, or for a shot to hit but players. Tests
// and benchmarks (time warp's crowd) play on it.
func Field() *Map {
	m, err := Parse("open.json", []byte(fieldMap))
	if err != nil {
		panic("world: the open field does not parse: " + err.Error())
	}
	return m
}
