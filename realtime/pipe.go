package realtime

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/lagkit/lagkit/transport"
)

// Pipe returns the two ends of an in-memory datagram session, each
// queueing up to capacity datagrams for its reader. The first end's Peer
// is "pipe:"+a, what it is connected to, and the second's "pipe:"+b. It behaves as a transport.Conn over a lossless network that
// drops what a full queue cannot hold, so server-side bots play through
// the same driver code as remote clients without a socket each.
func Pipe(a, b string, capacity int) (transport.Conn, transport.Conn) {
	capacity = max(capacity, 1)
	st := &pipeState{done: make(chan struct{})}
	ea := &pipeEnd{name: a, in: make(chan []byte, capacity), st: st}
	eb := &pipeEnd{name: b, in: make(chan []byte, capacity), st: st}
	ea.other, eb.other = eb, ea
	return ea, eb
}

// pipeState is what both ends share: whether the session is closed, and
// why.
type pipeState struct {
	once   sync.Once
	done   chan struct{}
	mu     sync.Mutex
	reason string
}

type pipeEnd struct {
	name    string
	in      chan []byte
	other   *pipeEnd
	st      *pipeState
	dropped atomic.Int64
}

// Send copies p to the other end's queue, dropping it when that is full.
func (e *pipeEnd) Send(p []byte) error {
	if len(p) > transport.MaxDatagram {
		return fmt.Errorf("realtime: pipe: datagram of %d bytes exceeds %d", len(p), transport.MaxDatagram)
	}
	select {
	case <-e.st.done:
		return transport.ErrClosed
	default:
	}
	b := append([]byte(nil), p...)
	select {
	case e.other.in <- b:
	default:
		e.other.dropped.Add(1)
	}
	return nil
}

// Recv returns the next queued datagram. Datagrams queued before the
// session closed are still delivered, so a Disconnect sent just before
// Close arrives.
func (e *pipeEnd) Recv(ctx context.Context, buf []byte) (int, error) {
	select {
	case b := <-e.in:
		return copy(buf, b), nil
	default:
	}
	select {
	case b := <-e.in:
		return copy(buf, b), nil
	case <-ctx.Done():
		return 0, ctx.Err()
	case <-e.st.done:
		select {
		case b := <-e.in:
			return copy(buf, b), nil
		default:
			return 0, transport.ErrClosed
		}
	}
}

// Close ends the session for both ends with reason.
func (e *pipeEnd) Close(reason string) error {
	e.st.once.Do(func() {
		e.st.mu.Lock()
		e.st.reason = reason
		e.st.mu.Unlock()
		close(e.st.done)
	})
	return nil
}

func (e *pipeEnd) Peer() string { return "pipe:" + e.name }

func (e *pipeEnd) Reason() string {
	e.st.mu.Lock()
	defer e.st.mu.Unlock()
	return e.st.reason
}
