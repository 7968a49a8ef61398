package game

import (
	"fmt"
	"hash/fnv"
	"math"
)

// Params are the movement constants: the player's size, speeds, and the
// acceleration, friction and gravity of the movement step. Server and
// clients must use identical Params, or prediction will diverge.
type Params struct {
	// Radius is the radius of the player's movement capsule.
	Radius float64
	// Height and CrouchHeight are the capsule's height standing and
	// crouched; each is at least 2*Radius.
	Height, CrouchHeight float64
	// EyeHeight and CrouchEyeHeight are the view origin's height above the
	// feet standing and crouched.
	EyeHeight, CrouchEyeHeight float64

	// WalkSpeed is the running speed; CrouchSpeed replaces it while
	// crouched.
	WalkSpeed, CrouchSpeed float64
	// SprintSpeed replaces WalkSpeed while BtnSprint is held standing, but
	// only when Sprint is true.
	SprintSpeed float64
	Sprint      bool

	// Accel and AirAccel scale the acceleration towards the wished
	// velocity on the ground and in the air: each step adds at most
	// Accel*speed*dt (Quake III PM_Accelerate).
	Accel, AirAccel float64
	// Friction slows a player on the ground by Friction*max(speed,
	// StopSpeed) per second (Quake III PM_Friction), so below StopSpeed
	// the deceleration is the constant Friction*StopSpeed.
	Friction, StopSpeed float64

	// Gravity is the downward acceleration in the air.
	Gravity float64
	// JumpSpeed is the upward take-off speed of a jump; the jump rises
	// JumpSpeed²/(2*Gravity).
	JumpSpeed float64
	// StepHeight is the tallest ledge a player on the ground walks up
	// without jumping.
	StepHeight float64
	// MaxVelocity caps each velocity component, like Source's
	// sv_maxvelocity. It also bounds how far one command can move a
	// player, and so the region the movement step searches for boxes.
	MaxVelocity float64
}

// DefaultParams returns the movement constants of lagkit's studies: a
// 0.4 m by 1.8 m capsule (1.2 m crouched), 4 m/s walking and crouch
// walking, no sprint, and ~1.1 m jumps.
func DefaultParams() Params {
	const (
		gravity    = 20  // m/s², Quake III's 800 units/s² at about 1 inch per unit
		jumpHeight = 1.1 // m
	)
	return Params{
		Radius:          0.4,
		Height:          1.8,
		CrouchHeight:    1.2,
		EyeHeight:       1.65,
		CrouchEyeHeight: 1.05,
		WalkSpeed:       4,
		CrouchSpeed:     4,
		SprintSpeed:     6.5,
		// Friction slows a walking player exponentially, at a rate of
		// 24/s, down to StopSpeed and then by a constant 24 m/s², which
		// stops a walking player in (1+ln 4)/24 ≈ 0.1 s. Accel at least
		// Friction makes the steady speed the wish speed; 30/s reaches
		// walk speed from rest in about 0.07 s. As in Quake III
		// (pm_accelerate 10, pm_friction 6, pm_stopspeed 100 of 320
		// units/s), input below Friction*StopSpeed/Accel = 0.8 m/s (a
		// fifth of full input) cannot overcome friction from rest.
		Accel:     30,
		Friction:  24,
		StopSpeed: 1,
		// Quake III's pm_airaccelerate: a jump can be steered, a little.
		AirAccel:    1,
		Gravity:     gravity,
		JumpSpeed:   math.Sqrt(2 * gravity * jumpHeight),
		StepHeight:  0.35,
		MaxVelocity: 50,
	}
}

// defaultParams serves Move and the pose functions when they get nil
// Params.
var defaultParams = DefaultParams()

// Validate reports the first field of p that Move cannot work with.
func (p Params) Validate() error {
	checks := []struct {
		name string
		v    float64
		ok   bool
		want string
	}{
		{"Radius", p.Radius, p.Radius > 0, "positive"},
		{"CrouchHeight", p.CrouchHeight, p.CrouchHeight >= 2*p.Radius, "at least 2*Radius"},
		{"Height", p.Height, p.Height >= p.CrouchHeight, "at least CrouchHeight"},
		{"CrouchEyeHeight", p.CrouchEyeHeight, p.CrouchEyeHeight > 0 && p.CrouchEyeHeight <= p.CrouchHeight, "in (0, CrouchHeight]"},
		{"EyeHeight", p.EyeHeight, p.EyeHeight >= p.CrouchEyeHeight && p.EyeHeight <= p.Height, "in [CrouchEyeHeight, Height]"},
		{"WalkSpeed", p.WalkSpeed, p.WalkSpeed > 0, "positive"},
		{"CrouchSpeed", p.CrouchSpeed, p.CrouchSpeed > 0, "positive"},
		{"SprintSpeed", p.SprintSpeed, p.SprintSpeed > 0, "positive"},
		{"Accel", p.Accel, p.Accel > 0, "positive"},
		{"AirAccel", p.AirAccel, p.AirAccel >= 0, "non-negative"},
		{"Friction", p.Friction, p.Friction >= 0, "non-negative"},
		{"StopSpeed", p.StopSpeed, p.StopSpeed >= 0, "non-negative"},
		{"Gravity", p.Gravity, p.Gravity > 0, "positive"},
		{"JumpSpeed", p.JumpSpeed, p.JumpSpeed >= 0, "non-negative"},
		{"StepHeight", p.StepHeight, p.StepHeight >= 0 && p.StepHeight < p.CrouchHeight, "in [0, CrouchHeight)"},
		{"MaxVelocity", p.MaxVelocity, p.MaxVelocity > 0, "positive"},
	}
	for _, c := range checks {
		if !c.ok || math.IsInf(c.v, 0) || math.IsNaN(c.v) {
			return fmt.Errorf("game: params: %s is %v, want %s and finite", c.name, c.v, c.want)
		}
	}
	return nil
}

// body returns the movement capsule for the given stance.
func (p *Params) body(crouched bool) body {
	if crouched {
		return body{p.Radius, p.CrouchHeight}
	}
	return body{p.Radius, p.Height}
}

// eyeHeight returns the view origin's height above the feet.
func (p *Params) eyeHeight(crouched bool) float64 {
	if crouched {
		return p.CrouchEyeHeight
	}
	return p.EyeHeight
}

// wishSpeed returns the speed a player moving at full input wants.
func (p *Params) wishSpeed(crouched, sprint bool) float64 {
	switch {
	case crouched:
		return p.CrouchSpeed
	case sprint && p.Sprint:
		return p.SprintSpeed
	}
	return p.WalkSpeed
}

// maxWishSpeed returns the largest speed any input can wish for.
func (p *Params) maxWishSpeed() float64 {
	s := max(p.WalkSpeed, p.CrouchSpeed)
	if p.Sprint {
		s = max(s, p.SprintSpeed)
	}
	return s
}

// Hash returns a hash of the rules, the same in every build for the
// same values: a client states it when it connects, so that a server
// with other rules, which the client's prediction would not follow,
// refuses it.
func (p *Params) Hash() uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%+v", *p)
	return max(h.Sum64(), 1)
}
