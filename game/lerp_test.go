package game

import (
	"math"
	"math/rand/v2"
	"testing"
)

// exactYaw returns the exact yaw, in angle units within [0, AngleUnits),
// a fraction frac of the way from a to b along the shorter arc.
func exactYaw(a, b uint16, frac float64) float64 {
	d := math.Mod(float64(b)-float64(a)+AngleUnits/2, AngleUnits) - AngleUnits/2
	if d < -AngleUnits/2 {
		d += AngleUnits
	}
	return math.Mod(float64(a)+d*frac+AngleUnits, AngleUnits)
}

// yawOff returns got - want in angle units, the shorter way round.
func yawOff(got uint16, want float64) float64 {
	d := math.Mod(float64(got)-want, AngleUnits)
	switch {
	case d > AngleUnits/2:
		d -= AngleUnits
	case d < -AngleUnits/2:
		d += AngleUnits
	}
	return d
}

// TestInterpolateAnglesRoundToNearest: over many random pairs, including
// pairs across the wrap at a full turn and at ±π, the interpolated yaw is
// within half an angle unit (the wire's angle quantum) of the exact
// shorter-arc value and the pitch within half a unit of the exact linear
// one, and neither leans towards either state: the mean error along the
// direction of the turn is zero.
func TestInterpolateAnglesRoundToNearest(t *testing.T) {
	const seed = 7
	rng := rand.New(rand.NewPCG(seed, 0))
	var bias, pitchBias float64
	var n, pn int
	for i := range 200_000 {
		// Arcs short of a half turn, which has no shorter way round.
		var a uint16
		switch i % 4 {
		case 0:
			a = uint16(rng.IntN(AngleUnits))
		case 1: // across the wrap at a full turn (0)
			a = uint16(AngleUnits - 1 - rng.IntN(64))
		case 2: // across the wrap at ±π (yaw as a signed angle)
			a = uint16(AngleUnits/2 - 1 - rng.IntN(64))
		case 3: // down across ±π
			a = uint16(AngleUnits/2 + rng.IntN(64))
		}
		d := rng.IntN(AngleUnits-1) - (AngleUnits/2 - 1)
		if i%4 != 0 {
			d = rng.IntN(256) - 128
			if i%4 == 3 {
				d = -rng.IntN(256)
			}
		}
		b := a + uint16(d)
		pa, pb := int16(rng.IntN(2*MaxPitch+1)-MaxPitch), int16(rng.IntN(2*MaxPitch+1)-MaxPitch)
		frac := rng.Float64()
		got := Interpolate(PlayerState{Yaw: a, Pitch: pa}, PlayerState{Yaw: b, Pitch: pb}, frac)
		off := yawOff(got.Yaw, exactYaw(a, b, frac))
		if math.Abs(off) > 0.5+1e-9 {
			t.Fatalf("seed %d: yaw %d to %d at %v: %d, %.3f units from the exact %.3f", seed, a, b, frac, got.Yaw, off, exactYaw(a, b, frac))
		}
		wantP := float64(pa) + (float64(pb)-float64(pa))*frac
		pOff := float64(got.Pitch) - wantP
		if math.Abs(pOff) > 0.5+1e-9 {
			t.Fatalf("seed %d: pitch %d to %d at %v: %d, want %.3f", seed, pa, pb, frac, got.Pitch, wantP)
		}
		if d != 0 {
			bias += off * math.Copysign(1, float64(d))
			n++
		}
		if pb != pa {
			pitchBias += pOff * math.Copysign(1, float64(pb-pa))
			pn++
		}
	}
	// Truncation leans back towards a, by about half a unit on average.
	if m := bias / float64(n); math.Abs(m) > 0.01 {
		t.Errorf("seed %d: mean yaw error along the turn %.4f units, want 0", seed, m)
	}
	if m := pitchBias / float64(pn); math.Abs(m) > 0.01 {
		t.Errorf("seed %d: mean pitch error along the turn %.4f units, want 0", seed, m)
	}
}

// TestInterpolateTakesTheRestFromTheNearer: every field of PlayerState
// other than the blended position, velocity and angles comes from the
// nearer state, including any field added later (Interpolate lists them
// one by one).
func TestInterpolateTakesTheRestFromTheNearer(t *testing.T) {
	blended := map[string]bool{"Pos": true, "Vel": true, "Yaw": true, "Pitch": true}
	var a, b PlayerState
	fillFields(t, &a, blended, 1, 1)
	fillFields(t, &b, blended, 2, 3)
	b.Teleport = a.Teleport // blend, not the teleport rule
	for _, frac := range []float64{0, 0.25, 0.4999, 0.5, 0.75, 1} {
		got := Interpolate(a, b, frac)
		want := a
		if frac >= 0.5 {
			want = b
		}
		want.Pos, want.Vel, want.Yaw, want.Pitch = got.Pos, got.Vel, got.Yaw, got.Pitch
		if got != want {
			t.Errorf("frac %v: got %+v, want the rest from %+v", frac, got, want)
		}
	}
}
