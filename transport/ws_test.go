package transport

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// wsServer serves a WebSocket listener over plain HTTP on loopback.
func wsServer(t *testing.T, opts WSOptions) (*WSListener, string) {
	t.Helper()
	l := NewWSListener("", opts)
	srv := httptest.NewServer(l)
	t.Cleanup(func() {
		l.Close()
		srv.Close()
	})
	return l, "ws" + strings.TrimPrefix(srv.URL, "http")
}

func wsPair(t *testing.T, ctx context.Context, l *WSListener, url string, opts WSOptions) (client, server Conn) {
	t.Helper()
	client, err := DialWS(ctx, url, ClientTLS{}, opts)
	if err != nil {
		t.Fatal(err)
	}
	closeAtEnd(t, client)
	server, err = l.Accept(ctx)
	if err != nil {
		t.Fatal(err)
	}
	closeAtEnd(t, server)
	return client, server
}

// expectClosed checks c's Recv ends with ErrClosed and reason.
func expectClosed(t *testing.T, ctx context.Context, c Conn, reason string) {
	t.Helper()
	if _, err := c.Recv(ctx, make([]byte, MaxDatagram)); !errors.Is(err, ErrClosed) {
		t.Fatalf("%s: recv after the peer closed: %v", c.Peer(), err)
	}
	if !strings.Contains(c.Reason(), reason) {
		t.Fatalf("%s: reason %q, want %q", c.Peer(), c.Reason(), reason)
	}
}

// expectGoodbye reads goodbye from c, then the close with reason. A
// WebTransport server's session sends its last datagram again until the
// peer closes (wtIO.closeWith), so over WebTransport c, which does not
// close, reads it more than once; over other transports once.
func expectGoodbye(t *testing.T, ctx context.Context, c Conn, goodbye, reason string) {
	t.Helper()
	buf := make([]byte, MaxDatagram)
	n := 0
	for {
		got, err := c.Recv(ctx, buf)
		if errors.Is(err, ErrClosed) {
			break
		}
		if err != nil || string(buf[:got]) != goodbye {
			t.Fatalf("%s: datagram %d before the close: %q, %v; want %q", c.Peer(), n+1, buf[:got], err, goodbye)
		}
		n++
	}
	if !strings.Contains(c.Reason(), reason) {
		t.Fatalf("%s: reason %q, want %q", c.Peer(), c.Reason(), reason)
	}
	want := "once"
	if strings.HasPrefix(c.Peer(), "wt:") {
		if want = "again until the close"; n < 2 {
			t.Errorf("%s: the goodbye came %d times, want it %s", c.Peer(), n, want)
		}
	} else if n != 1 {
		t.Errorf("%s: the goodbye came %d times, want it %s", c.Peer(), n, want)
	}
}

func TestWSDatagramsBothWaysAndCloseReason(t *testing.T) {
	ctx := netTest(t)
	l, url := wsServer(t, WSOptions{})
	client, server := wsPair(t, ctx, l, url, WSOptions{})
	exchange(t, ctx, client, server)
	if err := client.Send(make([]byte, MaxDatagram+1)); !errors.Is(err, ErrTooLarge) {
		t.Errorf("oversized send: %v, want ErrTooLarge", err)
	}
	// Datagrams queued before Close still arrive, then the reason.
	server.Send([]byte("last words"))
	server.Close("match over")
	buf := make([]byte, MaxDatagram)
	if n, err := client.Recv(ctx, buf); err != nil || string(buf[:n]) != "last words" {
		t.Fatalf("datagram before close: %q, %v", buf[:n], err)
	}
	expectClosed(t, ctx, client, "match over")
	if err := client.Send([]byte("x")); !errors.Is(err, ErrClosed) {
		t.Errorf("send after close: %v", err)
	}
	if s := server.(Counted).Stats(); s.Sent != uint64(len(testSizes))+1 || s.Received != uint64(len(testSizes)) {
		t.Errorf("server stats %+v", s)
	}
}

func TestWSClientCloseReason(t *testing.T) {
	ctx := netTest(t)
	l, url := wsServer(t, WSOptions{})
	client, server := wsPair(t, ctx, l, url, WSOptions{})
	long := strings.Repeat("é", 100) // 200 bytes: cut to fit the frame
	client.Close(long)
	expectClosed(t, ctx, server, strings.Repeat("é", 61))
	if len(server.Reason()) > maxWSReason {
		t.Errorf("reason of %d bytes", len(server.Reason()))
	}
}

func TestWSBadMessagesEndTheSession(t *testing.T) {
	ctx := netTest(t)
	l, url := wsServer(t, WSOptions{})
	for _, tc := range []struct {
		typ    websocket.MessageType
		n      int
		reason string
	}{
		{websocket.MessageBinary, MaxDatagram + 1, fmt.Sprintf("more than %d bytes", MaxDatagram)},
		{websocket.MessageBinary, 5000, fmt.Sprintf("more than %d bytes", MaxDatagram)},
		{websocket.MessageText, 10, "text message"},
	} {
		raw, _, err := websocket.Dial(ctx, url, nil)
		if err != nil {
			t.Fatal(err)
		}
		server, err := l.Accept(ctx)
		if err != nil {
			t.Fatal(err)
		}
		raw.Write(ctx, tc.typ, make([]byte, tc.n))
		expectClosed(t, ctx, server, tc.reason)
		raw.CloseNow()
	}
}

func TestWSSlowPeerDropsInsteadOfBlocking(t *testing.T) {
	ctx := netTest(t)
	l, url := wsServer(t, WSOptions{QueueLen: 4})
	// A peer that never reads: TCP buffers fill, then the writer blocks.
	raw, _, err := websocket.Dial(ctx, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.CloseNow()
	server, err := l.Accept(ctx)
	if err != nil {
		t.Fatal(err)
	}
	p := make([]byte, MaxDatagram)
	start := time.Now()
	const sends = 20000 // 22 MB, more than loopback TCP buffers hold
	for range sends {
		if err := server.Send(p); err != nil {
			t.Fatal(err)
		}
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("%d sends took %v: Send waited on the peer", sends, d)
	}
	if s := server.(Counted).Stats(); s.SendDropped == 0 {
		t.Errorf("stats %+v: nothing dropped for a peer that never reads", s)
	}
	server.Close("too slow")
}

func TestWSListenerClose(t *testing.T) {
	ctx := netTest(t)
	l, url := wsServer(t, WSOptions{})
	client, server := wsPair(t, ctx, l, url, WSOptions{})
	l.Close()
	if _, err := l.Accept(ctx); !errors.Is(err, ErrClosed) {
		t.Fatalf("accept after close: %v", err)
	}
	if _, err := DialWS(ctx, url, ClientTLS{}, WSOptions{}); err == nil || !strings.Contains(err.Error(), "503") {
		t.Fatalf("dial a closed listener: %v", err)
	}
	exchange(t, ctx, client, server)
	client.Close("bye")
	expectClosed(t, ctx, server, "bye")
}

func TestWSIdleTimeout(t *testing.T) {
	ctx := netTest(t)
	l, url := wsServer(t, WSOptions{IdleTimeout: 100 * time.Millisecond})
	client, server := wsPair(t, ctx, l, url, WSOptions{})
	start := time.Now()
	expectClosed(t, ctx, server, "idle timeout")
	if _, err := client.Recv(ctx, make([]byte, MaxDatagram)); !errors.Is(err, ErrClosed) {
		t.Fatalf("client recv after the server timed out: %v", err)
	}
	if d := time.Since(start); d < 50*time.Millisecond || d > 2*time.Second {
		t.Errorf("closed after %v, want about 100ms", d)
	}
}
