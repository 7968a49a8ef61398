package timewarp

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/lagkit/lagkit/geom"
)

// segDist returns the distance from c to ray's segment up to maxDist.
func segDist(ray geom.Ray, maxDist float64, c geom.Vec3) float64 {
	best := math.Inf(1)
	const steps = 400
	for k := range steps + 1 {
		best = min(best, ray.At(maxDist*float64(k)/steps).Dist(c))
	}
	return best
}

// TestPruningIsConservative: the box prunes only what cannot meet the
// spheres it holds: a ray it says stays clear passes every sphere by, a
// blast it says falls short reaches none of their centres, and a sphere
// Near leaves out is passed by.
func TestPruningIsConservative(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	pruned, blasts, far := 0, 0, 0
	for range 2000 {
		var r Reach
		if r.Meets(PathOf(geom.Ray{Dir: geom.V(1, 0, 0)}, 5, false)) || r.BlastNear(geom.Vec3{}, 100) {
			t.Fatal("an empty box is met")
		}
		centres := make([]geom.Vec3, 1+rng.IntN(4))
		const rad = 1.0
		for i := range centres {
			centres[i] = geom.V(rng.Float64()*8-4, rng.Float64()*8-4, rng.Float64()*2)
			r.Add(centres[i], rad)
		}
		aim := centres[rng.IntN(len(centres))].Add(geom.V(rng.Float64()*6-3, rng.Float64()*6-3, rng.Float64()*4-2))
		ray := geom.Ray{Origin: geom.V(rng.Float64()*20-10, rng.Float64()*20-10, rng.Float64()*4-1)}
		ray.Dir = aim.Sub(ray.Origin).Norm()
		dist := max(aim.Dist(ray.Origin)+rng.Float64()*2-1, 0)
		if !Finite(ray, dist) {
			continue
		}
		if !r.MeetsRay(ray, dist) {
			pruned++
			for _, c := range centres {
				if d := segDist(ray, dist, c); d <= rad {
					t.Fatalf("ray %+v up to %.2f pruned, but it passes %v at %.3f", ray, dist, c, d)
				}
			}
		}
		for _, c := range centres {
			if !Near(ray, dist, c, rad) {
				far++
				if d := segDist(ray, dist, c); d <= rad {
					t.Fatalf("ray %+v up to %.2f passes %v by, but comes within %.3f", ray, dist, c, d)
				}
			}
		}
		centre := aim.Add(geom.V(rng.Float64()*10-5, rng.Float64()*10-5, rng.Float64()*4-2))
		if !r.BlastNear(centre, 2.5) {
			blasts++
			for _, c := range centres {
				if centre.Dist(c) < 2.5 {
					t.Fatalf("blast at %v pruned, but %v lies %.3f from it", centre, c, centre.Dist(c))
				}
			}
		}
	}
	if pruned < 100 || blasts < 100 || far < 500 {
		t.Fatalf("%d rays, %d blasts and %d spheres passed by of 2000: the test shows little", pruned, blasts, far)
	}
}

// TestPruningRefusesWhatIsNotFinite: a ray with no direction or with a
// coordinate that is not a number is never left out by Near (Finite is
// false), a box met by a path whose every coordinate is not a number,
// and a blast at a centre that is not a number is near.
func TestPruningRefusesWhatIsNotFinite(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		ray  geom.Ray
		dist float64
	}{
		{geom.Ray{Dir: geom.Vec3{}}, 5},
		{geom.Ray{Origin: geom.V(nan, 0, 0), Dir: geom.V(1, 0, 0)}, 5},
		{geom.Ray{Dir: geom.V(math.Inf(1), 0, 0)}, 5},
		{geom.Ray{Dir: geom.V(1, 0, 0)}, nan},
	} {
		if Finite(tc.ray, tc.dist) {
			t.Errorf("ray %+v up to %v is finite", tc.ray, tc.dist)
		}
	}
	var r Reach
	r.Add(geom.V(100, 100, 0), 1)
	if !r.BlastNear(geom.V(nan, 0, 0), 1) {
		t.Error("a blast at NaN is pruned")
	}
	if !r.MeetsRay(geom.Ray{Origin: geom.V(nan, nan, nan), Dir: geom.V(1, 0, 0)}, 1) {
		t.Error("a ray from NaN is pruned")
	}
	if r.Empty() {
		t.Error("a box holding a sphere is empty")
	}
	r.Clear()
	if !r.Empty() {
		t.Error("a cleared box holds something")
	}
}
