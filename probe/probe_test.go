package probe

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lagkit/lagkit/transport"
	"github.com/lagkit/lagkit/wire"
)

// serve starts a probe server on a Web listener of its own, for the
// ticket "t-ok" of participant "p1", and returns it with what it
// measured.
func serve(t *testing.T, s *Server) (*transport.Web, func() map[string]time.Duration) {
	t.Helper()
	w, err := transport.NewWeb(transport.WebOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	got := map[string]time.Duration{}
	s.Ticket = func(tk string) (string, bool) { return "p1", tk == "t-ok" }
	s.Measured = func(id string, rtt time.Duration) {
		mu.Lock()
		got[id] = rtt
		mu.Unlock()
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, w) }()
	t.Cleanup(func() {
		cancel()
		w.Close()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
	return w, func() map[string]time.Duration {
		mu.Lock()
		defer mu.Unlock()
		return got
	}
}

// TestProbeOverTheGamesTransports: over WebTransport and WebSocket, as
// the game's link opens them, the server measures the round trip of a
// client that echoes its pings, keeps it under the ticket's id and tells
// the client the same number; a client that holds each echo 20 ms is
// measured at 20 ms or more: what it says cannot make it shorter.
func TestProbeOverTheGamesTransports(t *testing.T) {
	w, measured := serve(t, &Server{Pings: 5})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, scheme := range []string{"wt", "wss"} {
		c, err := transport.Dial(ctx, scheme+"://"+w.Addr(), transport.DialOptions{TLS: transport.ClientTLS{CertHash: w.CertHash()}})
		if err != nil {
			t.Fatal(err)
		}
		rtt, err := Measure(ctx, c, "t-ok")
		c.Close("done")
		if err != nil {
			t.Fatalf("%s: %v", scheme, err)
		}
		if rtt <= 0 || rtt > time.Second {
			t.Errorf("%s: round trip %v on loopback", scheme, rtt)
		}
		// Measured runs as the server ends the session; wait for it.
		for measured()["p1"] != rtt && ctx.Err() == nil {
			time.Sleep(10 * time.Millisecond)
		}
		if got := measured()["p1"]; got != rtt {
			t.Errorf("%s: the server kept %v, told the client %v", scheme, got, rtt)
		}
	}
	c, err := transport.Dial(ctx, "wss://"+w.Addr(), transport.DialOptions{TLS: transport.ClientTLS{CertHash: w.CertHash()}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close("done")
	hello, _ := wire.AppendProbe(nil, &wire.Probe{Ticket: "t-ok"})
	c.Send(hello)
	buf := make([]byte, transport.MaxDatagram)
	for {
		n, err := c.Recv(ctx, buf)
		if err != nil {
			t.Fatal(err)
		}
		var m wire.Probe
		if err := wire.DecodeProbe(buf[:n], &m); err != nil {
			t.Fatal(err)
		}
		if m.Done {
			if m.RTT < 20*time.Millisecond {
				t.Errorf("a client holding its echoes 20 ms measured at %v", m.RTT)
			}
			break
		}
		time.Sleep(20 * time.Millisecond)
		c.Send(buf[:n])
	}
}

// TestProbeRefusals: a ticket the server does not know ends the session
// with the reason; a client that never echoes is let go once its pings
// are lost, and neither is measured.
func TestProbeRefusals(t *testing.T) {
	w, measured := serve(t, &Server{Pings: 3, Lost: 50 * time.Millisecond})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	dial := func() transport.Conn {
		c, err := transport.Dial(ctx, "wss://"+w.Addr(), transport.DialOptions{TLS: transport.ClientTLS{CertHash: w.CertHash()}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close("done") })
		return c
	}
	if _, err := Measure(ctx, dial(), "t-bad"); err == nil || !strings.Contains(err.Error(), ErrTicket.Error()) {
		t.Errorf("an unknown ticket: %v", err)
	}
	c := dial()
	hello, _ := wire.AppendProbe(nil, &wire.Probe{Ticket: "t-ok"})
	c.Send(hello)
	buf := make([]byte, transport.MaxDatagram)
	for {
		if _, err := c.Recv(ctx, buf); err != nil {
			if !errors.Is(err, transport.ErrClosed) || !strings.Contains(c.Reason(), ErrLost.Error()) {
				t.Errorf("a silent client: %v (%s)", err, c.Reason())
			}
			break
		}
	}
	if len(measured()) != 0 {
		t.Errorf("measured %v", measured())
	}
	if _, err := Measure(ctx, dial(), ""); err == nil {
		t.Error("no ticket: no error")
	}
	if err := (&Server{Pings: 2}).Serve(ctx, w); err == nil {
		t.Error("2 pings: no error")
	}
}
