package scaling

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
)

const ms = time.Millisecond

// TestModes: each mode's factor, capped, and never below 1.
func TestModes(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		rtt  time.Duration
		want float64
	}{
		{Config{}, 300 * ms, 1},
		{Config{Name: Fixed}, 0, 1.5},
		{Config{Name: Fixed, Factor: 1.2}, 400 * ms, 1.2},
		{Config{Name: Fixed, Factor: 3}, 0, 2}, // capped at the default max
		{Config{Name: Linear}, 200 * ms, 1.5},
		{Config{Name: Linear, PerSecond: 10, Max: 3}, 100 * ms, 2},
		{Config{Name: Linear, PerSecond: 10, Max: 3}, time.Second, 3},
		{Config{Name: AccuracyHold}, 0, 1},
		{Config{Name: AccuracyHold, LatencyCoef: -0.01, ScaleCoef: 2}, 100 * ms, math.Min(2, math.Exp(0.5))},
		{Config{Name: AccuracyHold, LatencyCoef: -0.01, ScaleCoef: 1, InteractionCoef: -0.01}, 100 * ms, 1}, // no effect left: hold nothing
	} {
		m, err := New(c.cfg)
		if err != nil {
			t.Fatalf("%+v: %v", c.cfg, err)
		}
		if got := m.Scale(c.rtt); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("%s %+v at %v: scale %v, want %v", m.Name(), c.cfg, c.rtt, got, c.want)
		}
	}
	if got := DefaultModel.Hold(200 * ms); !(got > 1 && got < 2) {
		t.Errorf("the shipped model holds 200 ms at scale %v: want between 1 and 2", got)
	}
}

// TestNewRefuses: an unknown mode or a parameter out of range is a clear
// error.
func TestNewRefuses(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{Name: "huge"}, `unknown scaling mode "huge"`},
		{Config{Name: Fixed, Factor: 0.5}, "factor is 0.5"},
		{Config{Name: Linear, PerSecond: math.NaN()}, "per_second is NaN"},
		{Config{Name: Fixed, Max: 9}, "max is 9"},
		{Config{Name: AccuracyHold, ScaleCoef: -1}, "scale_coef is -1"},
	} {
		if _, err := New(c.cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want one saying %q", c.cfg, err, c.want)
		}
	}
}

// TestTraceScaled: a ray passing beside a player misses its true
// hitboxes and hits them scaled; a wall in front of the scaled part
// blocks it; Local is brought back to the true part's size.
func TestTraceScaled(t *testing.T) {
	p := game.DefaultParams()
	st := game.PlayerState{Pos: geom.V(10, 0, 0)}
	torso := game.TorsoOrigin(st, &p)
	// 0.3 m beside the torso's axis: outside its 0.2 m radius.
	r := geom.Ray{Origin: geom.V(0, 0.3, torso.Z), Dir: geom.V(1, 0, 0)}
	open := geom.NewGrid(nil, 4)
	targets := []Target{{ID: 3, Pose: st}}
	if _, ok := Trace(r, 100, targets, 1, open, &p); ok {
		t.Fatal("the true hitboxes are hit 0.3 m beside the torso")
	}
	h, ok := Trace(r, 100, targets, 2, open, &p)
	if !ok || h.Victim != 3 || h.Part != game.PartTorso {
		t.Fatalf("scaled by 2: hit %v %+v, want player 3's torso", ok, h)
	}
	if l := math.Hypot(h.Local.X, h.Local.Y); !(l <= 0.2+1e-9) {
		t.Errorf("Local %v lies %v m off the torso's axis: want it on the true part (0.2 m)", h.Local, l)
	}
	wall := geom.NewGrid([]geom.AABB{{Min: geom.V(5, -2, 0), Max: geom.V(5.5, 2, 3)}}, 4)
	if _, ok := Trace(r, 100, targets, 2, wall, &p); ok {
		t.Error("a scaled hit through a wall")
	}
	if _, ok := Trace(r, 9, targets, 2, open, &p); ok {
		t.Error("a scaled hit beyond the weapon's range")
	}
}
