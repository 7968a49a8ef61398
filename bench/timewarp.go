package bench

import (
	"fmt"
	"math"
	"time"

	"github.com/lagkit/lagkit/experiment"
	"github.com/lagkit/lagkit/internal/fixture"
	"github.com/lagkit/lagkit/server"
)

// warpEntities are the crowd sizes the time warp figure fits its
// exponent over; the figure itself is the cost at the largest.
var warpEntities = []float64{10, 25, 50, 100}

// warpRewind is the time the time warp figure re-simulates.
const warpRewind = 300 * time.Millisecond

// timeWarpFigure measures one time warp: re-simulating the last 300 ms
// for one late player among 10, 25, 50 and 100 players moving and firing
// (fixture.WarpCrowd, the scene of BenchmarkTimeWarp), each player in
// turn. A sample is the mean of a batch of warps; the crowds are sampled
// in turn, rounds times, and each keeps its fastest sample (other
// processes only add time). The exponent is the least-squares slope of
// log cost on log entities.
func timeWarpFigure(quick bool) (Figure, error) {
	rounds, batch := 5, 200
	if quick {
		rounds, batch = 3, 100
	}
	crowds := make([]*server.Server, len(warpEntities))
	for i, n := range warpEntities {
		s, err := fixture.WarpCrowd(int(n))
		if err != nil {
			return Figure{}, err
		}
		crowds[i] = s
	}
	ticks := int(math.Round(float64(warpRewind) / float64(crowds[0].TickDuration())))
	us := make([]float64, len(crowds))
	for i := range us {
		us[i] = math.Inf(1)
	}
	for range rounds {
		for i, s := range crowds {
			n := int(warpEntities[i])
			start := time.Now()
			for k := range batch {
				if _, err := s.Resimulate(k%n, ticks); err != nil {
					return Figure{}, err
				}
			}
			us[i] = min(us[i], float64(time.Since(start).Nanoseconds())/1e3/float64(batch))
		}
	}
	last := len(us) - 1
	return Figure{
		Name:  fmt.Sprintf("time warp, %.0f entities, %d ms rewind", warpEntities[last], warpRewind.Milliseconds()),
		Value: us[last], Unit: "µs", Goal: 100,
		Exponent: experiment.Exponent(warpEntities, us), ExponentOf: "entities", ExponentGoal: 1,
		Note: fmt.Sprintf("%.1f, %.1f, %.1f µs at %.0f, %.0f, %.0f entities; %d ticks", us[0], us[1], us[2], warpEntities[0], warpEntities[1], warpEntities[2], ticks),
	}, nil
}
