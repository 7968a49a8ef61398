package transport

import (
	"context"
	"encoding/binary"
	"net"
	"net/http"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// TestSendBatchWebSlowPeer sends ticks of datagrams in a SendBatch to
// WebSocket sessions, one of whose peers never reads (its TCP buffers
// fill and a write to it blocks): every other peer still receives every
// tick's datagram, in order and counted; the slow session is marked
// slow, and what it cannot take is dropped and counted; and no Flush
// waits on it.
func TestSendBatchWebSlowPeer(t *testing.T) {
	netTest(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	l, url := wsServer(t, WSOptions{QueueLen: 4})
	const healthy = 8
	var clients, servers []Conn
	for range healthy {
		c, s := wsPair(t, ctx, l, url, WSOptions{QueueLen: 64})
		clients, servers = append(clients, c), append(servers, s)
	}
	// The peer that never reads, with a small receive buffer so its
	// connection fills soon.
	dialer := &net.Dialer{Control: func(_, _ string, rc syscall.RawConn) error {
		return rc.Control(func(fd uintptr) { syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
	}}
	raw, _, err := websocket.Dial(ctx, url, &websocket.DialOptions{HTTPClient: &http.Client{Transport: &http.Transport{DialContext: dialer.DialContext}}})
	if err != nil {
		t.Fatal(err)
	}
	defer raw.CloseNow()
	slow, err := l.Accept(ctx)
	if err != nil {
		t.Fatal(err)
	}
	closeAtEnd(t, slow)

	sb := NewSendBatch()
	p, buf := make([]byte, MaxDatagram), make([]byte, MaxDatagram)
	const ticks = 3000 // 3.4 MB for the slow peer
	done := make(chan struct{})
	go func() {
		defer close(done)
		for tick := range ticks {
			binary.BigEndian.PutUint32(p, uint32(tick))
			for _, s := range append(servers[:healthy:healthy], slow) {
				if err := sb.Add(s, p); err != nil {
					t.Error(err)
					return
				}
			}
			sb.Flush()
			for i, c := range clients {
				n, err := c.Recv(ctx, buf)
				if err != nil {
					t.Errorf("tick %d: peer %d: %v", tick, i, err)
					return
				}
				if got := binary.BigEndian.Uint32(buf); n != len(p) || got != uint32(tick) {
					t.Errorf("tick %d: peer %d received tick %d's datagram (%d bytes)", tick, i, got, n)
					return
				}
			}
		}
	}()
	select {
	case <-done:
	case <-ctx.Done():
		t.Fatal("the ticks never ended: a Flush waited on the slow peer")
	}
	if !slow.(*session).slow.Load() {
		t.Error("the peer that never reads was not marked slow")
	}
	if st := slow.(Counted).Stats(); st.SendDropped == 0 || st.Sent+st.SendDropped > ticks {
		t.Errorf("the slow peer's stats: %+v", st)
	}
	for i, s := range servers {
		// The writer counts a datagram once its send returns, which
		// may be after the peer has it.
		waitFor(t, ctx, "the counters", func() bool { return s.(Counted).Stats().Sent >= ticks })
		if st := s.(Counted).Stats(); st.Sent != ticks || st.SendDropped != 0 {
			t.Errorf("peer %d's stats: %+v", i, st)
		}
	}
}
