package nav

import (
	"testing"

	"github.com/lagkit/lagkit/world"
)

// spawnsWestEast are two spawns of a parseMap map, team 0 west and team 1
// east of the centre.
const spawnsWestEast = `{"team": 0, "pos": [-5, 0, 0], "yaw": 0}, {"team": 1, "pos": [5, 0, 0], "yaw": 0}`

// room is four walls 3 m high round the 2 x 3 m floor x in [4, 6],
// y in [-1.5, 1.5].
const room = `
	{"kind": "wall", "min": [3.5, -2, 0], "max": [4, 2, 3]},
	{"kind": "wall", "min": [6, -2, 0], "max": [6.5, 2, 3]},
	{"kind": "wall", "min": [4, 1.5, 0], "max": [6, 2, 3]},
	{"kind": "wall", "min": [4, -2, 0], "max": [6, -1.5, 3]}`

func TestCheck(t *testing.T) {
	tests := []struct {
		name, boxes, spawns, objectives string
		want                            string
	}{
		{"open", "", spawnsWestEast, `{"kind": "point", "name": "A", "team": -1, "pos": [0, 0, 0]}`, ""},
		{"boxed", room, spawnsWestEast, "", "boxed: spawns[1]: unreachable from spawns[0]"},
		{
			"locked", room,
			`{"team": 0, "pos": [-5, 0, 0], "yaw": 0}, {"team": 1, "pos": [-5, 3, 0], "yaw": 0}`,
			`{"kind": "point", "name": "B", "team": -1, "pos": [0, 0, 0]}, {"kind": "point", "name": "A", "team": -1, "pos": [5, 0, 0]}`,
			"locked: objectives[1] (A): unreachable from spawns[0]",
		},
		{
			// A platform 1.5 m high with no stairs: its spawn drops off
			// it, but nobody climbs back.
			"oneway", `{"kind": "platform", "min": [2, -2, 0], "max": [8, 2, 1.5]}`,
			`{"team": 0, "pos": [-5, 0, 0], "yaw": 0}, {"team": 1, "pos": [5, 0, 1.5], "yaw": 0}`, "",
			"oneway: spawns[1]: unreachable from spawns[0]",
		},
		{
			// A flag on a 1 m cover: a jump would reach it, a walk not.
			"perched", `{"kind": "cover", "min": [-1, -1, 0], "max": [1, 1, 1]}`, spawnsWestEast,
			`{"kind": "flag", "name": "flag-0", "team": 0, "pos": [0, 0, 1]}`,
			"perched: objectives[0] (flag-0): unreachable from spawns[0]",
		},
		{
			"floating", "", spawnsWestEast, `{"kind": "point", "name": "A", "team": -1, "pos": [0, 0, 3]}`,
			"floating: objectives[0] (A): (0, 0, 3) is not on walkable floor",
		},
		{
			// A corridor 0.85 m wide fits the spawn's capsule exactly
			// where it stands, but no cell centre clears both walls.
			"narrow", `{"kind": "wall", "min": [-1, -5, 0], "max": [0, 5, 3]}, {"kind": "wall", "min": [0.85, -5, 0], "max": [2, 5, 3]}`,
			`{"team": 0, "pos": [-5, 0, 0], "yaw": 0}, {"team": 1, "pos": [0.425, 0, 0], "yaw": 0}`, "",
			"narrow: spawns[1]: (0.425, 0, 0) is not on walkable floor",
		},
	}
	for _, tt := range tests {
		m := parseMap(t, tt.name, tt.boxes, tt.spawns, tt.objectives)
		err := Check(m, mustBuild(t, m))
		if got := errString(err); got != tt.want {
			t.Errorf("%s: Check = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestCheckNil(t *testing.T) {
	m := mustLoad(t, "metro")
	if err := Check(nil, mustBuild(t, m)); errString(err) != "nav: nil map" {
		t.Errorf("Check(nil, g) = %v", err)
	}
	if err := Check(m, nil); errString(err) != "metro: nil navigation grid" {
		t.Errorf("Check(m, nil) = %v", err)
	}
}

// TestCheckShipped checks every shipped map, as map authors would.
func TestCheckShipped(t *testing.T) {
	for _, name := range world.Names() {
		m := mustLoad(t, name)
		if err := Check(m, mustBuild(t, m)); err != nil {
			t.Error(err)
		}
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
