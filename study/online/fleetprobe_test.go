package online

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lagkit/lagkit/agones"
	"github.com/lagkit/lagkit/agones/agonestest"
	"github.com/lagkit/lagkit/probe"
	"github.com/lagkit/lagkit/study/lobby"
	"github.com/lagkit/lagkit/transport"
)

// fleetProbe runs a game server's probe as lagkit study run --agones
// does while Ready: on a Web listener of its own, sealing each result
// under key for the host HOST:PORT its GameServer reports; it returns
// the listener.
func fleetProbe(t *testing.T, key []byte) *transport.Web {
	t.Helper()
	w, err := transport.NewWeb(transport.WebOptions{OriginPatterns: []string{"*"}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	p := &probe.Server{Pings: 3,
		Ticket:   func(tk string) (string, bool) { return tk, true },
		Measured: func(string, time.Duration) {},
		Seal: func(tk string, rtt time.Duration) string {
			return probe.Seal(key, probe.Result{Ticket: tk, Host: w.Addr(), RTT: rtt, At: time.Now()})
		}}
	go func() { done <- p.Serve(ctx, w) }()
	t.Cleanup(func() {
		cancel()
		w.Close()
		<-done
	})
	return w
}

// TestSealedRoundTripFromTheFleet: under Agones the lobby names pages
// the probes of the Fleet's Ready GameServers that serve one (one per
// node address), and keeps a round trip a page hands on only with a
// seal that opens for that participant's ticket and a named host, fresh
// and not handed on before: an altered figure, another participant's
// result, a host it did not name, a stale seal and a replay are each
// refused, saying why, and the prescreen then takes the figure the
// host measured.
func TestSealedRoundTripFromTheFleet(t *testing.T) {
	secret := []byte("0123456789abcdef0123456789abcdef")
	key := probe.SealKey(secret)
	c, dc := standIn(t)
	w := fleetProbe(t, key)
	_, port, _ := net.SplitHostPort(w.Addr())
	pn, _ := strconv.Atoi(port)
	// Two Ready game servers on one node address serve the probe, and a
	// third serves none.
	for _, name := range []string{"gs-a", "gs-b"} {
		if err := readyProbe(t, c, name, pn).SetAnnotation(context.Background(), ProbeCertKey, w.CertHash()); err != nil {
			t.Fatal(err)
		}
	}
	_, _, _ = readyGameServer(t, c, "gs-noprobe")
	a := &Agones{Client: dc, Namespace: "study", Fleet: "lagkit", Log: slog.New(slog.DiscardHandler)}
	hosts, err := a.ProbeHosts(context.Background())
	if err != nil || len(hosts) != 1 || hosts[0].Host != w.Addr() || hosts[0].CertHash != w.CertHash() {
		t.Fatalf("probe hosts %+v, %v; want %s alone", hosts, err, w.Addr())
	}

	s, err := New(Config{
		Lobby:   lobby.Config{Study: "fleet-probe", Seats: 2, MaxWait: time.Second, Secret: secret, Groups: []lobby.Group{{Name: "A"}}},
		Alloc:   a,
		SealKey: key, IDParam: "PROLIFIC_PID", Log: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	hs := newHTTP(t, s)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	go a.FollowProbes(ctx, 50*time.Millisecond, s.SetProbes)
	for len(s.Probes()) == 0 {
		select {
		case <-ctx.Done():
			t.Fatal("the lobby named no probe")
		case <-time.After(10 * time.Millisecond):
		}
	}
	p1, p2 := &Participant{Base: hs, ID: "p-1"}, &Participant{Base: hs, ID: "p-2"}
	st1, err := p1.Arrive(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p2.Arrive(ctx); err != nil {
		t.Fatal(err)
	}
	conn, err := transport.Dial(ctx, "wss://"+w.Addr(), transport.DialOptions{TLS: transport.ClientTLS{CertHash: w.CertHash()}})
	if err != nil {
		t.Fatal(err)
	}
	rtt, seal, err := probe.MeasureSealed(ctx, conn, st1.Probe)
	conn.Close("measured")
	if err != nil || seal == "" {
		t.Fatalf("measure: %v, %q, %v", rtt, seal, err)
	}
	good := SealedProbe{ID: "p-1", Host: w.Addr(), RTTus: rtt.Microseconds(), Seal: seal}
	stale := probe.Seal(key, probe.Result{Ticket: st1.Probe, Host: w.Addr(), RTT: rtt, At: time.Now().Add(-SealFresh - time.Second)})
	for _, tc := range []struct {
		name string
		r    SealedProbe
		want string
	}{
		{"a shorter figure", SealedProbe{ID: "p-1", Host: w.Addr(), RTTus: 1, Seal: seal}, "lobby: 403: online: p-1's round trip to " + w.Addr() + ": probe: the seal does not match"},
		{"another participant's", SealedProbe{ID: "p-2", Host: w.Addr(), RTTus: rtt.Microseconds(), Seal: seal}, "lobby: 403: online: p-2's round trip to " + w.Addr() + ": probe: the seal does not match"},
		{"a host not named", SealedProbe{ID: "p-1", Host: "127.0.0.2:" + port, RTTus: rtt.Microseconds(), Seal: seal}, `lobby: 403: online: host "127.0.0.2:` + port + `" is not a game server host this lobby named`},
		{"a stale seal", SealedProbe{ID: "p-1", Host: w.Addr(), RTTus: rtt.Microseconds(), Seal: stale}, "lobby: 403: online: p-1's round trip to " + w.Addr() + " was measured at"},
		{"a forged seal", SealedProbe{ID: "p-1", Host: w.Addr(), RTTus: rtt.Microseconds(), Seal: "1.AAAA"}, "probe: the seal does not match"},
		{"nobody", SealedProbe{ID: "p-9", Host: w.Addr(), RTTus: rtt.Microseconds(), Seal: seal}, "lobby: 404: lobby: no participant"},
	} {
		err := p1.HandOn(ctx, tc.r)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	if _, err := p1.Prescreen(ctx, Screen{FPS: 90}); err == nil || !strings.Contains(err.Error(), "no round trip measured yet") {
		t.Errorf("prescreen with only refused results: %v", err)
	}
	if err := p1.HandOn(ctx, good); err != nil {
		t.Fatal(err)
	}
	var ae *AnswerError
	if err := p1.HandOn(ctx, good); !errors.As(err, &ae) || ae.Status != 409 || !strings.Contains(err.Error(), "handed on already") {
		t.Errorf("replayed: %v", err)
	}
	st, err := p1.Prescreen(ctx, Screen{FPS: 90})
	if err != nil || st.State != "waiting" || st.RTTms != float64(rtt)/float64(time.Millisecond) {
		t.Errorf("prescreen: %+v, %v; want waiting with %v", st, err, rtt)
	}
	// The headless participant measures and hands on as the page does.
	got, err := p2.Measure(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st, err := p2.Status(ctx); err != nil || st.RTTms != float64(got)/float64(time.Millisecond) {
		t.Errorf("p-2: measured %v, the lobby kept %+v, %v", got, st, err)
	}
}

// readyProbe adds a Ready GameServer of fleet "lagkit" whose port named
// probe is port, and returns its SDK client.
func readyProbe(t *testing.T, c *agonestest.Cluster, name string, port int) *agones.Client {
	t.Helper()
	sdk := agonestest.NewServer(name)
	t.Cleanup(sdk.Close)
	c.Add("lagkit", sdk, agones.Port{Name: "web", Port: 1}, agones.Port{Name: ProbePort, Port: int32(port)})
	cl := agones.New(sdk.URL(), agones.Options{Wait: time.Second})
	if err := cl.Ready(context.Background()); err != nil {
		t.Fatal(err)
	}
	return cl
}

// newHTTP serves s's pages and API on loopback and returns its base URL.
func newHTTP(t *testing.T, s *Server) string {
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(hs.Close)
	return hs.URL
}
