package aimassist

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
)

// TestCones: magnetism widens with the round trip, the area cursor does
// not, none assists nothing.
func TestCones(t *testing.T) {
	mag, _ := New(Config{Name: Magnetism})
	area, _ := New(Config{Name: AreaCursor})
	none, _ := New(Config{})
	if c0, _ := mag.Cone(0); math.Abs(c0-deg(0.5)) > 1e-12 {
		t.Errorf("magnetism at 0 ms: %v rad, want 0.5 degrees", c0)
	}
	if c, centre := mag.Cone(200 * time.Millisecond); math.Abs(c-deg(1)) > 1e-12 || centre {
		t.Errorf("magnetism at 200 ms: %v rad (centre %v), want 1 degree to the surface", c, centre)
	}
	if c, centre := area.Cone(300 * time.Millisecond); math.Abs(c-deg(1)) > 1e-12 || !centre {
		t.Errorf("area cursor: %v rad (centre %v), want 1 degree to the centre at any latency", c, centre)
	}
	if c, _ := none.Cone(time.Second); c != 0 {
		t.Errorf("none: cone %v", c)
	}
	if big, _ := New(Config{Name: Magnetism, ConeDeg: 9, PerSecondDeg: 100}); true {
		if c, _ := big.Cone(time.Second); c > deg(MaxConeDeg) {
			t.Errorf("magnetism's cone %v rad beyond the %v degree bound", c, MaxConeDeg)
		}
	}
	for _, c := range []struct {
		cfg  Config
		want string
	}{{Config{Name: "aimbot"}, `unknown aim assistance mode "aimbot"`}, {Config{Name: AreaCursor, AreaDeg: 45}, "area_deg is 45"},
		{Config{Name: Magnetism, ConeDeg: math.NaN()}, "cone_deg is NaN"}} {
		if _, err := New(c.cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want one saying %q", c.cfg, err, c.want)
		}
	}
}

// TestTrace: a miss within the cone lands on the nearest part's surface;
// outside it, behind a wall or beyond range, nothing; the nearest of two
// players by angle wins.
func TestTrace(t *testing.T) {
	p := game.DefaultParams()
	st := game.PlayerState{Pos: geom.V(10, 0, 0)}
	torso := game.TorsoOrigin(st, &p)
	// 0.3 m beside the torso's axis at 10 m: 0.1 m outside its surface,
	// about 0.57 degrees; 1.7 degrees to its centre.
	r := geom.Ray{Origin: geom.V(0, 0.3, torso.Z), Dir: geom.V(1, 0, 0)}
	open := geom.NewGrid(nil, 4)
	targets := []Target{{ID: 2, Pose: st}}
	h, ok := Trace(r, 100, targets, deg(1), false, open, &p)
	if !ok || h.Victim != 2 || h.Part != game.PartTorso {
		t.Fatalf("within the cone: %v %+v, want player 2's torso", ok, h)
	}
	if d := math.Hypot(h.Point.X-torso.X, h.Point.Y-torso.Y); math.Abs(d-0.2) > 1e-6 {
		t.Errorf("the bent hit lies %v m from the torso's axis, want on its surface (0.2 m)", d)
	}
	if _, ok := Trace(r, 100, targets, deg(0.3), false, open, &p); ok {
		t.Error("a hit outside the cone")
	}
	if _, ok := Trace(r, 100, targets, deg(1), true, open, &p); ok {
		t.Error("the area cursor hit a part whose centre lies outside it")
	}
	wall := geom.NewGrid([]geom.AABB{{Min: geom.V(5, -2, 0), Max: geom.V(5.5, 2, 3)}}, 4)
	if _, ok := Trace(r, 100, targets, deg(1), false, wall, &p); ok {
		t.Error("a hit through a wall")
	}
	if _, ok := Trace(r, 9, targets, deg(1), false, open, &p); ok {
		t.Error("a hit beyond range")
	}
	near := game.PlayerState{Pos: geom.V(20, 0.35, 0)}
	if h, ok := Trace(r, 100, []Target{{ID: 2, Pose: st}, {ID: 5, Pose: near}}, deg(1), false, open, &p); !ok || h.Victim != 5 {
		t.Errorf("two players: hit %+v, want player 5, nearer the line by angle", h)
	}
}
