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
	var out PlayerState
	InterpolateInto(&out, &a, &b, frac)
	return out
}

// InterpolateInto sets *out to Interpolate(*a, *b, frac) without
// copying the states on the way, for callers that blend many. out may
// be a or b.
func InterpolateInto(out, a, b *PlayerState, frac float64) {
	if a.Teleport != b.Teleport {
		if frac < 0.5 {
			*out = *a
		} else {
			*out = *b
		}
		return
	}
	pos := a.Pos.Lerp(b.Pos, frac)
	vel := a.Vel.Lerp(b.Vel, frac)
	dy := int16(b.Yaw - a.Yaw) // shorter arc, wrapping at a full turn
	yaw := a.Yaw + uint16(int32(math.RoundToEven(float64(dy)*frac)))
	dp := int32(b.Pitch) - int32(a.Pitch)
	pitch := a.Pitch + int16(math.RoundToEven(float64(dp)*frac))
	if frac >= 0.5 {
		*out = *b
	} else {
		*out = *a
	}
	out.Pos, out.Vel, out.Yaw, out.Pitch = pos, vel, yaw, pitch
}
