package game

import (
	"math"
	"strings"
	"testing"
)

func TestParamsValidate(t *testing.T) {
	if err := DefaultParams().Validate(); err != nil {
		t.Fatalf("DefaultParams: %v", err)
	}
	tests := []struct {
		field string
		edit  func(*Params)
	}{
		{"Radius", func(p *Params) { p.Radius = 0 }},
		{"Radius", func(p *Params) { p.Radius = math.NaN() }},
		{"CrouchHeight", func(p *Params) { p.CrouchHeight = 0.7 }},
		{"Height", func(p *Params) { p.Height = 1 }},
		{"Height", func(p *Params) { p.Height = math.Inf(1) }},
		{"CrouchEyeHeight", func(p *Params) { p.CrouchEyeHeight = 1.3 }},
		{"EyeHeight", func(p *Params) { p.EyeHeight = 1 }},
		{"EyeHeight", func(p *Params) { p.EyeHeight = 1.9 }},
		{"WalkSpeed", func(p *Params) { p.WalkSpeed = -4 }},
		{"CrouchSpeed", func(p *Params) { p.CrouchSpeed = 0 }},
		{"SprintSpeed", func(p *Params) { p.SprintSpeed = math.NaN() }},
		{"Accel", func(p *Params) { p.Accel = 0 }},
		{"AirAccel", func(p *Params) { p.AirAccel = -1 }},
		{"Friction", func(p *Params) { p.Friction = math.Inf(1) }},
		{"StopSpeed", func(p *Params) { p.StopSpeed = -1 }},
		{"Gravity", func(p *Params) { p.Gravity = 0 }},
		{"JumpSpeed", func(p *Params) { p.JumpSpeed = -1 }},
		{"StepHeight", func(p *Params) { p.StepHeight = 1.2 }},
		{"MaxVelocity", func(p *Params) { p.MaxVelocity = 0 }},
	}
	for _, tc := range tests {
		p := DefaultParams()
		tc.edit(&p)
		err := p.Validate()
		if err == nil || !strings.Contains(err.Error(), "params: "+tc.field+" ") {
			t.Errorf("bad %s: Validate() = %v, want an error naming it", tc.field, err)
		}
	}
}

// TestDefaultParamsJumpHeight: the take-off speed gives the 1.1 m jump of
// v² = 2gh.
func TestDefaultParamsJumpHeight(t *testing.T) {
	p := DefaultParams()
	if h := p.JumpSpeed * p.JumpSpeed / (2 * p.Gravity); math.Abs(h-1.1) > 1e-12 {
		t.Errorf("jump height %v m, want 1.1", h)
	}
}
