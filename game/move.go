package game

import (
	"math"
	"time"

	"github.com/lagkit/lagkit/geom"
)

const (
	// MaxCmdDuration is the longest step Move takes for one command; a
	// longer Duration is treated as this long.
	MaxCmdDuration = 250 * time.Millisecond

	// maxCoord bounds each position coordinate Move accepts, in metres:
	// far beyond any map (package world keeps maps within ±1024 m), and
	// small enough that float64 holds every PosQuantum step exactly.
	maxCoord = 1 << 20
	// groundProbe is how far below the feet a surface still counts as
	// ground (Quake III probes 0.25 units, about 6 mm).
	groundProbe = 2 * skin
	// minGroundNormal is the least Z of the contact normal at which a
	// player in the air lands (Quake III MIN_WALK_NORMAL).
	minGroundNormal = 0.7
	// maxBumps and maxPlanes bound the work of one slide: the surfaces hit
	// and the planes the velocity is kept out of (Quake III PM_SlideMove
	// and MAX_CLIP_PLANES).
	maxBumps  = 4
	maxPlanes = 5
	// overclip makes a velocity clipped against a surface point slightly
	// away from it (Quake III OVERCLIP), so the next sweep does not start
	// by touching it again.
	overclip = 1.001
)

// Move advances player s by one command and returns the new state. It is
// the fixed-step movement of Quake III's bg_pmove.c ([quake3] in
// docs/references.md) and Half-Life's pm_shared: one function that the server runs on every command and every
// client runs to predict its own player, so both must agree bit for bit.
//
// The command's Duration (clamped to [0, MaxCmdDuration]) is the time step;
// a zero Duration changes only the view angles and the button state
// (stance and the jump latch). The view angles are taken from the command.
// Forward and Side steer along the view yaw, and the length of (Forward,
// Side) over 127, capped at 1, scales the speed (Up is unused: there is no
// swimming or flying); BtnCrouch held crouches (the player stands again as
// soon as there is headroom); BtnJump jumps from the ground once per
// press; BtnSprint sprints when p.Sprint allows it. The player is an
// upright capsule that slides along boxes of g and the ground plane z = 0,
// walks up ledges up to p.StepHeight and follows the ground down them.
// Players do not collide with each other: a player's movement then depends
// only on its own commands, so prediction is exact.
//
// The result lies on the PosQuantum and VelQuantum grids, so a client that
// decodes it from the wire reproduces the server's state exactly, and it
// never overlaps a box that s did not already overlap. A player that starts
// inside a box can move out of it but not deeper. Snapping rounds each
// command's displacement to whole quanta, so a speed under half a quantum
// per command (0.0625 m/s at 64 commands a second) does not move the
// player, and other speeds are met to within that much.
//
// Move is pure: it keeps no state, does not allocate, and gives identical
// results for identical inputs. A nil g is an empty map and nil p means
// DefaultParams; p must be valid (see Params.Validate).
func Move(s PlayerState, cmd UserCmd, g *geom.Grid, p *Params) PlayerState {
	return move(&s, &cmd, g, p)
}

// move is Move reading the state and command in place, so that Step
// passes them on without copying them.
func move(s *PlayerState, cmd *UserCmd, g *geom.Grid, p *Params) PlayerState {
	if p == nil {
		p = &defaultParams
	}
	dt := min(max(cmd.Duration, 0), MaxCmdDuration).Seconds()
	// Structs are set up and read field by field, never copied whole
	// (s.Has would copy s): a whole-struct copy of fields just stored one
	// by one stalls each of its loads.
	flags := s.Flags
	start := clampPos(s.Pos)
	var m mover
	m.p, m.f, m.v, m.onGround = p, start, clampVel(s.Vel, p.MaxVelocity), flags&FlagOnGround != 0
	var buf [64]int
	if g != nil { // else an empty map: only the ground
		lo, hi := m.region(dt)
		m.w.boxes = g.Boxes()
		m.w.near = g.Query(geom.AABB{Min: lo, Max: hi}, buf[:0])
	}

	crouched := flags&FlagCrouched != 0
	switch {
	case cmd.Buttons.Has(BtnCrouch):
		crouched = true
	case crouched && m.w.clearance(start, p.body(false)) >= 0:
		crouched = false
	}
	m.c = p.body(crouched)
	jumpHeld := flags&FlagJumpHeld != 0 && cmd.Buttons.Has(BtnJump)

	if dt > 0 {
		m.findGround()
		if m.onGround && cmd.Buttons.Has(BtnJump) && !jumpHeld {
			m.v.Z = p.JumpSpeed
			m.onGround, jumpHeld = false, true
		}
		dir, speed := wish(cmd, p.wishSpeed(crouched, cmd.Buttons.Has(BtnSprint)))
		if m.onGround {
			m.walk(dt, dir, speed)
		} else {
			m.fall(dt, dir, speed)
		}
	}

	flags &^= FlagOnGround | FlagCrouched | FlagJumpHeld
	if m.onGround {
		flags |= FlagOnGround
	}
	if crouched {
		flags |= FlagCrouched
	}
	if jumpHeld {
		flags |= FlagJumpHeld
	}
	// TestMoveKeepsTheOtherFields keeps this list complete.
	return PlayerState{
		Pos:      m.place(start),
		Vel:      snapVel(clampVel(m.v, p.MaxVelocity)),
		Yaw:      cmd.Yaw,
		Pitch:    max(-MaxPitch, min(MaxPitch, cmd.Pitch)),
		Flags:    flags,
		Teleport: s.Teleport,
		Health:   s.Health,
		Game:     s.Game,
	}
}

// mover is the working state of one Move.
type mover struct {
	p        *Params
	w        world
	c        body
	f, v     geom.Vec3 // feet position and velocity
	onGround bool
}

// region returns the corners of the box that holds everything the step
// can touch: the standing capsule's bounds grown by the farthest the feet
// can get. Speed can grow by acceleration, a jump and gravity; the feet
// can also climb or follow a step and settle onto the ground twice.
func (m *mover) region(dt float64) (lo, hi geom.Vec3) {
	p := m.p
	speed := m.v.Len() + (max(p.Accel, p.AirAccel)*p.maxWishSpeed()+p.Gravity)*dt + p.JumpSpeed
	reach := speed*dt + p.StepHeight + 2*groundProbe + skin
	grow := geom.Vec3{X: reach, Y: reach, Z: reach}
	lo = m.f.Sub(geom.Vec3{X: p.Radius, Y: p.Radius}).Sub(grow)
	hi = m.f.Add(geom.Vec3{X: p.Radius, Y: p.Radius, Z: p.Height}).Add(grow)
	return lo, hi
}

// place returns where the feet end the step on the position grid: the grid
// point nearest to them, unless the capsule would overlap a box there. The
// skin keeps that from happening after a stop against a surface, but a
// move that starts within the skin and runs along a surface can end closer
// to it than rounding allows. Then place takes the corner of the grid cell
// around the feet where the overlap is least: for any one box, the corner
// on the far side of the feet from it is no closer to it than the feet
// are. Only in a gap barely wider than the player can every corner
// overlap; it then keeps the start, if that is better.
func (m *mover) place(start geom.Vec3) geom.Vec3 {
	pos := SnapPos(m.f)
	gap := m.w.clearance(pos, m.c)
	if gap >= 0 {
		return pos
	}
	base := geom.Vec3{
		X: math.Floor(m.f.X/PosQuantum) * PosQuantum,
		Y: math.Floor(m.f.Y/PosQuantum) * PosQuantum,
		Z: math.Floor(m.f.Z/PosQuantum) * PosQuantum,
	}
	for i := range 8 {
		c := base.Add(geom.Vec3{X: float64(i & 1), Y: float64(i >> 1 & 1), Z: float64(i >> 2)}.Scale(PosQuantum))
		if g := m.w.clearance(c, m.c); g > gap {
			pos, gap = c, g
		}
	}
	if back := SnapPos(start); gap < 0 && m.w.clearance(back, m.c) > gap {
		pos = back
	}
	return pos
}

// findGround probes just below the feet (Quake III PM_GroundTrace). On
// ground it settles the feet onto it and stops any motion into it.
func (m *mover) findGround() {
	t, n, _, ok := m.w.sweep(m.f, geom.Vec3{Z: -groundProbe}, m.c)
	m.onGround = ok && m.supports(n, m.onGround)
	if m.onGround {
		m.settle(t, groundProbe)
	}
}

// supports reports whether a contact of normal n, below the feet, is
// ground to stand on for a player that was (walking) or was not on the
// ground. The only surfaces that face up in a world of axis-aligned boxes
// are the ground and box tops, both flat; but where the capsule's rounded
// bottom rests on the edge of a top, the contact normal tilts. A player in
// the air lands only where it tilts less than Quake III allows for slopes;
// a player already on the ground stays on it as long as it rests on a top
// at all. That lets a walking player roll over the edge of a step it
// climbs, or of a ledge it walks off, without losing the ground for a
// step, while a falling player still slides off an edge it barely meets.
//
// A player resting in the notch between two edges touches only steep
// normals, yet cannot slide down: it lands too, or it would hang there
// with no way to jump out. The test for both cases is how far a slide
// down by the probe depth sinks: along one surface of normal n it sinks
// 1-n.Z² of the way, less than 1-0.7² exactly when n.Z > 0.7.
func (m *mover) supports(n geom.Vec3, walking bool) bool {
	switch {
	case n.Z <= 0:
		return false
	case walking || n.Z > minGroundNormal:
		return true
	}
	end, _, _ := m.w.slide(m.f, geom.Vec3{Z: -groundProbe}, 1, m.c, false)
	return m.f.Z-end.Z < (1-minGroundNormal*minGroundNormal)*groundProbe
}

// settle moves the feet down onto the ground, touched at fraction t of a
// probe depth deep, and stops any motion down into it.
func (m *mover) settle(t, depth float64) {
	m.f.Z -= depth * t
	m.v.Z = max(m.v.Z, 0)
}

// walk is the move on the ground (Quake III PM_WalkMove): friction,
// acceleration along the ground, a slide that climbs steps, and keeping the
// feet on the ground when it drops by at most a step (Source's
// CGameMovement::StayOnGround).
func (m *mover) walk(dt float64, dir geom.Vec3, speed float64) {
	m.friction(dt)
	m.accelerate(dir, speed, m.p.Accel, dt)
	m.v.Z = 0 // the ground is flat: walking is horizontal
	if m.v == (geom.Vec3{}) {
		return
	}
	m.stepSlide(dt)
	m.findGround()
	if m.onGround {
		return
	}
	if t, n, _, ok := m.w.sweep(m.f, geom.Vec3{Z: -m.p.StepHeight}, m.c); ok && m.supports(n, true) {
		m.onGround = true
		m.settle(t, m.p.StepHeight)
	}
}

// fall is the move in the air (Quake III PM_AirMove): a little steering and
// gravity. Half of gravity's change of speed is applied before the slide
// and half after, so the path over the command is the exact parabola.
func (m *mover) fall(dt float64, dir geom.Vec3, speed float64) {
	m.accelerate(dir, speed, m.p.AirAccel, dt)
	half := m.p.Gravity * dt / 2
	m.v.Z -= half
	m.f, m.v, _ = m.w.slide(m.f, m.v, dt, m.c, false)
	m.v.Z -= half
	m.findGround()
}

// friction slows horizontal motion on the ground (Quake III PM_Friction).
func (m *mover) friction(dt float64) {
	speed := math.Hypot(m.v.X, m.v.Y)
	if speed == 0 {
		return
	}
	drop := max(speed, m.p.StopSpeed) * m.p.Friction * dt
	m.v = m.v.Scale(max(speed-drop, 0) / speed)
}

// accelerate adds speed along dir until the velocity's component along it
// reaches wish (Quake III PM_Accelerate). Quake caps only that component,
// so pushing diagonally into a wall, or steering in the air, would build
// horizontal speed beyond wish; here acceleration never raises the
// horizontal speed above wish, so no trick makes a player faster than the
// Params allow (a player already faster keeps that speed).
func (m *mover) accelerate(dir geom.Vec3, wish, accel, dt float64) {
	add := wish - m.v.Dot(dir)
	if add <= 0 {
		return
	}
	before := horizontal2(m.v)
	m.v = m.v.AddScaled(dir, min(accel*dt*wish, add))
	if after := horizontal2(m.v); after > wish*wish && after > before {
		k := math.Sqrt(max(wish*wish, before) / after)
		m.v.X *= k
		m.v.Y *= k
	}
}

// stepSlide slides, and when the slide hit something, also tries the same
// move from StepHeight higher and put back down, and keeps whichever got
// farther horizontally (Quake III PM_StepSlideMove, Half-Life
// PM_WalkMove). The raised try only counts when the surface it lands on has
// its top within StepHeight of the feet: a capsule's rounded bottom would
// otherwise perch on, and creep up, the edge of a taller box.
func (m *mover) stepSlide(dt float64) {
	f0, v0 := m.f, m.v
	var touched bool
	m.f, m.v, touched = m.w.slide(f0, v0, dt, m.c, true)
	if !touched || m.p.StepHeight == 0 {
		return
	}
	rise := m.p.StepHeight
	if t, _, _, ok := m.w.sweep(f0, geom.Vec3{Z: rise}, m.c); ok {
		rise *= t
	}
	if rise == 0 {
		return
	}
	f, v, _ := m.w.slide(f0.Add(geom.Vec3{Z: rise}), v0, dt, m.c, true)
	t, _, box, ok := m.w.sweep(f, geom.Vec3{Z: -rise}, m.c)
	if !ok {
		f.Z -= rise
	} else {
		if m.w.top(box) > f0.Z+m.p.StepHeight {
			return
		}
		f.Z -= rise * t
		v.Z = max(v.Z, 0)
	}
	if horizontal2(f.Sub(f0)) > horizontal2(m.f.Sub(f0)) {
		m.f, m.v = f, v
	}
}

// slide moves the feet from f with velocity v for dt seconds, sliding along
// every surface it meets (Quake III PM_SlideMove); walking tells that the
// feet are on the ground. It returns the end position and velocity and
// whether it met any surface.
func (w *world) slide(f, v geom.Vec3, dt float64, c body, walking bool) (geom.Vec3, geom.Vec3, bool) {
	// The velocity is never turned into the ground walked on or back
	// against its original direction, which would make it jitter in
	// corners.
	var planes [maxPlanes]geom.Vec3
	np := 0
	if walking {
		planes[np] = up
		np++
	}
	planes[np] = v.Norm()
	np++
	touched := false
	left := dt
	for range maxBumps {
		d := v.Scale(left)
		t, n, _, ok := w.sweep(f, d, c)
		if !ok {
			return f.Add(d), v, touched
		}
		touched = true
		f = f.AddScaled(d, t)
		left -= left * t
		if known(planes[:np], n) {
			v = clip(v, n)
			continue
		}
		if np == maxPlanes {
			return f, geom.Vec3{}, true
		}
		planes[np] = n
		np++
		v = clipPlanes(v, planes[:np])
		if v == (geom.Vec3{}) {
			break
		}
	}
	return f, v, touched
}

// known reports whether n is (nearly) one of planes.
func known(planes []geom.Vec3, n geom.Vec3) bool {
	for _, p := range planes {
		if p.Dot(n) > 0.99 {
			return true
		}
	}
	return false
}

// clipPlanes returns v changed so that it goes into none of planes: clipped
// against the first plane it enters, slid along the crease of two planes
// when clipping against one sends it into another, and stopped in a corner
// of three.
func clipPlanes(v geom.Vec3, planes []geom.Vec3) geom.Vec3 {
	for i, pi := range planes {
		if v.Dot(pi) >= 0 {
			continue
		}
		c := clip(v, pi)
		for j, pj := range planes {
			if j == i || c.Dot(pj) >= 0 {
				continue
			}
			c = clip(c, pj)
			if c.Dot(pi) >= 0 {
				continue
			}
			dir := pi.Cross(pj).Norm()
			c = dir.Scale(dir.Dot(v))
			for k, pk := range planes {
				if k != i && k != j && c.Dot(pk) < 0 {
					return geom.Vec3{}
				}
			}
		}
		return c
	}
	return v
}

// clip removes the component of v along the surface normal n, and a little
// more when v goes into the surface (Quake III PM_ClipVelocity).
func clip(v, n geom.Vec3) geom.Vec3 {
	b := v.Dot(n)
	if b < 0 {
		b *= overclip
	} else {
		b /= overclip
	}
	return v.Sub(n.Scale(b))
}

// wish returns the horizontal direction and the speed the command's move
// intents ask for. The intent (Forward, Side) is a deflection like an
// analogue stick's: its length over 127, capped at 1, scales the speed.
// Every direction at full deflection then walks at full speed and half
// deflection at half, and two full keys, (127, 127), are no faster than
// one. Quake III's PM_CmdScale scales by the larger of the two instead,
// which suits keys that are each 0 or ±127, but walks an intent on the
// unit circle, such as (90, 90) at 45°, at 71% of the speed; bots and
// scripts steer with such intents. Rounding a unit direction to whole
// intents leaves its length within 0.6% of 127, so every full-deflection
// direction walks within 0.6% of full speed.
func wish(cmd *UserCmd, speed float64) (geom.Vec3, float64) {
	fwd, side := float64(max(cmd.Forward, -127)), float64(max(cmd.Side, -127))
	if fwd == 0 && side == 0 {
		return geom.Vec3{}, 0
	}
	sin, cos := math.Sincos(AngleToRad(int32(cmd.Yaw)))
	// Forward is (cos, sin); right, forward turned clockwise, is (sin, -cos).
	dir := geom.Vec3{X: fwd*cos + side*sin, Y: fwd*sin - side*cos}.Norm()
	// The sum of squares of whole numbers is exact and Sqrt is correctly
	// rounded, so the deflection is the same on every platform.
	return dir, speed * min(math.Sqrt(fwd*fwd+side*side)/127, 1)
}

// horizontal2 returns the squared length of v's horizontal part.
func horizontal2(v geom.Vec3) float64 { return v.X*v.X + v.Y*v.Y }

// clampPos replaces NaN coordinates by 0 and clamps the others to
// ±maxCoord.
func clampPos(p geom.Vec3) geom.Vec3 {
	return geom.Vec3{X: clampNum(p.X, maxCoord), Y: clampNum(p.Y, maxCoord), Z: clampNum(p.Z, maxCoord)}
}

// clampVel replaces NaN components by 0 and clamps the others to ±limit.
func clampVel(v geom.Vec3, limit float64) geom.Vec3 {
	return geom.Vec3{X: clampNum(v.X, limit), Y: clampNum(v.Y, limit), Z: clampNum(v.Z, limit)}
}

// clampNum returns x clamped to [-limit, limit], and 0 for NaN.
func clampNum(x, limit float64) float64 {
	if math.IsNaN(x) {
		return 0
	}
	return max(-limit, min(limit, x))
}

// snapVel rounds a velocity onto the VelQuantum grid.
func snapVel(v geom.Vec3) geom.Vec3 {
	return geom.Vec3{
		X: math.Round(v.X/VelQuantum) * VelQuantum,
		Y: math.Round(v.Y/VelQuantum) * VelQuantum,
		Z: math.Round(v.Z/VelQuantum) * VelQuantum,
	}
}
