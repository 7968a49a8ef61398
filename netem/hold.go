package netem

import (
	"slices"
	"time"
)

// Hold keeps a participant's round trip at a condition's target: it
// injects the difference between the target and the participant's own
// round trip (their base), and follows the base as it drifts. The base
// is what the game's transport measures less what is injected; a
// median over the last few measurements keeps one late packet from
// moving it, and a change waits out the measurements that were in
// flight under the old injection. A base above the target cannot be
// brought down: the Hold then injects nothing and says so.
//
// A driver that injects latency on a player's emulated links (package
// realtime, for a target_rtt_ms rule) keeps a Hold per player; its
// zero value with Target set is ready.
type Hold struct {
	// Target is the round trip the condition names.
	Target time.Duration
	// Tolerance is how far the injection may lag what the base asks for
	// before it is changed (default 5 ms): each change is a step the
	// participant may feel.
	Tolerance time.Duration

	samples  [holdSamples]time.Duration
	n, next  int
	inject   time.Duration
	settleAt time.Duration
	changes  int
}

const holdSamples = 15

// holdSmooth is the time a smoothed round trip estimate, such as
// lagkit's server's (an RFC 6298 average with gain 1/8 over a sample a
// snapshot), takes to follow a step.
const holdSmooth = 500 * time.Millisecond

// Observe takes a round trip measured at now over the game's transport
// and returns the round trip to inject (the driver splits it between
// the two directions) and whether it changed.
func (h *Hold) Observe(now, measured time.Duration) (time.Duration, bool) {
	if now < h.settleAt || measured < h.inject {
		// Measured under an injection since changed, or shorter than
		// what is injected (a clock step): not a base.
		return h.inject, false
	}
	h.samples[h.next] = measured - h.inject
	h.next = (h.next + 1) % holdSamples
	h.n = min(h.n+1, holdSamples)
	want := max(0, h.Target-h.Base())
	tol := h.Tolerance
	if tol <= 0 {
		tol = 5 * time.Millisecond
	}
	if d := want - h.inject; d > tol || d < -tol || want == 0 && h.inject != 0 {
		h.inject = want
		h.changes++
		// Round trips measured until two round trips at the new total
		// have passed carry the old injection, and a driver's smoothed
		// estimate takes some more to follow.
		h.settleAt = now + 2*max(h.Target, h.Base()) + holdSmooth
		return h.inject, true
	}
	return h.inject, false
}

// Base returns the participant's own round trip: the median of the
// kept measurements, less what was injected under each (0 before the
// first).
func (h *Hold) Base() time.Duration {
	if h.n == 0 {
		return 0
	}
	s := slices.Clone(h.samples[:h.n])
	slices.Sort(s)
	return s[len(s)/2]
}

// Injected returns the round trip injected now.
func (h *Hold) Injected() time.Duration { return h.inject }

// Over reports whether the base exceeds the target: the condition is
// not played as named, and the manipulation check must say so.
func (h *Hold) Over() bool { return h.n > 0 && h.Base() > h.Target }

// Changes returns how many times the injection changed.
func (h *Hold) Changes() int { return h.changes }
