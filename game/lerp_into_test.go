package game

import (
	"math/rand/v2"
	"testing"

	"github.com/lagkit/lagkit/geom"
)

// TestInterpolateIntoMatchesInterpolate: InterpolateInto gives what
// Interpolate returns, also when it writes over either state it blends.
func TestInterpolateIntoMatchesInterpolate(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	state := func() PlayerState {
		return PlayerState{
			Pos: geom.V(rng.NormFloat64()*20, rng.NormFloat64()*20, rng.Float64()*5),
			Vel: geom.V(rng.NormFloat64()*5, rng.NormFloat64()*5, rng.NormFloat64()),
			Yaw: uint16(rng.Uint32()), Pitch: int16(rng.IntN(2001) - 1000),
			Flags: StateFlags(rng.Uint32()), Teleport: uint8(rng.IntN(2)),
			Health: int16(rng.IntN(101)), Game: State{rng.Uint64(), rng.Uint64()},
		}
	}
	for i := range 10000 {
		a, b := state(), state()
		frac := rng.Float64()
		want := Interpolate(a, b, frac)
		var out PlayerState
		InterpolateInto(&out, &a, &b, frac)
		intoA, intoB := a, b
		InterpolateInto(&intoA, &intoA, &b, frac)
		InterpolateInto(&intoB, &a, &intoB, frac)
		if out != want || intoA != want || intoB != want {
			t.Fatalf("case %d, frac %v: Interpolate %+v, InterpolateInto %+v, into a %+v, into b %+v", i, frac, want, out, intoA, intoB)
		}
	}
}
