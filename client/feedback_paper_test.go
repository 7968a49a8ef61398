package client

// This file checks the feedback family against what its source asks of
// it ([halbhuber-quiet], [taxonomy] in docs/references.md): latency
// exposure as a condition of its own, apart from latency.

import (
	"testing"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/server"
)

// TestPlaceboSeparatesKnowingFromHaving checks that
//
//	"a study kit should be able to separate knowing about latency from
//	having it" (the project's issue, after [halbhuber-quiet])
//
// holds: two players at different real round trips (40 and 240 ms) are
// shown the same fixed placebo ping, and under a scaled placebo each is
// shown a fraction of its own, while ping feedback shows each its real
// one; the net graph, which would give the real round trip away, is never
// on under a placebo.
func TestPlaceboSeparatesKnowingFromHaving(t *testing.T) {
	still := func(int) game.UserCmd { return game.UserCmd{} }
	show := func(oneWay time.Duration, set server.Settings) (Shown, float64) {
		p := newPairWith(t, oneWay, server.Config{Settings: set})
		p.run(2*time.Second, still)
		s, ok := p.c.Feedback()
		if !ok {
			t.Fatalf("%+v: no feedback mandated", set)
		}
		return s, float64(p.c.RTT()) / float64(time.Millisecond)
	}
	fixed := server.Settings{Feedback: "placebo", PlaceboMS: 60}
	lo, loRTT := show(20*time.Millisecond, fixed)
	hi, hiRTT := show(120*time.Millisecond, fixed)
	if !(hiRTT > loRTT+150) {
		t.Fatalf("real round trips %v and %v ms: want them 200 ms apart", loRTT, hiRTT)
	}
	if lo.PingMS != 60 || hi.PingMS != 60 || lo.Graph || hi.Graph {
		t.Errorf("fixed placebo: shown %+v at %v ms and %+v at %v ms, want 60 ms to both, no net graph", lo, loRTT, hi, hiRTT)
	}
	scaled := server.Settings{Feedback: "placebo", PlaceboScale: 0.25}
	if s, rtt := show(120*time.Millisecond, scaled); s.PingMS != rtt*0.25 || s.Graph {
		t.Errorf("scaled placebo at %v ms: shown %+v, want a quarter of it", rtt, s)
	}
	real := server.Settings{Feedback: "ping"}
	if s, rtt := show(120*time.Millisecond, real); s.PingMS != rtt {
		t.Errorf("ping feedback at %v ms: shown %+v", rtt, s)
	}
}
