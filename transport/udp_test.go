package transport

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"net"
	"net/netip"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// testCtx bounds a test's blocking calls so a bug fails it rather than
// hanging the package.
func testCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// netTest starts a test on real sockets: once every cleanup registered
// after it has closed what the test opened, no goroutine may be left.
func netTest(t *testing.T) context.Context {
	t.Helper()
	t.Cleanup(func() { goleak.VerifyNone(t) })
	return testCtx(t)
}

// listenUDP opens a UDP listener on a free loopback port, closed when
// the test ends.
func listenUDP(t *testing.T, opts UDPOptions) *UDPListener {
	t.Helper()
	l, err := ListenUDP("127.0.0.1:0", opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// closeAtEnd closes conns when the test ends.
func closeAtEnd(t *testing.T, conns ...Conn) {
	t.Cleanup(func() {
		for _, c := range conns {
			c.Close("test over")
		}
	})
}

// payload is n bytes that differ per size and seed, so a datagram
// delivered in place of another is caught.
func payload(n int, seed byte) []byte {
	p := make([]byte, n)
	for i := range p {
		p[i] = byte(i*7) + seed
	}
	return p
}

var testSizes = []int{1, 2, 100, 576, 1099, MaxDatagram}

// exchange sends every test size from a to b and from b to a and checks
// each arrives intact.
func exchange(t *testing.T, ctx context.Context, a, b Conn) {
	t.Helper()
	buf := make([]byte, MaxDatagram)
	for i, n := range testSizes {
		for dir, pair := range [2][2]Conn{{a, b}, {b, a}} {
			want := payload(n, byte(i*2+dir))
			if err := pair[0].Send(want); err != nil {
				t.Fatalf("send %d bytes from %s: %v (%s)", n, pair[0].Peer(), err, pair[0].Reason())
			}
			got, err := pair[1].Recv(ctx, buf)
			if err != nil {
				t.Fatalf("recv %d bytes from %s: %v (%s)", n, pair[0].Peer(), err, pair[1].Reason())
			}
			if !bytes.Equal(buf[:got], want) {
				t.Fatalf("datagram of %d bytes arrived as %d different bytes", n, got)
			}
		}
	}
}

// udpPair dials l and returns both ends of one session, the client having
// sent its first datagram so the listener knows it.
func udpPair(t *testing.T, ctx context.Context, l *UDPListener, opts UDPOptions) (client, server Conn) {
	t.Helper()
	client, err := DialUDP(ctx, l.Addr(), opts)
	if err != nil {
		t.Fatal(err)
	}
	closeAtEnd(t, client)
	if err := client.Send([]byte("hello")); err != nil {
		t.Fatal(err)
	}
	server, err = l.Accept(ctx)
	if err != nil {
		t.Fatal(err)
	}
	closeAtEnd(t, client, server)
	buf := make([]byte, MaxDatagram)
	if n, err := server.Recv(ctx, buf); err != nil || string(buf[:n]) != "hello" {
		t.Fatalf("first datagram: %q, %v", buf[:n], err)
	}
	return client, server
}

func TestUDPDatagramsBothWays(t *testing.T) {
	ctx := netTest(t)
	l := listenUDP(t, UDPOptions{})
	client, server := udpPair(t, ctx, l, UDPOptions{})
	exchange(t, ctx, client, server)

	// A Recv whose context ends leaves the session working.
	short, cancel := context.WithTimeout(ctx, 10*time.Millisecond)
	defer cancel()
	if _, err := server.Recv(short, make([]byte, MaxDatagram)); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("recv with nothing to receive: %v", err)
	}
	exchange(t, ctx, client, server)

	if err := client.Send(make([]byte, MaxDatagram+1)); !errors.Is(err, ErrTooLarge) {
		t.Errorf("oversized send: %v, want ErrTooLarge", err)
	}
	if err := server.Send(make([]byte, MaxDatagram+1)); !errors.Is(err, ErrTooLarge) {
		t.Errorf("oversized server send: %v, want ErrTooLarge", err)
	}
	want := client.(Counted).Stats()
	if want.Sent != 2*uint64(len(testSizes))+1 || want.Received != 2*uint64(len(testSizes)) {
		t.Errorf("client stats %+v", want)
	}
	if got, want := server.Peer(), "udp:"+client.(*udpConn).sock.LocalAddr().String(); got != want {
		t.Errorf("server peer %q, want %q", got, want)
	}

	server.Close("kicked")
	if _, err := server.Recv(ctx, make([]byte, 10)); !errors.Is(err, ErrClosed) {
		t.Errorf("recv after close: %v", err)
	}
	if err := server.Send([]byte("x")); !errors.Is(err, ErrClosed) {
		t.Errorf("send after close: %v", err)
	}
	if server.Reason() != "kicked" {
		t.Errorf("reason %q", server.Reason())
	}
}

func TestUDPShortBufferDropsDatagram(t *testing.T) {
	ctx := netTest(t)
	l := listenUDP(t, UDPOptions{})
	client, server := udpPair(t, ctx, l, UDPOptions{})
	server.Send(payload(200, 1))
	server.Send(payload(5, 2))
	if _, err := client.Recv(ctx, make([]byte, 100)); err == nil {
		t.Fatal("200 bytes into 100: no error")
	}
	buf := make([]byte, 100)
	if n, err := client.Recv(ctx, buf); err != nil || !bytes.Equal(buf[:n], payload(5, 2)) {
		t.Fatalf("next datagram %v, %v", buf[:n], err)
	}
}

// waitFor polls cond until it holds or the test's context ends: for
// counters that move when the kernel delivers loopback datagrams.
func waitFor(t *testing.T, ctx context.Context, what string, cond func() bool) {
	t.Helper()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("timed out waiting for %s", what)
		case <-time.After(time.Millisecond):
		}
	}
}

func TestUDPFullQueueDropsAndCounts(t *testing.T) {
	ctx := netTest(t)
	opts := UDPOptions{QueueLen: 4}
	l := listenUDP(t, opts)
	client, server := udpPair(t, ctx, l, opts)
	for i := range 10 {
		client.Send(payload(10, byte(i)))
	}
	sc := server.(Counted)
	waitFor(t, ctx, "10 datagrams", func() bool { s := sc.Stats(); return s.Received+s.RecvDropped == 11 })
	if s := sc.Stats(); s.Received != 5 || s.RecvDropped != 6 {
		t.Fatalf("stats %+v, want 5 received (hello + 4 queued) and 6 dropped", s)
	}
	buf := make([]byte, MaxDatagram)
	for i := range 4 {
		n, err := server.Recv(ctx, buf)
		if err != nil || !bytes.Equal(buf[:n], payload(10, byte(i))) {
			t.Fatalf("queued datagram %d: %v %v", i, buf[:n], err)
		}
	}
}

func TestUDPIdleTimeout(t *testing.T) {
	ctx := netTest(t)
	opts := UDPOptions{IdleTimeout: 100 * time.Millisecond}
	l := listenUDP(t, opts)
	client, server := udpPair(t, ctx, l, opts)
	start := time.Now()
	if _, err := server.Recv(ctx, make([]byte, MaxDatagram)); !errors.Is(err, ErrClosed) {
		t.Fatalf("server recv on a silent peer: %v", err)
	}
	if server.Reason() != "idle timeout" {
		t.Errorf("server reason %q", server.Reason())
	}
	if _, err := client.Recv(ctx, make([]byte, MaxDatagram)); !errors.Is(err, ErrClosed) {
		t.Fatalf("client recv on a silent server: %v", err)
	}
	if client.Reason() != "idle timeout" {
		t.Errorf("client reason %q", client.Reason())
	}
	if d := time.Since(start); d < 100*time.Millisecond || d > 2*time.Second {
		t.Errorf("closed after %v, want about 100ms", d)
	}
	if n := l.Stats().Peers; n != 0 {
		t.Errorf("%d peers left after the idle timeout", n)
	}
}

func TestUDPPeerLimit(t *testing.T) {
	ctx := netTest(t)
	l := listenUDP(t, UDPOptions{MaxPeers: 2})
	var socks []*net.UDPConn
	for range 5 {
		s, err := net.DialUDP("udp", nil, net.UDPAddrFromAddrPort(mustAddrPort(t, l.Addr())))
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		socks = append(socks, s)
		s.Write([]byte("hi"))
	}
	waitFor(t, ctx, "5 datagrams", func() bool { s := l.Stats(); return uint64(s.Peers)+s.PeersRefused == 5 })
	if s := l.Stats(); s.Peers != 2 || s.PeersRefused != 3 {
		t.Fatalf("stats %+v, want 2 peers and 3 refused", s)
	}
	// Closing a session frees its place for a new peer.
	c, err := l.Accept(ctx)
	if err != nil {
		t.Fatal(err)
	}
	c.Close("bye")
	socks[4].Write([]byte("again"))
	waitFor(t, ctx, "a freed place", func() bool { return l.Stats().Peers == 2 && l.Stats().PeersRefused == 3 })
	for range 2 {
		c, err := l.Accept(ctx)
		if err != nil {
			t.Fatal(err)
		}
		c.Close("bye")
	}
}

func mustAddrPort(t *testing.T, s string) netip.AddrPort {
	t.Helper()
	ap, err := netip.ParseAddrPort(s)
	if err != nil {
		t.Fatal(err)
	}
	return ap
}

// TestUDPGarbage throws random datagrams, including oversized ones, from
// many sources at a listener; it keeps serving a real client after.
func TestUDPGarbage(t *testing.T) {
	ctx := netTest(t)
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	l := listenUDP(t, UDPOptions{MaxPeers: 8, QueueLen: 2})
	to := net.UDPAddrFromAddrPort(mustAddrPort(t, l.Addr()))
	junk := make([]byte, 1500)
	oversized, sent := 0, 0
	for range 16 {
		s, err := net.DialUDP("udp", nil, to)
		if err != nil {
			t.Fatal(err)
		}
		for range 20 {
			n := rng.IntN(len(junk) + 1)
			for i := range junk[:n] {
				junk[i] = byte(rng.Uint32())
			}
			s.Write(junk[:n])
			sent++
			if n > MaxDatagram {
				oversized++
			}
		}
		s.Close()
		// Pace the sources so the kernel's receive buffer never
		// overflows and every datagram reaches the listener.
		waitFor(t, ctx, "garbage read", func() bool { return l.Stats().Received == uint64(sent) })
	}
	waitFor(t, ctx, "oversized datagrams counted", func() bool { return l.Stats().Oversized == uint64(oversized) })
	// Drain the sessions the garbage opened, then a real peer still works.
	for l.Stats().Peers > 0 {
		c, err := l.Accept(ctx)
		if err != nil {
			t.Fatal(err)
		}
		c.Close("garbage")
	}
	client, server := udpPair(t, ctx, l, UDPOptions{})
	exchange(t, ctx, client, server)
}

func TestUDPListenerCloseKeepsAcceptedSessions(t *testing.T) {
	ctx := netTest(t)
	l := listenUDP(t, UDPOptions{})
	client, server := udpPair(t, ctx, l, UDPOptions{})
	l.Close()
	if _, err := l.Accept(ctx); !errors.Is(err, ErrClosed) {
		t.Fatalf("accept after close: %v", err)
	}
	exchange(t, ctx, client, server)
	server.Close("done")
	// The socket closes with the last session: goleak checks its loops end.
}

func BenchmarkUDPRoundTrip(b *testing.B) {
	ctx := context.Background()
	l, err := ListenUDP("127.0.0.1:0", UDPOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	client, err := DialUDP(ctx, l.Addr(), UDPOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer client.Close("done")
	client.Send([]byte("hello"))
	server, err := l.Accept(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer server.Close("done")
	server.Recv(ctx, make([]byte, MaxDatagram))
	benchRoundTrip(b, client, server)
}

// benchRoundTrip measures one 200-byte datagram each way: a client's
// input and the server's answer.
func benchRoundTrip(b *testing.B, client, server Conn) {
	// A datagram lost on loopback fails the run rather than hanging it.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	msg := payload(200, 0)
	buf := make([]byte, MaxDatagram)
	b.ReportAllocs()
	b.SetBytes(int64(2 * len(msg)))
	for b.Loop() {
		client.Send(msg)
		if _, err := server.Recv(ctx, buf); err != nil {
			b.Fatal(err)
		}
		server.Send(msg)
		if _, err := client.Recv(ctx, buf); err != nil {
			b.Fatal(err)
		}
	}
}

// TestUDPDialNobodyListening: ICMP port-unreachable errors do not close
// a dialed session (a listener may be starting); the idle timeout decides
// when the server is gone.
func TestUDPDialNobodyListening(t *testing.T) {
	ctx := netTest(t)
	s, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	addr := s.LocalAddr().String()
	s.Close()
	c, err := DialUDP(ctx, addr, UDPOptions{IdleTimeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	closeAtEnd(t, c)
	for range 5 {
		if err := c.Send([]byte("anyone?")); err != nil {
			t.Fatalf("send to a closed port: %v", err)
		}
		short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
		_, err := c.Recv(short, make([]byte, MaxDatagram))
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("recv: %v, reason %q", err, c.Reason())
		}
	}
	if c.Reason() != "" {
		t.Fatalf("closed by ICMP errors: %q", c.Reason())
	}
	expectClosed(t, ctx, c, "idle timeout")
}

// TestUDPDialFromLocalAddr: a dialled session sends from the local
// address asked for, and a second one can take the same port once the
// first is closed, as a restarted client does.
func TestUDPDialFromLocalAddr(t *testing.T) {
	ctx := netTest(t)
	l := listenUDP(t, UDPOptions{})
	free, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	local := free.LocalAddr().String()
	free.Close()
	for range 2 {
		c, err := DialUDP(ctx, l.Addr(), UDPOptions{LocalAddr: local})
		if err != nil {
			t.Fatal(err)
		}
		if got := c.(*udpConn).sock.LocalAddr().String(); got != local {
			t.Fatalf("sent from %s, want %s", got, local)
		}
		c.Close("restart")
	}
	if _, err := DialUDP(ctx, l.Addr(), UDPOptions{LocalAddr: "nowhere:x"}); err == nil {
		t.Error("a bad local address dialled")
	}
}
