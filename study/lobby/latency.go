package lobby

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
// Hold is a value the driver keeps per participant per round; its
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
		// Round trips measured from now to one full round trip at the
		// new total on carry the old injection.
		h.settleAt = now + h.Target + h.Base()
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
