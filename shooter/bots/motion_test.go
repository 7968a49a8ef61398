package bots

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/lagkit/lagkit/geom"
)

// runPath follows waypoints from the first as follow does (a waypoint
// within 0.5 m is reached, the bot aims along the leg), moving at speed with the runner's heading,
// and returns the positions, one a tick, until the last waypoint is
// reached or limit ticks have passed.
func runPath(seed uint64, path []geom.Vec3, speed float64, limit int) []geom.Vec3 {
	rng := rand.New(rand.NewPCG(seed, 1))
	var r runner
	pos, from := path[0], path[0]
	path = path[1:]
	dt := tick.Seconds()
	var out []geom.Vec3
	for range limit {
		for len(path) > 0 && math.Hypot(path[0].X-pos.X, path[0].Y-pos.Y) <= 0.5 {
			from, path = path[0], path[1:]
		}
		if len(path) == 0 {
			break
		}
		d, aim := path[0].Sub(pos), aimPoint(from, path[0], pos).Sub(pos)
		h := r.step(rng, dt, math.Atan2(aim.Y, aim.X), math.Hypot(d.X, d.Y), speed)
		pos = pos.Add(geom.V(math.Cos(h), math.Sin(h), 0).Scale(speed * dt))
		out = append(out, pos)
	}
	return out
}

// distToPath returns the distance from p to the polyline.
func distToPath(p geom.Vec3, path []geom.Vec3) float64 {
	best := math.Inf(1)
	for i := 1; i < len(path); i++ {
		a, b := path[i-1], path[i]
		ab := b.Sub(a)
		t := max(0, min(1, p.Sub(a).Dot(ab)/ab.Len2()))
		best = min(best, p.Dist(a.AddScaled(ab, t)))
	}
	return best
}

// nearestDist returns the distance from p to the nearest of points.
func nearestDist(p geom.Vec3, points []geom.Vec3) float64 {
	best := math.Inf(1)
	for _, q := range points {
		best = min(best, p.Dist(q))
	}
	return best
}

// A zig-zag of corridors with right-angle, sharp and reversing turns.
var zigzag = []geom.Vec3{
	geom.V(0, 0, 0), geom.V(12, 0, 0), geom.V(12, 8, 0), geom.V(2, 10, 0),
	geom.V(2, 3, 0), geom.V(9, 3, 0), geom.V(1, 2.5, 0), geom.V(20, 15, 0),
}

// TestRunnerFollowsPath: seed after seed, a runner reaches the end of a
// path of sharp corners in about the time the path takes at full speed
// (it never circles a waypoint), keeps near the path, and runs the same
// way for the same seed.
func TestRunnerFollowsPath(t *testing.T) {
	length := 0.0
	for i := 1; i < len(zigzag); i++ {
		length += zigzag[i].Dist(zigzag[i-1])
	}
	ideal := length / 4 / tick.Seconds()
	for seed := range uint64(50) {
		ps := runPath(seed, zigzag, 4, 4*int(ideal))
		end := ps[len(ps)-1]
		if end.Dist(zigzag[len(zigzag)-1]) > 0.5+4*tick.Seconds() {
			t.Fatalf("seed %d: stopped %.1f m from the end after %d ticks (%d at full speed)", seed, end.Dist(zigzag[len(zigzag)-1]), len(ps), int(ideal))
		}
		if float64(len(ps)) > 1.25*ideal {
			t.Errorf("seed %d: %d ticks for a path of %d ticks at full speed", seed, len(ps), int(ideal))
		}
		// Between corners the bot keeps within about lookAhead·tan(driftMax)
		// of the line; a corner is an arc, a reversal one of diameter
		// 2·speed/turnRate.
		worst, worstLeg := 0.0, 0.0
		for _, p := range ps {
			d := distToPath(p, zigzag)
			worst = max(worst, d)
			if nearestDist(p, zigzag) > 3 {
				worstLeg = max(worstLeg, d)
			}
		}
		if worstLeg > 1.25 || worst > 2*4/turnRate+0.25 {
			t.Errorf("seed %d: strayed %.2f m from the path between corners, %.2f m at one", seed, worstLeg, worst)
		}
		again := runPath(seed, zigzag, 4, 4*int(ideal))
		if len(again) != len(ps) || again[len(again)-1] != end {
			t.Fatalf("seed %d: two runs differ", seed)
		}
	}
}

// TestRunnerTurnsAndWanders: on a long straight run the heading wanders
// around the way to go, within driftMax, with a spread near driftSigma,
// and turns no faster than turnRate; a corner is rounded over several
// ticks rather than taken at once.
func TestRunnerTurnsAndWanders(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 1))
	var r runner
	dt := tick.Seconds()
	var sum2 float64
	n := 64 * 600
	prev := r.step(rng, dt, 0, 100, 4)
	for range n {
		h := r.step(rng, dt, 0, 100, 4)
		if math.Abs(h) > driftMax+1e-9 {
			t.Fatalf("heading %.3f rad off the way to go, bound %.3f", h, driftMax)
		}
		if turn := math.Abs(math.Remainder(h-prev, 2*math.Pi)); turn > turnRate*dt+1e-9 {
			t.Fatalf("turned %.4f rad in a tick, limit %.4f", turn, turnRate*dt)
		}
		sum2 += h * h
		prev = h
	}
	if sd := math.Sqrt(sum2 / float64(n)); sd < 0.6*driftSigma || sd > 1.2*driftSigma {
		t.Errorf("heading spread %.3f rad, want near %.3f", sd, driftSigma)
	}
	// A right-angle corner far from the next waypoint takes at least
	// (π/2)/turnRate to turn.
	ticks := 0
	for h := prev; math.Abs(math.Remainder(h-math.Pi/2, 2*math.Pi)) > driftMax; ticks++ {
		h = r.step(rng, dt, math.Pi/2, 100, 4)
	}
	if min := int((math.Pi/2 - 2*driftMax) / turnRate / dt); ticks < min {
		t.Errorf("a right angle turned in %d ticks, want at least %d", ticks, min)
	}
	// Standing, the bot sets off the way it wants at once.
	r.stop()
	if h := r.step(rng, dt, -math.Pi/2, 100, 4); math.Abs(math.Remainder(h+math.Pi/2, 2*math.Pi)) > driftMax {
		t.Errorf("set off at %.2f rad, want about %.2f", h, -math.Pi/2)
	}
}
