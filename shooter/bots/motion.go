package bots

import (
	"math"
	"math/rand/v2"

	"github.com/lagkit/lagkit/geom"
)

// Running the way people run. A person steers with the mouse while
// holding a movement key, so the running direction turns at a finite
// rate (a corner becomes an arc) and wanders a little around the way to
// go as the view drifts and is corrected. Bots that ran in straight
// lines and turned at once would make dead reckoning almost free between
// corners and every update a corner, which is not how people move.
const (
	// turnRate is the fastest the running direction turns far from a
	// waypoint, in radians a second: 5 rad/s rounds a corner at 4 m/s
	// on an arc of 0.8 m radius.
	turnRate = 5.0
	// driftSigma is the standard deviation of the heading's wander
	// around the way to go, driftTau its correlation time (an
	// Ornstein-Uhlenbeck process), and driftMax its bound, which keeps
	// the bot heading towards its waypoint.
	driftSigma = 0.25 // radians, 14 degrees
	driftTau   = 0.6  // seconds
	driftMax   = 0.5  // radians, 29 degrees
	// driftFade is the distance to a waypoint below which the wander
	// fades out, so the bot walks onto its waypoints.
	driftFade = 2.0 // metres
	// lookAhead is how far along its path a bot aims: aiming at the
	// point that far beyond its own place on the path, rather than at
	// the waypoint, brings a bot that wandered aside back onto the line
	// (pure pursuit: R. C. Coulter, "Implementation of the Pure Pursuit
	// Path Tracking Algorithm", CMU-RI-TR-92-01, 1992).
	lookAhead = 2.0 // metres
	// standSpeed is the horizontal speed below which a bot counts as
	// standing, free to set off in any direction.
	standSpeed = 1.0 // m/s
)

// runner is the state of a running heading: where the bot runs, and the
// wander of that direction around the way to its waypoint.
type runner struct {
	heading float64 // radians, world yaw of the running direction
	drift   float64 // radians, the wander's current offset
	running bool
}

// stop forgets the heading: the next run starts in the wanted direction
// at once, as a standing person can set off any way.
func (r *runner) stop() { r.running = false }

// step advances the heading by dt seconds towards want (a world yaw)
// plus the wander, for a waypoint dist metres away at speed metres a
// second, and returns the new heading. The turn rate grows near the
// waypoint to at least 2·speed/dist, the rate whose arc reaches a point
// at distance dist in any direction, so the bot never circles its
// waypoint.
func (r *runner) step(rng *rand.Rand, dt, want, dist, speed float64) float64 {
	r.drift = max(-driftMax, min(driftMax, ou(rng, r.drift, driftSigma, driftTau, dt)))
	target := want + r.drift*min(1, max(0, dist-0.5)/driftFade)
	if !r.running {
		r.heading, r.running = math.Remainder(target, 2*math.Pi), true
		return r.heading
	}
	rate := turnRate
	if dist > 0 {
		rate = max(rate, 2*speed/dist)
	}
	maxTurn := rate * dt
	d := math.Remainder(target-r.heading, 2*math.Pi)
	r.heading = math.Remainder(r.heading+max(-maxTurn, min(maxTurn, d)), 2*math.Pi)
	return r.heading
}

// ou advances an Ornstein-Uhlenbeck process x of stationary standard
// deviation sigma and correlation time tau by dt seconds, exactly
// (Gillespie 1996, "Exact numerical simulation of the Ornstein-Uhlenbeck
// process and its integral", Phys. Rev. E 54, 2084, eq. 1.9).
func ou(rng *rand.Rand, x, sigma, tau, dt float64) float64 {
	decay := math.Exp(-dt / tau)
	return x*decay + sigma*math.Sqrt(1-decay*decay)*rng.NormFloat64()
}

// aimPoint returns where a bot at pos on the leg from→to aims: the point
// lookAhead beyond pos's projection on the leg, or to when that is
// nearer (heights are ignored).
func aimPoint(from, to, pos geom.Vec3) geom.Vec3 {
	leg := geom.V(to.X-from.X, to.Y-from.Y, 0)
	n := leg.Len()
	if n == 0 {
		return to
	}
	u := leg.Scale(1 / n)
	along := geom.V(pos.X-from.X, pos.Y-from.Y, 0).Dot(u) + lookAhead
	if along >= n {
		return to
	}
	return from.AddScaled(u, max(along, 0))
}
