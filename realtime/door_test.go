package realtime

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/lagkit/lagkit/client"
	"github.com/lagkit/lagkit/flood"
	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/internal/walltest"
	"github.com/lagkit/lagkit/seal"
	"github.com/lagkit/lagkit/server"
	"github.com/lagkit/lagkit/shooter"
	"github.com/lagkit/lagkit/shooter/weapon"
	"github.com/lagkit/lagkit/transport"
	"github.com/lagkit/lagkit/wire"
)

// newcomer runs one native client's handshake with the server at addr
// from a socket of its own, resending its Connect every 250 ms as a
// client does, and returns how long it took to be accepted; it then
// says goodbye. It gives up after wait.
func newcomer(addr string, nonce uint64, wait time.Duration) (time.Duration, error) {
	to, err := net.ResolveUDPAddr("udp", addr)
	if err != nil {
		return 0, err
	}
	conn, err := net.DialUDP("udp", nil, to)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	key, err := seal.NewKey()
	if err != nil {
		return 0, err
	}
	pub := key.PublicKey().Bytes()
	m := wire.Connect{Version: wire.Version, Nonce: nonce, Name: "newcomer", InterpDelay: 100 * time.Millisecond, Key: string(pub), Game: weapon.Layout.Hash()}
	var sess *seal.Session
	start := time.Now()
	deadline := start.Add(wait)
	buf := make([]byte, transport.MaxDatagram)
	for time.Now().Before(deadline) {
		b, err := wire.AppendConnect(nil, &m)
		if err != nil {
			return 0, err
		}
		if _, err := conn.Write(b); err != nil {
			return 0, err
		}
		next := time.Now().Add(250 * time.Millisecond)
		if next.After(deadline) {
			next = deadline
		}
		_ = conn.SetReadDeadline(next)
		for {
			n, err := conn.Read(buf)
			if err != nil {
				break // resend
			}
			b := buf[:n]
			if seal.Is(b) && sess != nil {
				if b, err = sess.Open(nil, b); err != nil {
					continue
				}
				if typ, _ := wire.PeekType(b); typ == wire.MsgAccept {
					took := time.Since(start)
					bye, _ := wire.AppendDisconnect(nil, &wire.Disconnect{Nonce: nonce, Reason: "client left"})
					_, _ = conn.Write(sess.Seal(nil, bye))
					return took, nil
				}
				continue
			}
			var ch wire.Challenge
			if typ, _ := wire.PeekType(b); typ == wire.MsgChallenge && wire.DecodeChallenge(b, &ch) == nil && ch.Nonce == nonce && m.Token == "" {
				m.Token = ch.Token
				if sess, err = seal.New(seal.Client, key, pub, []byte(ch.Key), nonce); err != nil {
					return 0, err
				}
				break // send the proving Connect at once
			}
			if typ, _ := wire.PeekType(b); typ == wire.MsgReject {
				var r wire.Reject
				_ = wire.DecodeReject(b, &r)
				return 0, errors.New("rejected: " + r.Reason)
			}
		}
	}
	return 0, fmt.Errorf("not accepted within %v", wait)
}

// halfOpen sends n Connects at rate a second, each from a new socket
// (a new source port) that never answers its Challenge, and returns
// once they are sent or stop closes.
func halfOpen(addr string, n int, rate float64, stop <-chan struct{}) (int, error) {
	to, err := net.ResolveUDPAddr("udp", addr)
	if err != nil {
		return 0, err
	}
	every := time.Duration(float64(time.Second) / rate)
	start := time.Now()
	sent := 0
	for sent < n {
		select {
		case <-stop:
			return sent, nil
		default:
		}
		for due := int(time.Since(start)/every) + 1; sent < min(due, n); sent++ {
			c, err := net.DialUDP("udp", nil, to)
			if err != nil {
				return sent, err
			}
			b, _ := wire.AppendConnect(nil, &wire.Connect{Version: wire.Version, Nonce: uint64(sent) + 1, Name: "half", Key: strings.Repeat("k", wire.KeySize)})
			_, _ = c.Write(b)
			c.Close()
		}
		time.Sleep(time.Millisecond)
	}
	return sent, nil
}

// TestHalfOpenFloodLocksNobodyOut: half-open handshakes, each from a new
// source port (as spoofed source addresses would be), hold no place in
// the UDP listener or anywhere else, so people who arrive during the
// flood get their seat at once. 5,000 of them in five seconds (the long
// form: in twenty), then forty a second; newcomers handshake meanwhile.
func TestHalfOpenFloodLocksNobodyOut(t *testing.T) {
	if testing.Short() {
		t.Skip("seconds of wall time")
	}
	walltest.Lock(t)
	srv := serveMatch(t, MatchConfig{Map: "arena", Mode: "tdm", Seats: 32})
	spread := 5 * time.Second
	if os.Getenv("LAGKIT_SOAK") == "long" {
		spread = 20 * time.Second
	}
	heap0 := heapAfterGC()
	phases := []struct {
		name      string
		n         int
		rate      float64
		newcomers int
	}{
		{"5000 half-open", 5000, 5000 / spread.Seconds(), 21},
		{"40 a second", 120, 40, 12},
	}
	nonce := uint64(1 << 40)
	for _, ph := range phases {
		stop := make(chan struct{})
		var sent int
		var floodErr error
		flooded := make(chan struct{})
		go func() {
			defer close(flooded)
			sent, floodErr = halfOpen(srv.addr, ph.n, ph.rate, stop)
		}()
		dur := time.Duration(float64(ph.n) / ph.rate * float64(time.Second))
		var ok, late int
		var worst time.Duration
		var peers int
		for i := range ph.newcomers {
			// Spread over the flood's length.
			time.Sleep(dur / time.Duration(ph.newcomers+1))
			nonce++
			took, err := newcomer(srv.addr, nonce, 3*time.Second)
			switch {
			case err != nil:
				t.Logf("%s: newcomer %d: %v", ph.name, i, err)
			case took > time.Second:
				late++
			default:
				ok++
			}
			worst = max(worst, took)
			peers = max(peers, srv.l.Stats().Peers)
		}
		<-flooded
		close(stop)
		if floodErr != nil {
			t.Fatal(floodErr)
		}
		t.Logf("%s: %d sent at %.0f/s; newcomers %d of %d accepted within 1 s (%d later), slowest %v; listener sessions at most %d; front door %v",
			ph.name, sent, ph.rate, ok, ph.newcomers, late, worst.Round(time.Microsecond), peers, srv.l.Stats())
		if float64(ok) < 0.99*float64(ph.newcomers) {
			t.Errorf("%s: %d of %d newcomers accepted within a second", ph.name, ok, ph.newcomers)
		}
		if peers > 2 {
			t.Errorf("%s: the listener held %d sessions with one newcomer at a time: the flood's addresses took some", ph.name, peers)
		}
	}
	heap1 := heapAfterGC()
	t.Logf("live heap %d KiB before, %d KiB after; challenges %v", heap0>>10, heap1>>10,
		counter(t, srv.reg, "lagkit_handshakes_total", map[string]string{"outcome": "challenged"}))
	if heap1 > heap0+4<<20 {
		t.Errorf("live heap grew from %d KiB to %d KiB over the flood", heap0>>10, heap1>>10)
	}
}

// relay stands in for IP spoofing: it carries a client's datagrams to
// the server from a socket of its own, so the server sees the relay's
// address as the client's, and anything the test injects through that
// socket arrives from the client's address, as a forged datagram would.
type relay struct {
	front, back *net.UDPConn // the client's side, the server's side
	client      atomic.Pointer[net.UDPAddr]
	mu          sync.Mutex
	up          [][]byte // copies of what the client sent, for replays
}

func newRelay(t *testing.T, server string) *relay {
	t.Helper()
	to, err := net.ResolveUDPAddr("udp", server)
	if err != nil {
		t.Fatal(err)
	}
	front, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	back, err := net.DialUDP("udp", nil, to)
	if err != nil {
		t.Fatal(err)
	}
	r := &relay{front: front, back: back}
	t.Cleanup(func() { front.Close(); back.Close() })
	go func() {
		buf := make([]byte, 2048)
		for {
			n, from, err := front.ReadFromUDP(buf)
			if err != nil {
				return
			}
			r.client.Store(from)
			r.mu.Lock()
			if len(r.up) < 4096 {
				r.up = append(r.up, append([]byte(nil), buf[:n]...))
			}
			r.mu.Unlock()
			_, _ = back.Write(buf[:n])
		}
	}()
	go func() {
		buf := make([]byte, 2048)
		for {
			n, err := back.Read(buf)
			if err != nil {
				return
			}
			if to := r.client.Load(); to != nil {
				_, _ = front.WriteToUDP(buf[:n], to)
			}
		}
	}()
	return r
}

// inject sends b to the server from the client's address.
func (r *relay) inject(b []byte) { _, _ = r.back.Write(b) }

// TestForgedDatagramsChangeNothing: datagrams from a playing client's
// address that are not sealed under its session's key (garbage,
// commands, a goodbye carrying its nonce, copies of its own sealed
// datagrams replayed, sealed-looking noise) are dropped and counted,
// and its session goes on untouched: none is charged to its limits (a
// dozen malformed datagrams used to disconnect it), none ends it.
func TestForgedDatagramsChangeNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("seconds of wall time")
	}
	srv := serveMatch(t, MatchConfig{Map: "arena", Mode: "tdm", Seats: 4})
	r := newRelay(t, srv.addr)
	kit := newBotKit(t, "arena")
	const nonce = 0x5eed
	var live LiveStats
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	done := make(chan struct{})
	var cs ClientStats
	var playErr error
	go func() {
		defer close(done)
		conn, err := transport.DialUDP(ctx, r.front.LocalAddr().String(), transport.UDPOptions{})
		if err != nil {
			playErr = err
			return
		}
		cs, playErr = RunClient(ctx, conn, ClientConfig{Client: shooter.Client(client.Config{Map: kit.m, Movement: &kit.params, Name: "victim", Nonce: nonce}), Stats: &live})
	}()
	waitFor(t, srv.m, "the victim seated", func(i MatchInfo) bool { return len(i.Players) == 1 })
	time.Sleep(300 * time.Millisecond)
	stats := func() server.Stats {
		var st server.Stats
		if err := srv.m.do(func() { st = srv.m.srv.Stats() }); err != nil {
			t.Fatal(err)
		}
		return st
	}
	before := stats()
	snaps0 := live.Get().Snapshots
	// What an attacker who can forge the victim's address sends.
	var forged [][]byte
	for i := range 40 {
		forged = append(forged, []byte{byte(wire.MsgCommands), byte(i), 0xff, 0x13})
	}
	cmds, err := wire.AppendCommands(nil, &wire.Commands{AckTick: 1, Cmds: []game.UserCmd{{Tick: 1 << 20, Duration: 15625 * time.Microsecond}}})
	if err != nil {
		t.Fatal(err)
	}
	bye, _ := wire.AppendDisconnect(nil, &wire.Disconnect{Nonce: nonce, Reason: "forged goodbye"})
	forged = append(forged, cmds, bye, bye)
	// Connects no restarted client sends: of another version (the Reject
	// it got used to close the session), and malformed.
	old := make([]byte, wire.ConnectSize)
	old[0], old[1] = byte(wire.MsgConnect), wire.Version-1
	forged = append(forged, old, []byte{byte(wire.MsgConnect), wire.Version, 0, 9})
	noise := make([]byte, 200)
	noise[0] = seal.Type
	for i := 1; i < len(noise); i++ {
		noise[i] = byte(i * 7)
	}
	forged = append(forged, noise)
	// The victim's own last 20 sealed datagrams, again (its Connects
	// before them are not sealed).
	var sealed [][]byte
	waitFor(t, srv.m, "20 sealed datagrams from the victim", func(MatchInfo) bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		sealed = sealed[:0]
		for _, b := range r.up {
			if len(b) > 0 && b[0] == seal.Type {
				sealed = append(sealed, b)
			}
		}
		return len(sealed) >= 20
	})
	forged = append(forged, sealed[len(sealed)-20:]...)
	for _, b := range forged {
		r.inject(b)
		time.Sleep(2 * time.Millisecond) // within the session's receive queue
	}
	// Wait until the match has read every forged datagram (a busy
	// machine may take its time), then a little longer for anything
	// they might have set off.
	after := stats()
	for deadline := time.Now().Add(10 * time.Second); after.Forged-before.Forged < len(forged) && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
		after = stats()
	}
	time.Sleep(500 * time.Millisecond)
	after = stats()
	snaps1 := live.Get().Snapshots
	info, _ := srv.m.Info()
	cancel()
	<-done
	t.Logf("injected %d forged datagrams: server forged %d, malformed %d -> %d, disconnects %d -> %d; victim snapshots %d -> %d; client %v %+v",
		len(forged), after.Forged-before.Forged, before.Malformed, after.Malformed, before.Disconnects, after.Disconnects, snaps0, snaps1, playErr, cs.Reason)
	if got := after.Forged - before.Forged; got != len(forged) {
		t.Errorf("the server dropped %d forged datagrams as forged, want all %d", got, len(forged))
	}
	if after.Malformed != before.Malformed || after.Disconnects != before.Disconnects || after.ForeignGoodbyes != before.ForeignGoodbyes {
		t.Errorf("forged datagrams reached the session: malformed %d -> %d, disconnects %d -> %d, foreign goodbyes %d -> %d",
			before.Malformed, after.Malformed, before.Disconnects, after.Disconnects, before.ForeignGoodbyes, after.ForeignGoodbyes)
	}
	if len(info.Players) != 1 || snaps1 < snaps0+32 {
		t.Errorf("after the forgeries: %d players, %d snapshots in a second: the session did not go on", len(info.Players), snaps1-snaps0)
	}
	if counter(t, srv.reg, "lagkit_datagrams_dropped_total", map[string]string{"reason": DropForged}) != float64(len(forged)) {
		t.Errorf("forged drops not counted in /metrics")
	}
	if playErr != nil || cs.Code != wire.DisconnectUnspecified {
		t.Errorf("the victim's session ended with %v, code %v", playErr, cs.Code)
	}
}

// TestSilentConnectionsAreClosed: WebSocket sessions that send no
// Connect are closed once HandshakeLimits.Wait has passed, one source
// holds at most PerSource of them at once (the rest closed at once), and
// a person arriving from another address meanwhile plays.
func TestSilentConnectionsAreClosed(t *testing.T) {
	if testing.Short() {
		t.Skip("seconds of wall time")
	}
	h := NewHost(quiet, nil)
	if err := h.SetHandshakeLimits(HandshakeLimits{Wait: time.Second, PerSource: 8, IPv4Prefix: 24, IPv6Prefix: 64, LimitLoopback: true}); err != nil {
		t.Fatal(err)
	}
	w, err := transport.NewWeb(transport.WebOptions{Addr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := h.Start(MatchConfig{Map: "arena", Mode: "tdm", Seats: 4}); err != nil {
		t.Fatal(err)
	}
	defer h.Shutdown(context.Background(), "test over")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	go h.Serve(ctx, w)
	url := "wss://" + w.Addr() + transport.WSPath
	// 40 silent sessions from 127.0.0.2 (one /24 with the newcomer at
	// 127.0.1.1 outside it).
	silentFrom := func(local string) *websocket.Conn {
		dialer := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(local)}}
		hc := &http.Client{Transport: &http.Transport{DialContext: dialer.DialContext, TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
		c, _, err := websocket.Dial(ctx, url, &websocket.DialOptions{HTTPClient: hc})
		if err != nil {
			t.Fatalf("silent session: %v", err)
		}
		return c
	}
	var silent []*websocket.Conn
	start := time.Now()
	for range 40 {
		silent = append(silent, silentFrom("127.0.0.2"))
	}
	closedBy := make([]time.Duration, len(silent))
	var wg sync.WaitGroup
	for i, c := range silent {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rctx, rcancel := context.WithTimeout(ctx, 5*time.Second)
			defer rcancel()
			_, _, err := c.Read(rctx)
			if err != nil && rctx.Err() == nil {
				closedBy[i] = time.Since(start)
			}
		}()
	}
	// A person from another /24 plays meanwhile.
	kit := newBotKit(t, "arena")
	pctx, pcancel := context.WithTimeout(ctx, 1500*time.Millisecond)
	conn, err := transport.Dial(pctx, "wss://"+w.Addr(), transport.DialOptions{TLS: transport.ClientTLS{InsecureSkipVerify: true}, WS: transport.WSOptions{LocalAddr: "127.0.1.1"}})
	if err != nil {
		t.Fatal(err)
	}
	cs, err := RunClient(pctx, conn, ClientConfig{Client: shooter.Client(client.Config{Map: kit.m, Movement: &kit.params, Name: "person"})})
	pcancel()
	wg.Wait()
	var early, onTime, open int
	for _, d := range closedBy {
		switch {
		case d == 0:
			open++
		case d < 500*time.Millisecond:
			early++
		default:
			onTime++
		}
	}
	t.Logf("40 silent sessions: %d closed at once (over the source's 8), %d after the wait, %d still open; the person: %d snapshots, seat %d, %v",
		early, onTime, open, cs.Snapshots, cs.Seat, err)
	if open != 0 || onTime != 8 || early != 32 {
		t.Errorf("silent sessions: %d closed at once, %d after the wait, %d open; want 32, 8 and 0", early, onTime, open)
	}
	if err != nil || cs.Seat < 0 || cs.Snapshots == 0 {
		t.Errorf("the person from another address: seat %d, %d snapshots, %v", cs.Seat, cs.Snapshots, err)
	}
}

// TestSpoofedFloodChangesNothing floods a server with datagrams forged
// to come from a playing client's address, through a raw socket as an
// attacker on the network would (lagkit flood --mode spoof; it needs
// root or CAP_NET_RAW, and is skipped without): every one is dropped as
// forged, and the client plays on.
func TestSpoofedFloodChangesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("seconds of wall time")
	}
	srv := serveMatch(t, MatchConfig{Map: "arena", Mode: "tdm", Seats: 4})
	kit := newBotKit(t, "arena")
	local := freePort(t)
	var live LiveStats
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := kit.playFrom(ctx, local, srv.addr, "victim", 1, nil, &live)
		done <- err
	}()
	waitFor(t, srv.m, "the victim seated", func(i MatchInfo) bool { return len(i.Players) == 1 })
	snaps0 := live.Get().Snapshots
	res, err := flood.Run(ctx, flood.Config{Target: srv.addr, Rate: 2000, Duration: time.Second, Mode: flood.Spoof, SpoofFrom: local})
	if err != nil && strings.Contains(err.Error(), "raw socket") {
		t.Skipf("no raw socket here: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	var st server.Stats
	if err := srv.m.do(func() { st = srv.m.srv.Stats() }); err != nil {
		t.Fatal(err)
	}
	snaps1 := live.Get().Snapshots
	info, _ := srv.m.Info()
	cancel()
	err = <-done
	t.Logf("forged %d datagrams from %s (%v): the server dropped %d as forged, %d malformed, %d disconnects; the victim got %d snapshots meanwhile, ended %v",
		res.Sent, local, res.Kinds, st.Forged, st.Malformed, st.Disconnects, snaps1-snaps0, err)
	if st.Forged < int(res.Sent)*9/10 || st.Malformed != 0 || st.Disconnects != 0 {
		t.Errorf("forged %d, server: forged %d, malformed %d, disconnects %d", res.Sent, st.Forged, st.Malformed, st.Disconnects)
	}
	if len(info.Players) != 1 || snaps1-snaps0 < 32 || err != nil {
		t.Errorf("the victim: %d players, %d snapshots during the flood, %v", len(info.Players), snaps1-snaps0, err)
	}
}
