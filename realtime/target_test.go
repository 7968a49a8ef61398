package realtime

import (
	"context"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lagkit/lagkit/client"
	"github.com/lagkit/lagkit/seal"
	"github.com/lagkit/lagkit/shooter"
	"github.com/lagkit/lagkit/shooter/bots"
	"github.com/lagkit/lagkit/transport"
)

// slowConn is a participant's own network: every datagram it sends
// leaves after delay, on real sockets underneath.
type slowConn struct {
	transport.Conn
	delay time.Duration
	mu    sync.Mutex
}

func (c *slowConn) Send(p []byte) error {
	b := append([]byte(nil), p...)
	time.AfterFunc(c.delay, func() {
		c.mu.Lock() // one send at a time, as the transport expects
		defer c.mu.Unlock()
		_ = c.Conn.Send(b)
	})
	return nil
}

// TestTargetRTTHoldsTheRoundTrip: two players under one target of
// 150 ms, one on loopback and one whose own network adds 60 ms, both
// play at the target; the link injects 60 ms less for the second.
func TestTargetRTTHoldsTheRoundTrip(t *testing.T) {
	if testing.Short() {
		t.Skip("seconds of wall time")
	}
	srv := serveMatch(t, MatchConfig{Map: "arena", Mode: "tdm", Seats: 2, Latency: []LinkRule{
		{Player: "near", TargetRTTMS: 150}, {Player: "far", TargetRTTMS: 150},
	}})
	kit := newBotKit(t, "arena")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for i, who := range []struct {
		name  string
		delay time.Duration
	}{{"near", 0}, {"far", 60 * time.Millisecond}} {
		conn, err := transport.DialUDP(ctx, srv.addr, transport.UDPOptions{})
		if err != nil {
			t.Fatal(err)
		}
		cc := shooter.Client(client.Config{Map: kit.m, Movement: &kit.params, Name: who.name})
		if who.delay > 0 {
			// The wrapper hides the UDP session, so the sealing RunClient
			// gives a UDP client is given here.
			key, err := seal.NewKey()
			if err != nil {
				t.Fatal(err)
			}
			cc.Sealer = clientSealer{key}
			conn = &slowConn{Conn: conn, delay: who.delay}
		}
		b, err := bots.New(bots.Config{Skill: 0.5}, kit.m, kit.grid, &kit.params, &kit.weapon, uint64(i+1))
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			_, _ = RunClient(ctx, conn, ClientConfig{Client: cc, Brain: b})
		}()
	}
	// Held: both measured at the target, each injected what its own
	// network leaves of it. The bound allows for a loaded machine's
	// scheduling on loopback (a few ms) and the hold's 5 ms tolerance.
	held := func(i MatchInfo) bool {
		if len(i.Players) != 2 {
			return false
		}
		near, far := i.Players[0], i.Players[1]
		if near.Name != "near" {
			near, far = far, near
		}
		return near.TargetMS == 150 && far.TargetMS == 150 &&
			math.Abs(near.RTTms-150) < 15 && math.Abs(far.RTTms-150) < 15 &&
			near.InjectedMS > 130 && near.InjectedMS <= 150 &&
			math.Abs(near.InjectedMS-far.InjectedMS-60) < 15
	}
	// Held on two reads a second apart: not a reading in passing.
	var last MatchInfo
	for n := 0; n < 2; {
		if held(last) {
			n++
		} else {
			n = 0
		}
		if ctx.Err() != nil {
			t.Fatalf("the round trips were not held at 150 ms: %+v", last.Players)
		}
		time.Sleep(time.Second)
		var err error
		if last, err = srv.m.Info(); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range last.Players {
		t.Logf("%s: measured %.1f ms, injected %.1f ms, target %.0f ms", p.Name, p.RTTms, p.InjectedMS, p.TargetMS)
	}
}

func TestTargetRTTRuleChecked(t *testing.T) {
	for _, c := range []struct {
		rule LinkRule
		want string
	}{
		{LinkRule{Player: "a", TargetRTTMS: -1}, "latency[0].target_rtt_ms: -1, want 0 to 5000"},
		{LinkRule{Player: "a", TargetRTTMS: 100, Up: LinkConfig{LatencyMS: 10}}, "latency[0].target_rtt_ms: with a latency_ms: the target sets the latency"},
	} {
		_, err := NewHost(quiet, nil).Start(MatchConfig{Map: "arena", Latency: []LinkRule{c.rule}})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.rule, err, c.want)
		}
	}
}
