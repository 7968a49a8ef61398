package game

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/lagkit/lagkit/geom"
)

// tick is one command at 64 Hz, exact in microseconds and in float64.
const tick = 15625 * time.Microsecond

// forward is a command walking along yaw (in degrees).
func forward(yawDeg float64) UserCmd {
	return UserCmd{Duration: tick, Yaw: YawUnits(yawDeg * math.Pi / 180), Forward: 127}
}

// run applies cmd n times and returns every state after each step.
func run(t testing.TB, s PlayerState, cmd UserCmd, n int, g *geom.Grid, p *Params) []PlayerState {
	t.Helper()
	out := make([]PlayerState, n)
	for i := range out {
		cmd.Tick++
		s = Move(s, cmd, g, p)
		out[i] = s
	}
	return out
}

// last returns the final state of a run.
func last(states []PlayerState) PlayerState { return states[len(states)-1] }

// standing is a player at rest on the ground at (x, y).
func standing(x, y float64) PlayerState {
	return PlayerState{Pos: geom.V(x, y, 0), Flags: FlagOnGround}
}

// gap returns the distance between player s's movement capsule and box b,
// computed directly: the capsule's axis is a vertical segment, so the
// distance splits into the XY distance to the box's footprint and the gap
// between the Z intervals, less the radius.
func gap(s PlayerState, p *Params, b geom.AABB) float64 {
	h := p.Height
	if s.Has(FlagCrouched) {
		h = p.CrouchHeight
	}
	dx := max(b.Min.X-s.Pos.X, 0, s.Pos.X-b.Max.X)
	dy := max(b.Min.Y-s.Pos.Y, 0, s.Pos.Y-b.Max.Y)
	z0, z1 := s.Pos.Z+p.Radius, s.Pos.Z+h-p.Radius
	dz := max(b.Min.Z-z1, 0, z0-b.Max.Z)
	return math.Sqrt(dx*dx+dy*dy+dz*dz) - p.Radius
}

// minGap returns the smallest gap between s's capsule and the ground or
// any box, and that box's index (-1: the ground).
func minGap(s PlayerState, p *Params, boxes []geom.AABB) (float64, int) {
	best, at := s.Pos.Z, -1
	for i, b := range boxes {
		if g := gap(s, p, b); g < best {
			best, at = g, i
		}
	}
	return best, at
}

// onGrid reports whether s's position and velocity lie on their grids.
func onGrid(s PlayerState) bool {
	return SnapPos(s.Pos) == s.Pos && snapVel(s.Vel) == s.Vel
}

// room returns a 20 m square room filled with n seeded random boxes: low
// steps, covers, pillars, platforms and ceilings low enough to crouch
// under. Its walls are 6 m high, out of reach even from the top of a
// ceiling box.
func room(seed uint64, n int) []geom.AABB {
	rng := rand.New(rand.NewPCG(seed, 1))
	boxes := []geom.AABB{
		geom.Box(geom.V(-10, -10, 0), geom.V(10, -9.5, 6)),
		geom.Box(geom.V(-10, 9.5, 0), geom.V(10, 10, 6)),
		geom.Box(geom.V(-10, -10, 0), geom.V(-9.5, 10, 6)),
		geom.Box(geom.V(9.5, -10, 0), geom.V(10, 10, 6)),
	}
	// Coordinates on a 1/8 m grid, as map files tend to use, but sizes
	// free enough to leave gaps narrower than a player.
	q := func(lo, hi float64) float64 { return math.Round((lo+rng.Float64()*(hi-lo))*8) / 8 }
	for len(boxes) < n {
		x, y := q(-9, 9), q(-9, 9)
		var sx, sy, z0, z1 float64
		switch rng.IntN(5) {
		case 0: // step
			sx, sy, z1 = q(0.25, 2), q(0.25, 2), q(0.125, 0.5)
		case 1: // cover
			sx, sy, z1 = q(0.25, 3), q(0.25, 1), q(0.75, 1.25)
		case 2: // pillar
			sx, sy, z1 = q(0.25, 1), q(0.25, 1), 3
		case 3: // platform
			sx, sy, z0 = q(1, 3), q(1, 3), q(0, 1)
			z1 = z0 + q(0.125, 0.5)
		default: // ceiling to crouch under
			sx, sy, z0 = q(0.5, 2), q(0.5, 2), q(1.25, 1.75)
			z1 = z0 + 0.25
		}
		boxes = append(boxes, geom.Box(geom.V(x, y, z0), geom.V(x+sx, y+sy, z1)))
	}
	return boxes
}

// randomCmd returns a command with random move keys, buttons, view and a
// duration that is usually one tick.
func randomCmd(rng *rand.Rand) UserCmd {
	keys := []int8{-128, -127, -64, 0, 0, 0, 50, 127, 127}
	cmd := UserCmd{
		Duration: tick,
		Yaw:      uint16(rng.Uint32()),
		Pitch:    int16(rng.IntN(2*MaxPitch+1) - MaxPitch),
		Forward:  keys[rng.IntN(len(keys))],
		Side:     keys[rng.IntN(len(keys))],
		Buttons:  Buttons(rng.Uint32()) & (BtnJump | BtnCrouch | BtnSprint),
	}
	switch rng.IntN(20) {
	case 0:
		cmd.Duration = 0
	case 1:
		cmd.Duration = time.Duration(rng.IntN(300_000)) * time.Microsecond
	}
	return cmd
}

// spawnClear returns a random standing position in the room that clears
// every box.
func spawnClear(t testing.TB, rng *rand.Rand, p *Params, boxes []geom.AABB) PlayerState {
	t.Helper()
	for range 1000 {
		s := standing(math.Round(rng.Float64()*16-8), math.Round(rng.Float64()*16-8))
		if g, _ := minGap(s, p, boxes); g >= 0 {
			return s
		}
	}
	t.Fatal("no clear spot in the room")
	return PlayerState{}
}

// newWorld gathers the boxes of g overlapping the box from lo to hi into
// buf, as Move does. A nil g is an empty map: only the ground.
func newWorld(g *geom.Grid, lo, hi geom.Vec3, buf []int) world {
	if g == nil {
		return world{}
	}
	return world{boxes: g.Boxes(), near: g.Query(geom.AABB{Min: lo, Max: hi}, buf)}
}

// fillFields sets every field of s not named in skip to mul*i + add, i
// being the field's index, so that each holds a value of its own; it
// fails t on a field of a kind it cannot set, for the test using it to be
// extended.
func fillFields(t *testing.T, s *PlayerState, skip map[string]bool, mul, add int) {
	t.Helper()
	v := reflect.ValueOf(s).Elem()
	for i := range v.NumField() {
		if skip[v.Type().Field(i).Name] {
			continue
		}
		switch f := v.Field(i); f.Kind() {
		case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			f.SetInt(int64(mul*i + add))
		case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			f.SetUint(uint64(mul*i + add))
		case reflect.Array: // Game
			for k := range f.Len() {
				f.Index(k).SetUint(uint64(mul*i + add + k))
			}
		default:
			t.Fatalf("field %s of kind %v: extend this test", v.Type().Field(i).Name, f.Kind())
		}
	}
}
