package game

import "math"

// Interpolate blends two states of one player, a at fraction 0 and b at 1:
// position, velocity and view angles linearly (yaw along the shorter arc),
// flags from the nearer state. Across a teleport it does not slide: it
// returns the nearer state. Observers (client interpolation) and the
// server's lag compensation history both use it, so a rewound pose is the
// pose the shooter's client drew.
//
// Angles round to the nearest angle unit, ties to even: truncating would
// pull every blended angle towards a by up to a unit, always the same
// way, so a turning player would be drawn, and rewound, lagging behind
// its turn.
func Interpolate(a, b PlayerState, frac float64) PlayerState {
	if a.Teleport != b.Teleport {
		if frac < 0.5 {
			return a
		}
		return b
	}
	// The result is built field by field rather than as a copy of the
	// nearer state with some fields replaced: a whole-struct copy of an
	// argument the caller just stored field by field stalls the load of
	// each 16 bytes, which made the copies cost more than the blending.
	// TestInterpolateTakesTheRestFromTheNearer keeps the list complete.
	near := &a
	if frac >= 0.5 {
		near = &b
	}
	dy := int16(b.Yaw - a.Yaw) // shorter arc, wrapping at a full turn
	dp := int32(b.Pitch) - int32(a.Pitch)
	return PlayerState{
		Pos:        a.Pos.Lerp(b.Pos, frac),
		Vel:        a.Vel.Lerp(b.Vel, frac),
		Yaw:        a.Yaw + uint16(int32(math.RoundToEven(float64(dy)*frac))),
		Pitch:      a.Pitch + int16(math.RoundToEven(float64(dp)*frac)),
		Flags:      near.Flags,
		Teleport:   near.Teleport,
		Health:     near.Health,
		Ammo:       near.Ammo,
		Heat:       near.Heat,
		WeaponWait: near.WeaponWait,
		Weapon:     near.Weapon,
	}
}
