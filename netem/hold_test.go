package netem

import (
	"math/rand/v2"
	"testing"
	"time"
)

// link plays a participant's link: its base round trip at each moment,
// with jitter, plus what the Hold injects, measured once every 100 ms
// with the injection in force a round trip earlier.
func link(h *Hold, base func(time.Duration) time.Duration, until time.Duration, seed uint64) (measured []time.Duration) {
	rng := rand.New(rand.NewPCG(seed, 1))
	type change struct {
		at  time.Duration
		rtt time.Duration
	}
	var injected []change
	at := func(t time.Duration) time.Duration { // the injection in force at t
		v := time.Duration(0)
		for _, c := range injected {
			if c.at <= t {
				v = c.rtt
			}
		}
		return v
	}
	for now := time.Duration(0); now < until; now += 100 * time.Millisecond {
		b := base(now) + time.Duration(rng.ExpFloat64()*float64(2*time.Millisecond))
		m := b + at(now-b-at(now-b))
		if rng.IntN(50) == 0 {
			m += 80 * time.Millisecond // a late packet
		}
		measured = append(measured, m)
		if v, changed := h.Observe(now, m); changed {
			injected = append(injected, change{now, v})
		}
	}
	return measured
}

func TestHoldKeepsTheTargetAsTheBaseDrifts(t *testing.T) {
	h := &Hold{Target: 150 * time.Millisecond}
	base := func(now time.Duration) time.Duration {
		if now < 30*time.Second {
			return 40 * time.Millisecond
		}
		return 70 * time.Millisecond // the participant's network got worse
	}
	m := link(h, base, time.Minute, 1)
	for _, at := range []int{250, 599} { // 25 s and 60 s in
		got := median(m[at-40 : at])
		if d := got - h.Target; d < -6*time.Millisecond || d > 8*time.Millisecond {
			t.Errorf("measured round trip at %ds: %v, want the target %v", at/10, got, h.Target)
		}
	}
	if h.Over() || h.Changes() > 4 {
		t.Errorf("over %v, %d changes: want a few steps", h.Over(), h.Changes())
	}
	if d := h.Injected() - 80*time.Millisecond; d < -6*time.Millisecond || d > 6*time.Millisecond {
		t.Errorf("injecting %v at a 70 ms base, want about 80 ms", h.Injected())
	}
}

func TestHoldOverTheTarget(t *testing.T) {
	h := &Hold{Target: 50 * time.Millisecond}
	link(h, func(time.Duration) time.Duration { return 90 * time.Millisecond }, 10*time.Second, 2)
	if !h.Over() || h.Injected() != 0 {
		t.Fatalf("base 90 ms, target 50 ms: over %v, injecting %v", h.Over(), h.Injected())
	}
}

func median(d []time.Duration) time.Duration {
	h := Hold{}
	for _, v := range d[len(d)-min(len(d), holdSamples):] {
		h.samples[h.next] = v
		h.next = (h.next + 1) % holdSamples
		h.n = min(h.n+1, holdSamples)
	}
	return h.Base()
}
