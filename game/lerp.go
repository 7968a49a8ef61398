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
	out := a
	if frac >= 0.5 {
		out = b
	}
	out.Pos = a.Pos.Lerp(b.Pos, frac)
	out.Vel = a.Vel.Lerp(b.Vel, frac)
	dy := int16(b.Yaw - a.Yaw) // shorter arc, wrapping at a full turn
	out.Yaw = a.Yaw + uint16(int32(math.RoundToEven(float64(dy)*frac)))
	dp := int32(b.Pitch) - int32(a.Pitch)
	out.Pitch = a.Pitch + int16(math.RoundToEven(float64(dp)*frac))
	return out
}
