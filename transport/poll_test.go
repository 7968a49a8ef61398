package transport

import (
	"net"
	"strings"
	"testing"
	"time"
)

// pollingListener opens a listener whose polls keep its reader off the
// socket for fresh, and one session routed into an inbox.
func pollingListener(t *testing.T, fresh time.Duration) (*UDPListener, *Inbox, Conn) {
	t.Helper()
	if !canPoll {
		t.Skip("this platform's listeners read every datagram as it comes")
	}
	ctx := netTest(t)
	old := pollFresh
	pollFresh = fresh
	l := listenUDP(t, UDPOptions{})
	pollFresh = old
	in := NewInbox(1024, 1024*MaxDatagram)
	clients, _ := batchPeers(t, ctx, l, in, 1)
	return l, in, clients[0]
}

// readerOff polls in and has the listener's reader leave the socket to
// the polls: a reader waiting in its read when the polls began reads
// what comes next, then sees the polls and leaves.
func readerOff(t *testing.T, in *Inbox, c Conn) {
	t.Helper()
	in.Take()
	if err := c.Send([]byte("wake")); err != nil {
		t.Fatal(err)
	}
	takeAll(t, in, 1, func(uint64, []byte) {})
}

// TestPolledDatagramsKeepTheirArrival reads a datagram by polling long
// after it arrived and checks that its arrival time is the kernel's,
// within the Send that put it on loopback, not the poll's.
func TestPolledDatagramsKeepTheirArrival(t *testing.T) {
	_, in, c := pollingListener(t, time.Minute)
	readerOff(t, in, c)
	t0 := time.Now()
	if err := c.Send([]byte("stamped")); err != nil {
		t.Fatal(err)
	}
	t1 := time.Now()
	time.Sleep(30 * time.Millisecond)
	var arrived time.Time
	deadline := time.Now().Add(5 * time.Second)
	for arrived.IsZero() {
		b := in.Take()
		for i := range b.Len() {
			_, at, p := b.Datagram(i)
			if string(p) == "stamped" {
				arrived = at
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("the datagram never arrived")
		}
	}
	// Loopback delivers within the sender's system call; the clocks'
	// conversion is good to microseconds.
	const slack = 2 * time.Millisecond
	if arrived.Before(t0.Add(-slack)) || arrived.After(t1.Add(slack)) {
		t.Errorf("arrived %v after the send began, which took %v", arrived.Sub(t0), t1.Sub(t0))
	}
}

// TestPollsKeepTheReaderOff checks that while a listener's inbox polls
// it, datagrams stay in the kernel until the next poll (no goroutine
// reads them as they come), and that the poll then delivers them all.
func TestPollsKeepTheReaderOff(t *testing.T) {
	l, in, c := pollingListener(t, time.Minute)
	readerOff(t, in, c)
	before := l.Stats().Received
	const n = 10
	for i := range n {
		if err := c.Send(payload(20, byte(i))); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(30 * time.Millisecond)
	if got := l.Stats().Received; got != before {
		t.Fatalf("%d datagrams read between two polls", got-before)
	}
	seen := 0
	takeAll(t, in, n, func(_ uint64, p []byte) {
		if len(p) == 20 && p[0] == byte(seen) {
			seen++
		}
	})
	if seen != n {
		t.Errorf("%d of %d datagrams in order", seen, n)
	}
	if got := l.Stats().Received; got != before+n {
		t.Errorf("read %d datagrams, want %d", got-before, n)
	}
}

// TestReaderReadsWhenPollsStop checks that a listener whose consumer
// stopped polling reads its datagrams again by itself.
func TestReaderReadsWhenPollsStop(t *testing.T) {
	l, in, c := pollingListener(t, 20*time.Millisecond)
	in.Take() // the last poll
	before := l.Stats().Received
	if err := c.Send([]byte("nobody polls")); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for l.Stats().Received == before {
		if time.Now().After(deadline) {
			t.Fatal("the listener never read the datagram")
		}
		time.Sleep(time.Millisecond)
	}
}

// TestDualStackListener serves IPv4 and IPv6 clients from one listener
// on [::]: each one's datagrams arrive through the inbox from its own
// address, and a batch's replies reach both.
func TestDualStackListener(t *testing.T) {
	ctx := netTest(t)
	l, err := ListenUDP("[::]:0", UDPOptions{})
	if err != nil {
		t.Skipf("no dual-stack socket here: %v", err)
	}
	t.Cleanup(func() { l.Close() })
	_, port, _ := net.SplitHostPort(l.Addr())
	in := NewInbox(64, 64*MaxDatagram)
	var clients, servers []Conn
	for i, host := range []string{"127.0.0.1", "::1"} {
		c, err := DialUDP(ctx, net.JoinHostPort(host, port), UDPOptions{})
		if err != nil {
			t.Skipf("no %s here: %v", host, err)
		}
		closeAtEnd(t, c)
		if err := c.Send([]byte("hello")); err != nil {
			t.Fatal(err)
		}
		s, err := l.Accept(ctx)
		if err != nil {
			t.Fatal(err)
		}
		closeAtEnd(t, s)
		if !strings.Contains(s.Peer(), host) {
			t.Errorf("the session of a client on %s is %s", host, s.Peer())
		}
		buf := make([]byte, MaxDatagram)
		if _, err := s.Recv(ctx, buf); err != nil {
			t.Fatal(err)
		}
		s.(Routable).ReceiveInto(in, uint64(i))
		clients, servers = append(clients, c), append(servers, s)
	}
	for i, c := range clients {
		if err := c.Send([]byte{byte(i)}); err != nil {
			t.Fatal(err)
		}
	}
	takeAll(t, in, 2, func(tag uint64, p []byte) {
		if len(p) != 1 || uint64(p[0]) != tag {
			t.Errorf("session %d received %v", tag, p)
		}
	})
	sb := NewSendBatch()
	for i, s := range servers {
		if err := sb.Add(s, []byte{byte(10 + i)}); err != nil {
			t.Fatal(err)
		}
	}
	sb.Flush()
	buf := make([]byte, MaxDatagram)
	for i, c := range clients {
		n, err := c.Recv(ctx, buf)
		if err != nil || n != 1 || buf[0] != byte(10+i) {
			t.Errorf("client %d: %v %v", i, buf[:n], err)
		}
	}
}

// TestFloodKeepsTheReaderReading sends more datagrams between two polls
// than a poll reads: the listener's reader then reads the rest, and
// goes on reading what comes with no poll, so that a flood between
// ticks does not overflow the kernel's buffer and drop real peers'.
func TestFloodKeepsTheReaderReading(t *testing.T) {
	l, in, c := pollingListener(t, time.Minute)
	readerOff(t, in, c)
	before := l.Stats().Received
	burst := pollBatches*ioBatch + 44
	for i := range burst {
		if err := c.Send(payload(20, byte(i))); err != nil {
			t.Fatal(err)
		}
	}
	first := in.Take().Len() // reads its bound, and leaves the rest to the reader
	for i := range 10 {
		if err := c.Send(payload(20, byte(i))); err != nil {
			t.Fatal(err)
		}
	}
	want := before + uint64(burst+10)
	deadline := time.Now().Add(5 * time.Second)
	for l.Stats().Received < want {
		if time.Now().After(deadline) {
			t.Fatalf("read %d of %d datagrams with no poll after the flood's", l.Stats().Received-before, burst+10)
		}
		time.Sleep(time.Millisecond)
	}
	if first != pollBatches*ioBatch {
		t.Errorf("a poll read %d datagrams, want its bound, %d", first, pollBatches*ioBatch)
	}
	takeAll(t, in, burst+10-first, func(uint64, []byte) {})
}
