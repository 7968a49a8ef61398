package transport

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"
)

// batchPeers opens n sessions on l, each with its client's first
// datagram received, and routes every session into in, tagged by its
// index.
func batchPeers(t testing.TB, ctx context.Context, l *UDPListener, in *Inbox, n int) (clients, servers []Conn) {
	t.Helper()
	return routedPeers(t, ctx, l, in, n, true, func() (Conn, error) { return DialUDP(ctx, l.Addr(), UDPOptions{}) })
}

// routedPeers opens n sessions on l, each dialed by dial, and routes
// every server session into in, tagged by its index. With hello each
// client first sends a datagram (which opens a UDP listener's session),
// received before the routing.
func routedPeers(t testing.TB, ctx context.Context, l Listener, in *Inbox, n int, hello bool, dial func() (Conn, error)) (clients, servers []Conn) {
	t.Helper()
	buf := make([]byte, MaxDatagram)
	for i := range n {
		c, err := dial()
		if err != nil {
			t.Fatal(err)
		}
		if hello {
			if err := c.Send([]byte("hello")); err != nil {
				t.Fatal(err)
			}
		}
		s, err := l.Accept(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if hello {
			if _, err := s.Recv(ctx, buf); err != nil {
				t.Fatal(err)
			}
		}
		s.(Routable).ReceiveInto(in, uint64(i))
		clients, servers = append(clients, c), append(servers, s)
	}
	t.Cleanup(func() {
		for i := range clients {
			clients[i].Close("test over")
			servers[i].Close("test over")
		}
	})
	return clients, servers
}

// takeAll takes in's batches until n datagrams came, calling each on
// every one, or fails after a while.
func takeAll(t testing.TB, in *Inbox, n int, each func(tag uint64, p []byte)) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for got := 0; got < n; {
		b := in.Take()
		for i := range b.Len() {
			tag, _, p := b.Datagram(i)
			each(tag, p)
		}
		got += b.Len()
		if got < n {
			if time.Now().After(deadline) {
				t.Fatalf("%d of %d datagrams arrived", got, n)
			}
			runtime.Gosched()
		}
	}
}

// TestInboxGathersSessionsInOrder sends datagrams from many clients and
// checks that each arrives once, intact, tagged with its session, in
// the order its client sent them; and that what a session had queued
// before ReceiveInto comes first.
func TestInboxGathersSessionsInOrder(t *testing.T) {
	ctx := netTest(t)
	l := listenUDP(t, UDPOptions{})
	in := NewInbox(1024, 1024*MaxDatagram)
	clients, servers := batchPeers(t, ctx, l, in, 8)
	// One more session whose first datagrams wait in its own queue.
	late, err := DialUDP(ctx, l.Addr(), UDPOptions{})
	if err != nil {
		t.Fatal(err)
	}
	closeAtEnd(t, late)
	for k := range 3 {
		late.Send([]byte{8, byte(k)})
	}
	ls, err := l.Accept(ctx)
	if err != nil {
		t.Fatal(err)
	}
	closeAtEnd(t, ls)
	waitFor(t, ctx, "the queued datagrams", func() bool { return ls.(Counted).Stats().Received == 3 })
	ls.(Routable).ReceiveInto(in, 8)
	clients = append(clients, late)
	const each = 20
	for k := 3; k < each; k++ {
		for i, c := range clients {
			p := append(payload(100+i, byte(k)), byte(i), byte(k))
			if i == 8 {
				p = []byte{8, byte(k)}
			}
			if err := c.Send(p); err != nil {
				t.Fatal(err)
			}
		}
	}
	next := make([]int, len(clients))
	next[8] = 0
	for i := range 8 {
		next[i] = 3
	}
	takeAll(t, in, 8*(each-3)+each, func(tag uint64, p []byte) {
		i := int(tag)
		k := next[i]
		want := append(payload(100+i, byte(k)), byte(i), byte(k))
		if i == 8 {
			want = []byte{8, byte(k)}
		}
		if !bytes.Equal(p, want) {
			t.Fatalf("session %d's datagram %d arrived as %d other bytes", i, k, len(p))
		}
		next[i]++
	})
	if st := servers[0].(Counted).Stats(); st.Received != each-3+1 || st.RecvDropped != 0 {
		t.Errorf("session 0 counted %+v", st)
	}
	// Recv, with the datagrams going elsewhere, waits for the close.
	rctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if _, err := servers[0].Recv(rctx, make([]byte, MaxDatagram)); err != context.DeadlineExceeded {
		t.Errorf("Recv of a routed session: %v", err)
	}
}

// TestInboxFullDropsAndCounts fills a small inbox: the rest are dropped
// and counted, in the batch and the session, and the next batch has
// room again.
func TestInboxFullDropsAndCounts(t *testing.T) {
	ctx := netTest(t)
	l := listenUDP(t, UDPOptions{})
	in := NewInbox(4, 4*MaxDatagram)
	clients, servers := batchPeers(t, ctx, l, in, 1)
	for k := range 10 {
		clients[0].Send([]byte{byte(k)})
	}
	waitFor(t, ctx, "all ten", func() bool {
		st := servers[0].(Counted).Stats()
		return st.Received+st.RecvDropped == 1+10 // with its hello
	})
	b := in.Take()
	if b.Len() != 4 || b.Dropped() != 6 {
		t.Fatalf("batch of %d, %d dropped; want 4 and 6", b.Len(), b.Dropped())
	}
	for i := range 4 {
		if _, _, p := b.Datagram(i); p[0] != byte(i) {
			t.Errorf("datagram %d is %v", i, p)
		}
	}
	if st := servers[0].(Counted).Stats(); st.Received != 1+4 || st.RecvDropped != 6 {
		t.Errorf("session counted %+v", st)
	}
	clients[0].Send([]byte{42})
	takeAll(t, in, 1, func(_ uint64, p []byte) {
		if p[0] != 42 {
			t.Errorf("after the drops: %v", p)
		}
	})
}

// TestSendBatchDelivers sends a batch to many sessions of a listener
// and a dialed session (sent at once) and checks every datagram arrives
// once, intact, and is counted.
func TestSendBatchDelivers(t *testing.T) {
	ctx := netTest(t)
	l := listenUDP(t, UDPOptions{})
	in := NewInbox(1024, 1024*MaxDatagram)
	n := ioBatch + 9 // more than one system call's worth
	clients, servers := batchPeers(t, ctx, l, in, n)
	sb := NewSendBatch()
	for round := range 3 {
		for i, s := range servers {
			if err := sb.Add(s, payload(50+i, byte(round))); err != nil {
				t.Fatal(err)
			}
		}
		// A dialed session is no listener's: sent at once.
		if err := sb.Add(clients[0], []byte("up")); err != nil {
			t.Fatal(err)
		}
		if sb.Len() != n {
			t.Fatalf("batch holds %d, want %d", sb.Len(), n)
		}
		sb.Flush()
		buf := make([]byte, MaxDatagram)
		for i, c := range clients {
			k, err := c.Recv(ctx, buf)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(buf[:k], payload(50+i, byte(round))) {
				t.Fatalf("round %d: client %d got %d other bytes", round, i, k)
			}
		}
	}
	takeAll(t, in, 3, func(tag uint64, p []byte) {
		if tag != 0 || string(p) != "up" {
			t.Errorf("from session %d: %q", tag, p)
		}
	})
	if st := servers[1].(Counted).Stats(); st.Sent != 3 || st.SendDropped != 0 {
		t.Errorf("session 1 counted %+v", st)
	}
	if err := sb.Add(servers[0], make([]byte, MaxDatagram+1)); err == nil {
		t.Error("an oversized datagram was taken")
	}
	servers[1].Close("gone")
	if err := sb.Add(servers[1], []byte("x")); err != ErrClosed {
		t.Errorf("to a closed session: %v", err)
	}
	if sb.Len() != 0 {
		t.Errorf("refused datagrams kept: %d", sb.Len())
	}
}

// TestUDPPathsAllocateNothing checks the server's steady state on
// native UDP: a tick of datagrams from 64 clients read in batches into
// an inbox and taken, and a tick of 64 datagrams sent in a batch, each
// allocate nothing (testing.AllocsPerRun counts the process's
// allocations: the listener's reader goroutine's as well).
func TestUDPPathsAllocateNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("a few thousand datagrams")
	}
	ctx := netTest(t)
	l := listenUDP(t, UDPOptions{})
	in := NewInbox(1024, 1024*MaxDatagram)
	const n = 64
	clients, servers := batchPeers(t, ctx, l, in, n)
	msg := payload(200, 1)
	var got int
	recv := testing.AllocsPerRun(50, func() {
		for _, c := range clients {
			c.Send(msg)
		}
		takeAll(t, in, n, func(_ uint64, p []byte) { got += len(p) })
	})
	if recv != 0 {
		t.Errorf("receiving a tick of %d datagrams: %v allocations", n, recv)
	}
	sb := NewSendBatch()
	buf := make([]byte, MaxDatagram)
	send := testing.AllocsPerRun(50, func() {
		for _, s := range servers {
			sb.Add(s, msg)
		}
		sb.Flush()
		for _, c := range clients {
			if _, err := c.Recv(ctx, buf); err != nil {
				t.Fatal(err)
			}
		}
	})
	if send != 0 {
		t.Errorf("sending a tick of %d datagrams: %v allocations", n, send)
	}
	if got != 51*n*len(msg) {
		t.Errorf("%d bytes arrived, want %d", got, 51*n*len(msg))
	}
}

// BenchmarkSendBatch measures sending 64 snapshots of 400 bytes to 64
// sessions, batched and one system call each.
func BenchmarkSendBatch(b *testing.B) {
	for _, batched := range []bool{true, false} {
		b.Run(fmt.Sprintf("batched=%v", batched), func(b *testing.B) {
			ctx := context.Background()
			l, err := ListenUDP("127.0.0.1:0", UDPOptions{})
			if err != nil {
				b.Fatal(err)
			}
			defer l.Close()
			in := NewInbox(1024, 1024*MaxDatagram)
			clients, servers := batchPeers(b, ctx, l, in, 64)
			sb := NewSendBatch()
			msg, buf := payload(400, 2), make([]byte, MaxDatagram)
			b.ReportAllocs()
			for b.Loop() {
				for _, s := range servers {
					if batched {
						sb.Add(s, msg)
					} else {
						s.Send(msg)
					}
				}
				sb.Flush()
				for _, c := range clients {
					if _, err := c.Recv(ctx, buf); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
