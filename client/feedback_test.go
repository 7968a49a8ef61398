package client

import (
	"math"
	"testing"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/server"
)

// TestServerMandatesFeedback: each feedback a server mandates reaches
// the client over a real round trip and shows what it says: nothing, the
// measured ping, the ping with the net graph, or a placebo (fixed, or
// the real round trip scaled); without a mandate the client's own
// choice stands.
func TestServerMandatesFeedback(t *testing.T) {
	still := func(int) game.UserCmd { return game.UserCmd{} }
	cases := []struct {
		set      server.Settings
		mandated bool
		ping     bool
		graph    bool
		wantPing func(rtt float64) float64
		feedback string
	}{
		{server.Settings{}, false, false, false, nil, ""},
		{server.Settings{Feedback: "none"}, true, false, false, nil, "none"},
		{server.Settings{Feedback: "ping"}, true, true, false, func(r float64) float64 { return r }, "ping"},
		{server.Settings{Feedback: "netgraph"}, true, true, true, func(r float64) float64 { return r }, "netgraph"},
		{server.Settings{Feedback: "placebo", PlaceboMS: 35}, true, true, false, func(float64) float64 { return 35 }, "placebo"},
		{server.Settings{Feedback: "placebo", PlaceboScale: 2}, true, true, false, func(r float64) float64 { return 2 * r }, "placebo"},
		{server.Settings{Feedback: "placebo"}, true, true, false, func(r float64) float64 { return DefaultPlaceboScale * r }, "placebo"},
	}
	for _, c := range cases {
		p := newPairWith(t, 60*time.Millisecond, server.Config{Settings: c.set})
		p.run(1500*time.Millisecond, still)
		shown, ok := p.c.Feedback()
		if ok != c.mandated {
			t.Fatalf("%+v: mandated %v, want %v", c.set, ok, c.mandated)
		}
		if !ok {
			continue
		}
		rtt := float64(p.c.RTT()) / float64(time.Millisecond)
		if rtt < 100 {
			t.Fatalf("%+v: the client measured %v ms over a 120 ms round trip", c.set, rtt)
		}
		if shown.Feedback != c.feedback || shown.HasPing != c.ping || shown.Graph != c.graph {
			t.Errorf("%+v: shown %+v", c.set, shown)
		}
		if c.wantPing != nil && math.Abs(shown.PingMS-c.wantPing(rtt)) > 1e-9 {
			t.Errorf("%+v: ping shown %v, want %v (real %v)", c.set, shown.PingMS, c.wantPing(rtt), rtt)
		}
	}
	if len(Feedbacks.Names()) != 4 {
		t.Errorf("feedbacks %v, want none, ping, netgraph and placebo", Feedbacks.Names())
	}
}
