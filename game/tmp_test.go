package game

import (
	"math/rand/v2"
	"testing"

	"github.com/lagkit/lagkit/geom"
)

func TestTmpMany(t *testing.T) {
	p := DefaultParams()
	for seed := range uint64(60) {
		boxes := room(seed+100, 150)
		g := geom.NewGrid(boxes, 2)
		rng := rand.New(rand.NewPCG(seed, 2))
		s := spawnClear(t, rng, &p, boxes)
		hold := randomCmd(rng)
		stuck := 0
		for i := range 4000 {
			if rng.IntN(8) == 0 {
				hold = randomCmd(rng)
			}
			prev := s
			s = Move(s, hold, g, &p)
			if !s.Has(FlagOnGround) && s.Pos == prev.Pos && hold.Duration > 0 {
				stuck++
				if stuck < 4 {
					t.Logf("seed %d step %d: %+v -> %+v cmd %+v", seed, i, prev, s, hold)
					_, b := minGap(s, &p, boxes)
					if b >= 0 {
						t.Logf("  nearest box %v", boxes[b])
					}
				}
			}
		}
		if stuck > 0 {
			t.Logf("seed %d stuck %d", seed, stuck)
		}
	}
}
