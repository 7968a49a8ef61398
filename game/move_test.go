package game

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/lagkit/lagkit/geom"
)

func hspeed(s PlayerState) float64 { return math.Hypot(s.Vel.X, s.Vel.Y) }

func TestWalkSpeedAndDistance(t *testing.T) {
	p := DefaultParams()
	tests := []struct {
		name  string
		cmd   UserCmd
		ticks int
		speed float64 // horizontal speed at the end
		dist  float64 // distance covered
		tol   float64
	}{
		// Getting up to speed costs a few centimetres.
		{"forward 1s", forward(0), 64, 4, 3.95, 0.05},
		{"forward 2s", forward(90), 128, 4, 7.95, 0.05},
		{"back 1s", UserCmd{Duration: tick, Forward: -127}, 64, 4, 3.95, 0.05},
		{"strafe right 1s", UserCmd{Duration: tick, Side: 127}, 64, 4, 3.95, 0.05},
		{"half keys", UserCmd{Duration: tick, Forward: 64}, 64, 4 * 64.0 / 127, 2.0, 0.05},
		{"crouched", UserCmd{Duration: tick, Forward: 127, Buttons: BtnCrouch}, 64, 4, 3.95, 0.05},
		{"sprint held but not enabled", UserCmd{Duration: tick, Forward: 127, Buttons: BtnSprint}, 64, 4, 3.95, 0.05},
		{"one 250ms command", UserCmd{Duration: MaxCmdDuration, Forward: 127}, 1, 4, 1.0, 1e-9},
		{"too long a command", UserCmd{Duration: time.Hour, Forward: 127}, 1, 4, 1.0, 1e-9},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := standing(0, 0)
			end := last(run(t, s, tc.cmd, tc.ticks, nil, &p))
			if got := hspeed(end); math.Abs(got-tc.speed) > 0.01 {
				t.Errorf("speed = %.4f m/s, want %.4f", got, tc.speed)
			}
			d := end.Pos.Sub(s.Pos)
			if got := math.Hypot(d.X, d.Y); math.Abs(got-tc.dist) > tc.tol {
				t.Errorf("distance = %.4f m, want %.4f ± %g", got, tc.dist, tc.tol)
			}
			if !end.Has(FlagOnGround) || end.Pos.Z != 0 {
				t.Errorf("end state %+v, want on the ground at z = 0", end)
			}
		})
	}
}

// TestWalkDirection checks the view convention: yaw 0 along +X, rising
// counter-clockwise, Side positive to the right.
func TestWalkDirection(t *testing.T) {
	tests := []struct {
		name string
		cmd  UserCmd
		want geom.Vec3
	}{
		{"forward at yaw 0", forward(0), geom.V(1, 0, 0)},
		{"forward at yaw 90", forward(90), geom.V(0, 1, 0)},
		{"forward at yaw 180", forward(180), geom.V(-1, 0, 0)},
		{"right at yaw 0", UserCmd{Duration: tick, Side: 127}, geom.V(0, -1, 0)},
		{"left at yaw 90", UserCmd{Duration: tick, Yaw: AngleUnits / 4, Side: -127}, geom.V(-1, 0, 0)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			end := last(run(t, standing(0, 0), tc.cmd, 32, nil, nil))
			if got := end.Vel.Norm(); got.Dist(tc.want) > 1e-3 {
				t.Errorf("direction = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestAccelerationAndStopTimes(t *testing.T) {
	p := DefaultParams()
	states := run(t, standing(0, 0), forward(0), 64, nil, &p)
	reached := -1
	for i, s := range states {
		if hspeed(s) >= p.WalkSpeed-1e-9 {
			reached = i + 1
			break
		}
	}
	// Within 0.1 s (6.4 ticks), but not at once.
	if reached < 3 || reached > 6 {
		t.Errorf("reached walk speed after %d ticks, want 3 to 6", reached)
	}
	moving := last(states)
	stop := run(t, moving, UserCmd{Duration: tick}, 16, nil, &p)
	stopped := -1
	for i, s := range stop {
		if s.Vel == (geom.Vec3{}) {
			stopped = i + 1
			break
		}
	}
	if stopped < 3 || stopped > 7 {
		t.Errorf("stopped after %d ticks, want 3 to 7", stopped)
	}
	if d := last(stop).Pos.X - moving.Pos.X; d > 0.2 {
		t.Errorf("slid %.3f m after releasing the keys, want at most 0.2", d)
	}
}

// TestDeflectionSetsSpeed: the speed follows the length of the intent
// (Forward, Side) over 127, capped at 1, so every direction at full
// deflection walks at full speed, half deflection at half, and two full
// keys are no faster than one; walking, crouched and sprinting alike.
func TestDeflectionSetsSpeed(t *testing.T) {
	p := DefaultParams()
	p.CrouchSpeed = 2
	p.Sprint = true
	modes := []struct {
		name    string
		buttons Buttons
		full    float64
	}{
		{"walk", 0, p.WalkSpeed},
		{"crouch", BtnCrouch, p.CrouchSpeed},
		{"sprint", BtnSprint, p.SprintSpeed},
	}
	d := int8(math.Round(127 * math.Sqrt2 / 2)) // 0.707 of full deflection
	h := int8(math.Round(127 * math.Sqrt2 / 4)) // 0.354: half deflection at 45°
	intents := []struct {
		name       string
		fwd, side  int8
		deflection float64
	}{
		{"forward (1, 0)", 127, 0, 1},
		{"diagonal (0.707, 0.707)", d, d, 1},
		{"diagonal back left (-0.707, -0.707)", -d, -d, 1},
		{"two full keys (1, 1) capped", 127, 127, 1},
		{"two full keys (-1, -1) capped", -128, -128, 1},
		{"full keys (1, 0.25) capped", 127, 32, 1},
		{"half forward (0.5, 0)", 64, 0, 64.0 / 127},
		{"half diagonal (0.354, 0.354)", h, h, math.Hypot(float64(h), float64(h)) / 127},
		{"half strafe (0, -0.5)", 0, -64, 64.0 / 127},
	}
	for _, m := range modes {
		for _, in := range intents {
			t.Run(m.name+" "+in.name, func(t *testing.T) {
				cmd := UserCmd{Duration: tick, Yaw: 1234, Forward: in.fwd, Side: in.side, Buttons: m.buttons}
				end := last(run(t, standing(0, 0), cmd, 64, nil, &p))
				if got, want := hspeed(end), m.full*in.deflection; math.Abs(got-want) > 0.01 {
					t.Errorf("speed %.4f m/s, want %.4f", got, want)
				}
			})
		}
	}
}

// TestFullDeflectionEveryDirection: a unit direction rounded to whole
// intents, as bots and scripts steer, walks at full speed (within the
// 0.6% that rounding the intents costs) whatever its angle to the view.
func TestFullDeflectionEveryDirection(t *testing.T) {
	p := DefaultParams()
	for deg := 0; deg < 360; deg += 5 {
		a := float64(deg) * math.Pi / 180
		cmd := UserCmd{Duration: tick, Forward: int8(math.Round(127 * math.Cos(a))), Side: int8(math.Round(127 * math.Sin(a)))}
		got := hspeed(last(run(t, standing(0, 0), cmd, 64, nil, &p)))
		if got < p.WalkSpeed*0.994 || got > p.WalkSpeed+0.01 {
			t.Errorf("%d° from the view: speed %.4f m/s, want %.1f within 0.6%%", deg, got, p.WalkSpeed)
		}
	}
}

func TestSprintOnlyWhenEnabled(t *testing.T) {
	on := DefaultParams()
	on.Sprint = true
	off := DefaultParams()
	tests := []struct {
		name    string
		p       *Params
		buttons Buttons
		want    float64
	}{
		{"disabled", &off, BtnSprint, 4},
		{"enabled, not held", &on, 0, 4},
		{"enabled and held", &on, BtnSprint, 6.5},
		{"enabled, held, crouched", &on, BtnSprint | BtnCrouch, 4},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cmd := UserCmd{Duration: tick, Forward: 127, Buttons: tc.buttons}
			if got := hspeed(last(run(t, standing(0, 0), cmd, 64, nil, tc.p))); math.Abs(got-tc.want) > 0.01 {
				t.Errorf("speed %.4f m/s, want %.4f", got, tc.want)
			}
		})
	}
}

func TestSlideAlongWall(t *testing.T) {
	p := DefaultParams()
	wall := geom.Box(geom.V(-5, 1, 0), geom.V(50, 2, 3))
	g := geom.NewGrid([]geom.AABB{wall}, 0)
	for _, yaw := range []float64{30, 45, 60, 80} {
		states := run(t, standing(0, 0), forward(yaw), 192, g, &p)
		end := last(states)
		if gap := gap(end, &p, wall); gap < 0 || gap > 2*skin {
			t.Errorf("yaw %v: gap to the wall %.5f m, want in [0, %g]", yaw, gap, 2*skin)
		}
		if math.Abs(end.Vel.Y) > VelQuantum || end.Vel.Z != 0 {
			t.Errorf("yaw %v: velocity %v, want only along the wall", yaw, end.Vel)
		}
		// The player keeps moving along the wall, at least as fast as the
		// wish velocity's component along it (when that is above the
		// speed where friction takes over), and never faster than walking.
		tangent := p.WalkSpeed * math.Cos(yaw*math.Pi/180)
		got := end.Vel.X
		if got <= 0 || got > p.WalkSpeed || tangent > p.StopSpeed && got < tangent {
			t.Errorf("yaw %v: speed along the wall %.4f m/s, want in [%.4f, %v]", yaw, got, tangent, p.WalkSpeed)
		}
		// Snapping each step's end onto the position grid rounds the
		// distance per step to whole quanta: up to half a quantum per step,
		// 0.125 m in 2 s at 64 Hz.
		if moved := end.Pos.X - states[63].Pos.X; math.Abs(moved-2*got) > 0.13 {
			t.Errorf("yaw %v: moved %.3f m along the wall in 2 s at %.3f m/s", yaw, moved, got)
		}
	}
}

// TestNoPenetration drives seeded random commands through rooms full of
// boxes and checks after every step that the capsule clears every box,
// that the state is on the grids and finite, and that the player stays in
// the room.
func TestNoPenetration(t *testing.T) {
	p := DefaultParams()
	steps := 4000
	if testing.Short() {
		steps = 500
	}
	for seed := range uint64(6) {
		boxes := room(seed, 150)
		g := geom.NewGrid(boxes, 2)
		rng := rand.New(rand.NewPCG(seed, 2))
		s := spawnClear(t, rng, &p, boxes)
		hold := randomCmd(rng)
		for i := range steps {
			if rng.IntN(8) == 0 {
				hold = randomCmd(rng)
			}
			prev := s
			s = Move(s, hold, g, &p)
			gp, box := minGap(s, &p, boxes)
			if gp < -1e-9 || !onGrid(s) || !s.Pos.IsFinite() || !s.Vel.IsFinite() ||
				math.Abs(s.Pos.X) > 10 || math.Abs(s.Pos.Y) > 10 {
				t.Fatalf("seed %d step %d: gap %g to box %d, state %+v\nfrom %+v\ncmd %+v", seed, i, gp, box, s, prev, hold)
			}
		}
	}
}

// TestSnapKeepsClear stops the player against every kind of surface feature
// (faces, edges, corners, from every side and height) and checks that the
// snapped result clears the box by more than the position quantum, which
// is what the skin is for.
func TestSnapKeepsClear(t *testing.T) {
	p := DefaultParams()
	box := geom.Box(geom.V(-0.3, -0.7, 0.6), geom.V(0.9, 0.5, 1.3))
	g := geom.NewGrid([]geom.AABB{box}, 0)
	rng := rand.New(rand.NewPCG(7, 7))
	c := p.body(false)
	for i := range 20000 {
		// A start on the position grid 1 to 3 m from the box's centre, moving
		// at it with a random aim.
		dir := geom.V(rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()).Norm()
		start := SnapPos(box.Center().Sub(geom.V(0, 0, 0.9)).AddScaled(dir, 1+2*rng.Float64()))
		if start.Z < 0 {
			start.Z = -start.Z
		}
		aim := box.Center().AddScaled(geom.V(rng.Float64()-0.5, rng.Float64()-0.5, rng.Float64()-0.5), 1.6)
		region := Bounds(PlayerState{Pos: start}, &p).Expand(10)
		w := newWorld(g, region.Min, region.Max, nil)
		if w.clearance(start, c) < skin {
			continue
		}
		ht, _, _, ok := w.sweep(start, aim.Sub(start).Scale(2), c)
		if !ok {
			continue
		}
		at := start.AddScaled(aim.Sub(start).Scale(2), ht)
		if gp := gap(PlayerState{Pos: SnapPos(at)}, &p, box); gp < skin/2 {
			t.Fatalf("case %d: stopped at %v, snapped gap %g m, want at least %g", i, at, gp, skin/2)
		}
	}
}

func TestSteps(t *testing.T) {
	p := DefaultParams()
	tests := []struct {
		name  string
		boxes []geom.AABB
		wantZ float64 // feet height at the end
	}{
		{"0.3 m step", []geom.AABB{geom.Box(geom.V(1, -2, 0), geom.V(20, 2, 0.3))}, 0.3 + skin},
		{"0.35 m step", []geom.AABB{geom.Box(geom.V(1, -2, 0), geom.V(20, 2, 0.35))}, 0.35 + skin},
		{"0.5 m box", []geom.AABB{geom.Box(geom.V(1, -2, 0), geom.V(20, 2, 0.5))}, 0},
		{"0.25 m stairs", stairs(1, 0.25, 6), 1.5 + skin},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := geom.NewGrid(tc.boxes, 0)
			states := run(t, standing(0, 0), forward(0), 192, g, &p)
			end := last(states)
			if math.Abs(end.Pos.Z-tc.wantZ) > PosQuantum {
				t.Errorf("feet at z = %.4f, want %.4f (state %+v)", end.Pos.Z, tc.wantZ, end)
			}
			if !end.Has(FlagOnGround) {
				t.Errorf("not on the ground at the end: %+v", end)
			}
			for i, s := range states {
				if !s.Has(FlagOnGround) {
					t.Fatalf("step %d: left the ground: %+v", i, s)
				}
			}
		})
	}
}

// stairs returns n steps of the given rise and 0.5 m treads, rising along
// +X from x0, and a landing at the top.
func stairs(x0, rise float64, n int) []geom.AABB {
	var boxes []geom.AABB
	for i := range n {
		x := x0 + 0.5*float64(i)
		end := x + 0.5
		if i == n-1 {
			end = x + 20
		}
		boxes = append(boxes, geom.Box(geom.V(x, -2, 0), geom.V(end, 2, rise*float64(i+1))))
	}
	return boxes
}

// TestWalkDownStairs: a walking player follows the ground down steps
// instead of launching off each one (Source's StayOnGround).
func TestWalkDownStairs(t *testing.T) {
	p := DefaultParams()
	g := geom.NewGrid(stairs(1, 0.25, 6), 0)
	top := PlayerState{Pos: geom.V(5, 0, 1.5+skin), Flags: FlagOnGround}
	states := run(t, top, forward(180), 128, g, &p)
	for i, s := range states {
		if !s.Has(FlagOnGround) {
			t.Fatalf("step %d: in the air at %+v", i, s)
		}
	}
	if end := last(states); end.Pos.Z != skin || end.Pos.X > 0 {
		t.Errorf("end %+v, want on the ground past the stairs", end)
	}
}

func TestJump(t *testing.T) {
	p := DefaultParams()
	jump := UserCmd{Duration: tick, Buttons: BtnJump}
	states := run(t, standing(0, 0), jump, 128, nil, &p)
	peak, jumps, airborne := 0.0, 0, false
	for _, s := range states {
		peak = max(peak, s.Pos.Z)
		if !s.Has(FlagOnGround) && !airborne {
			jumps++
		}
		airborne = !s.Has(FlagOnGround)
	}
	if want := 1.1; math.Abs(peak-want) > 0.02 {
		t.Errorf("jump peak %.4f m, want %.2f ± 0.02", peak, want)
	}
	if jumps != 1 {
		t.Errorf("holding jump for 2 s jumped %d times, want 1", jumps)
	}
	// Air time is 2*JumpSpeed/Gravity = 0.66 s.
	landed := -1
	for i, s := range states {
		if i > 0 && s.Has(FlagOnGround) {
			landed = i
			break
		}
	}
	if air := float64(landed) / 64; math.Abs(air-2*p.JumpSpeed/p.Gravity) > 2.0/64 {
		t.Errorf("landed after %.3f s, want %.3f", air, 2*p.JumpSpeed/p.Gravity)
	}

	// Releasing for one command re-arms the jump.
	s := last(states)
	s = Move(s, UserCmd{Duration: tick}, nil, &p)
	if s = Move(s, jump, nil, &p); s.Has(FlagOnGround) || s.Vel.Z <= 0 {
		t.Errorf("a fresh press did not jump: %+v", s)
	}
	// No second jump in the air, even on a fresh press.
	s = Move(s, UserCmd{Duration: tick}, nil, &p)
	before := s.Vel.Z
	if s = Move(s, jump, nil, &p); s.Vel.Z >= before {
		t.Errorf("jumped in the air: vertical speed %.3f -> %.3f", before, s.Vel.Z)
	}
}

func TestCrouchHeadroom(t *testing.T) {
	p := DefaultParams()
	// A ceiling from x = 2 on, 1.5 m up: crouched players fit under it,
	// standing ones do not.
	ceiling := geom.Box(geom.V(2, -5, 1.5), geom.V(10, 5, 2))
	g := geom.NewGrid([]geom.AABB{ceiling}, 0)
	crouchWalk := UserCmd{Duration: tick, Forward: 127, Buttons: BtnCrouch}
	under := last(run(t, standing(0, 0), crouchWalk, 64, g, &p))
	if under.Pos.X < 3 || !under.Has(FlagCrouched) {
		t.Fatalf("crouch walk ended at %+v, want crouched under the ceiling", under)
	}
	// Standing is refused while the ceiling is above, and moving on
	// while not holding crouch keeps the player crouched.
	s := Move(under, UserCmd{Duration: tick}, g, &p)
	if !s.Has(FlagCrouched) {
		t.Fatalf("stood up under a 1.5 m ceiling: %+v", s)
	}
	out := run(t, s, forward(180), 96, g, &p)
	for i, st := range out {
		// The standing capsule still overlaps the ceiling while the feet are
		// within Radius of its edge.
		if !st.Has(FlagCrouched) && st.Pos.X > 2-p.Radius {
			t.Fatalf("step %d: stood up under the ceiling at x = %.3f", i, st.Pos.X)
		}
	}
	if end := last(out); end.Has(FlagCrouched) {
		t.Errorf("still crouched in the open: %+v", end)
	}
	// A zero-duration command changes stance and angles only.
	z := Move(standing(0, 0), UserCmd{Yaw: 100, Pitch: -30000, Buttons: BtnCrouch}, g, &p)
	want := standing(0, 0)
	want.Yaw, want.Pitch, want.Flags = 100, -MaxPitch, FlagOnGround|FlagCrouched
	if z != want {
		t.Errorf("zero-duration command: got %+v, want %+v", z, want)
	}
}

func TestDeterministic(t *testing.T) {
	p := DefaultParams()
	boxes := room(3, 150)
	g := geom.NewGrid(boxes, 2)
	trace := func() []PlayerState {
		rng := rand.New(rand.NewPCG(11, 11))
		s := spawnClear(t, rng, &p, boxes)
		var out []PlayerState
		for range 2000 {
			s = Move(s, randomCmd(rng), g, &p)
			out = append(out, s)
		}
		return out
	}
	a, b := trace(), trace()
	for i := range a {
		for _, pair := range [][2]float64{
			{a[i].Pos.X, b[i].Pos.X}, {a[i].Pos.Y, b[i].Pos.Y}, {a[i].Pos.Z, b[i].Pos.Z},
			{a[i].Vel.X, b[i].Vel.X}, {a[i].Vel.Y, b[i].Vel.Y}, {a[i].Vel.Z, b[i].Vel.Z},
		} {
			if math.Float64bits(pair[0]) != math.Float64bits(pair[1]) {
				t.Fatalf("step %d differs: %+v vs %+v", i, a[i], b[i])
			}
		}
		if a[i] != b[i] {
			t.Fatalf("step %d differs: %+v vs %+v", i, a[i], b[i])
		}
	}
}

// TestReplayFromWire: a client that restarts from a state it decoded
// (quantised, here simply copied) and re-runs the same commands reaches the
// server's state exactly.
func TestReplayFromWire(t *testing.T) {
	p := DefaultParams()
	boxes := room(5, 150)
	g := geom.NewGrid(boxes, 2)
	rng := rand.New(rand.NewPCG(5, 5))
	cmds := make([]UserCmd, 600)
	for i := range cmds {
		cmds[i] = randomCmd(rng)
	}
	server := spawnClear(t, rng, &p, boxes)
	var history []PlayerState
	for _, c := range cmds {
		server = Move(server, c, g, &p)
		history = append(history, server)
	}
	for _, ack := range []int{0, 100, 333} {
		wire := PlayerState{
			Pos:   geom.V(float64(int32(history[ack].Pos.X/PosQuantum))*PosQuantum, float64(int32(history[ack].Pos.Y/PosQuantum))*PosQuantum, float64(int32(history[ack].Pos.Z/PosQuantum))*PosQuantum),
			Vel:   geom.V(float64(int32(history[ack].Vel.X/VelQuantum))*VelQuantum, float64(int32(history[ack].Vel.Y/VelQuantum))*VelQuantum, float64(int32(history[ack].Vel.Z/VelQuantum))*VelQuantum),
			Yaw:   history[ack].Yaw,
			Pitch: history[ack].Pitch,
			Flags: history[ack].Flags,
		}
		s := wire
		for _, c := range cmds[ack+1:] {
			s = Move(s, c, g, &p)
		}
		if s != server {
			t.Errorf("replay from %d: %+v, server %+v", ack, s, server)
		}
	}
}

func TestMoveBadInput(t *testing.T) {
	p := DefaultParams()
	g := geom.NewGrid([]geom.AABB{geom.Box(geom.V(-1, -1, 0), geom.V(1, 1, 1))}, 0)
	nan := math.NaN()
	tests := []struct {
		name string
		s    PlayerState
	}{
		{"NaN position", PlayerState{Pos: geom.V(nan, 3, nan)}},
		{"NaN velocity", PlayerState{Pos: geom.V(3, 3, 0), Vel: geom.V(nan, nan, nan)}},
		{"infinite state", PlayerState{Pos: geom.V(math.Inf(1), 0, 0), Vel: geom.V(0, math.Inf(-1), 1e300)}},
		{"inside a box", PlayerState{Pos: geom.V(0.2, 0, 0.1), Vel: geom.V(3, 0, 0)}},
		{"below the ground", PlayerState{Pos: geom.V(5, 5, -2)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.s
			for range 64 {
				s = Move(s, forward(0), g, &p)
				if !s.Pos.IsFinite() || !s.Vel.IsFinite() || !onGrid(s) {
					t.Fatalf("state %+v", s)
				}
				if math.Abs(s.Vel.X) > p.MaxVelocity || math.Abs(s.Vel.Y) > p.MaxVelocity || math.Abs(s.Vel.Z) > p.MaxVelocity {
					t.Fatalf("velocity %v over MaxVelocity", s.Vel)
				}
			}
		})
	}
	// A player inside the box walks out of it and stays out.
	s := PlayerState{Pos: geom.V(0.2, 0, 0.5)}
	out := run(t, s, forward(0), 64, g, &p)
	if end := last(out); gap(end, &p, g.Boxes()[0]) < 0 {
		t.Errorf("still inside the box: %+v", end)
	}
}

// TestRestInNotch: a player that falls into a notch narrower than itself
// rests on both edges, where each contact alone is too steep to stand on,
// and can jump out.
func TestRestInNotch(t *testing.T) {
	p := DefaultParams()
	g := geom.NewGrid([]geom.AABB{
		geom.Box(geom.V(-3, -3, 0), geom.V(-0.3, 3, 1)),
		geom.Box(geom.V(0.3, -3, 0), geom.V(3, 3, 1)),
	}, 0)
	drop := PlayerState{Pos: geom.V(0, 0, 2)}
	states := run(t, drop, UserCmd{Duration: tick}, 64, g, &p)
	rest := last(states)
	if !rest.Has(FlagOnGround) || rest.Vel != (geom.Vec3{}) || rest.Pos.Z < 0.5 || rest.Pos.Z > 1 {
		t.Fatalf("after the fall: %+v, want resting in the notch", rest)
	}
	out := last(run(t, rest, UserCmd{Duration: tick, Forward: 127, Buttons: BtnJump}, 32, g, &p))
	if out.Pos.Z < 1 || out.Pos.X < 0.5 {
		t.Errorf("jumping out of the notch ended at %+v", out)
	}
}

// TestMoveKeepsTheOtherFields: Move changes only the position, velocity,
// view angles and movement flags; every other field of the state, including
// any added later (Move lists them one by one), comes through as it was.
func TestMoveKeepsTheOtherFields(t *testing.T) {
	moved := map[string]bool{"Pos": true, "Vel": true, "Yaw": true, "Pitch": true, "Flags": true}
	s := standing(1, 2)
	fillFields(t, &s, moved, 1, 1)
	s.Flags |= FlagGame3
	p := DefaultParams()
	got := Move(s, forward(30), nil, &p)
	want := s
	want.Pos, want.Vel, want.Yaw, want.Pitch = got.Pos, got.Vel, got.Yaw, got.Pitch
	want.Flags = got.Flags&(FlagOnGround|FlagCrouched|FlagJumpHeld) | s.Flags&^(FlagOnGround|FlagCrouched|FlagJumpHeld)
	if got != want {
		t.Errorf("got %+v, want the other fields of %+v", got, want)
	}
	if got.Pos == s.Pos {
		t.Error("the player did not move")
	}
}
