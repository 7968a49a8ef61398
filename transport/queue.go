package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
)

// DefaultQueueLen is how many datagrams a connection buffers in each
// direction when no length is configured: at a 60 Hz tick, about half a
// second of traffic, enough to ride out a stalled reader without letting a
// slow one fall seconds behind (stale snapshots are worse than lost ones).
const DefaultQueueLen = 32

// ErrTooLarge is returned (wrapped) by Send for a datagram longer than
// MaxDatagram.
var ErrTooLarge = errors.New("transport: datagram exceeds MaxDatagram")

// queue is a bounded ring of datagrams in preallocated slots: pushing and
// popping copy bytes and never allocate, and a full queue drops (the
// caller counts the drop) rather than grows.
type queue struct {
	mu    sync.Mutex
	slots [][MaxDatagram]byte
	lens  []int
	head  int // index of the oldest datagram
	n     int // datagrams queued
	ready chan struct{}
}

func newQueue(length int) *queue {
	if length <= 0 {
		length = DefaultQueueLen
	}
	return &queue{
		slots: make([][MaxDatagram]byte, length),
		lens:  make([]int, length),
		ready: make(chan struct{}, 1),
	}
}

// push copies p into the queue; false when the queue is full.
func (q *queue) push(p []byte) bool {
	q.mu.Lock()
	return q.pushLocked(p)
}

// pushLocked is push with the queue's lock held, which it releases.
func (q *queue) pushLocked(p []byte) bool {
	if q.n == len(q.slots) {
		q.mu.Unlock()
		return false
	}
	i := (q.head + q.n) % len(q.slots)
	q.lens[i] = copy(q.slots[i][:], p)
	q.n++
	q.mu.Unlock()
	select {
	case q.ready <- struct{}{}:
	default:
	}
	return true
}

// pop copies the oldest datagram into buf. ok is false when the queue is
// empty; err is set (and the datagram dropped) when buf is too small.
func (q *queue) pop(buf []byte) (n int, ok bool, err error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.n == 0 {
		return 0, false, nil
	}
	i := q.head
	q.head = (q.head + 1) % len(q.slots)
	q.n--
	if q.n > 0 {
		// Another datagram waits: keep a wake-up pending for the next
		// reader, since push only signals on each arrival.
		select {
		case q.ready <- struct{}{}:
		default:
		}
	}
	if l := q.lens[i]; l > len(buf) {
		return 0, true, fmt.Errorf("transport: datagram of %d bytes into a %d-byte buffer: %w", l, len(buf), io.ErrShortBuffer)
	}
	return copy(buf, q.slots[i][:q.lens[i]]), true, nil
}

// Stats counts a connection's datagrams since it opened.
type Stats struct {
	Sent     uint64 // datagrams handed to the network
	Received uint64 // datagrams delivered to the receive queue
	// SendDropped counts datagrams Send accepted but could not queue or
	// send (queue full, or a network error on an unreliable send).
	SendDropped uint64
	// RecvDropped counts datagrams that arrived while the receive queue
	// was full, or that exceeded MaxDatagram.
	RecvDropped uint64
}

// Counted is implemented by every Conn of this package: it reports the
// connection's counters, for logs and metrics.
type Counted interface {
	Stats() Stats
}

// counters are a connection's Stats, updated from several goroutines.
type counters struct {
	sent, received, sendDropped, recvDropped atomic.Uint64
}

// Stats reports the counters.
func (c *counters) Stats() Stats {
	return Stats{
		Sent:        c.sent.Load(),
		Received:    c.received.Load(),
		SendDropped: c.sendDropped.Load(),
		RecvDropped: c.recvDropped.Load(),
	}
}

// base is what every Conn shares: the receive queue, the closed state
// with its reason, and the counters.
type base struct {
	counters
	peer string
	in   *queue

	closeOnce sync.Once
	done      chan struct{}
	mu        sync.Mutex
	reason    string

	// sink, once set by ReceiveInto, takes the datagrams the queue in
	// took before, tagged tag (set with it, under in's lock).
	sink atomic.Pointer[Inbox]
	tag  uint64
}

func newBase(peer string, queueLen int) base {
	return base{peer: peer, in: newQueue(queueLen), done: make(chan struct{})}
}

// Peer names the remote end.
func (b *base) Peer() string { return b.peer }

// Reason is why the connection closed, "" while it is open.
func (b *base) Reason() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.reason
}

// markClosed records reason and wakes every waiter; true for the first
// call only, so the caller tears the connection down once.
func (b *base) markClosed(reason string) bool {
	first := false
	b.closeOnce.Do(func() {
		b.mu.Lock()
		b.reason = reason
		b.mu.Unlock()
		close(b.done)
		first = true
	})
	return first
}

func (b *base) closed() bool {
	select {
	case <-b.done:
		return true
	default:
		return false
	}
}

// deliver queues a datagram received at at (monotonic()) for Recv, or
// puts it in the inbox ReceiveInto named, counting it or its drop. One
// goroutine (the connection's reader) calls it.
func (b *base) deliver(p []byte, at int64) {
	ok := false
	switch s := b.sink.Load(); {
	case len(p) > MaxDatagram:
	case s != nil:
		ok = s.put(b.tag, at, p)
	default:
		b.in.mu.Lock()
		if s := b.sink.Load(); s != nil {
			// ReceiveInto ran since the Load: after the datagrams it moved.
			b.in.mu.Unlock()
			ok = s.put(b.tag, at, p)
		} else {
			ok = b.in.pushLocked(p)
		}
	}
	if !ok {
		b.recvDropped.Add(1)
		return
	}
	b.received.Add(1)
}

// Recv copies the next datagram into buf. Datagrams that arrived before
// the connection closed are still delivered; then it returns ErrClosed.
func (b *base) Recv(ctx context.Context, buf []byte) (int, error) {
	for {
		if n, ok, err := b.in.pop(buf); ok {
			return n, err
		}
		select {
		case <-b.in.ready:
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-b.done:
			if n, ok, err := b.in.pop(buf); ok {
				return n, err
			}
			return 0, ErrClosed
		}
	}
}

// checkSend refuses what Send must not carry.
func (b *base) checkSend(p []byte) error {
	if len(p) > MaxDatagram {
		return fmt.Errorf("transport: send to %s: %d bytes: %w", b.peer, len(p), ErrTooLarge)
	}
	if b.closed() {
		return ErrClosed
	}
	return nil
}
