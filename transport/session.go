package transport

import (
	"context"
	"sync"
	"time"
)

// closeTimeout bounds how long a closing session waits for its queued
// datagrams and close handshake before the connection is cut.
const closeTimeout = 5 * time.Second

// datagramIO is one message-based session (a WebSocket, a WebTransport
// session) seen as datagrams. Only the session's own goroutines call it:
// receive from the reader, send and closeWith from the writer.
type datagramIO interface {
	// receive returns the next datagram, valid until the next call.
	receive(ctx context.Context) ([]byte, error)
	// send sends one datagram; it may block on a slow peer.
	send(ctx context.Context, p []byte) error
	// closeWith tells the peer reason and releases the session. last is
	// the final datagram the session sent (nil if none): the driver's
	// goodbye where it sent one (transport.Conn's Close).
	closeWith(reason string, last []byte)
	// closeReason says why receive failed: the peer's reason or the error.
	closeReason(err error) string
}

// session is a Conn over a datagramIO: a reader goroutine fills the
// receive queue, and a writer goroutine drains a bounded send queue, so
// Send never waits on the peer and a slow peer costs drops, not latency.
type session struct {
	base
	io     datagramIO
	out    *queue
	ctx    context.Context // ends both goroutines' blocking calls
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// startSession starts the session's goroutines; onDone, if set, is called
// once both have ended.
func startSession(peer string, queueLen int, io datagramIO, onDone func()) *session {
	s := &session{base: newBase(peer, queueLen), io: io, out: newQueue(queueLen)}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.wg.Add(2)
	go func() {
		defer s.wg.Done()
		s.readLoop()
	}()
	go func() {
		defer s.wg.Done()
		s.writeLoop()
	}()
	if onDone != nil {
		go func() {
			s.wg.Wait()
			onDone()
		}()
	}
	return s
}

// Send queues p for the writer; a full queue drops it and counts the drop.
func (s *session) Send(p []byte) error {
	if err := s.checkSend(p); err != nil {
		return err
	}
	if !s.out.push(p) {
		s.sendDropped.Add(1)
	}
	return nil
}

// Close ends the session: datagrams already queued are sent, then the
// peer receives reason in the transport's close message. Close returns at
// once; a peer that does not complete the close within closeTimeout is
// cut.
func (s *session) Close(reason string) error {
	s.end(reason)
	return nil
}

// end marks the session closed and arms the cut that ends a writer or
// close handshake stuck on an unresponsive peer.
func (s *session) end(reason string) {
	if s.markClosed(reason) {
		time.AfterFunc(closeTimeout, s.cancel)
	}
}

func (s *session) readLoop() {
	for {
		p, err := s.io.receive(s.ctx)
		if err != nil {
			s.end(s.io.closeReason(err))
			return
		}
		s.deliver(p, monotonic())
	}
}

func (s *session) writeLoop() {
	// buf keeps the last datagram written until the next one is popped:
	// at the close it is the session's goodbye.
	var buf [MaxDatagram]byte
	last := -1
	for {
		if n, ok, _ := s.out.pop(buf[:]); ok {
			s.write(buf[:n])
			last = n
			continue
		}
		select {
		case <-s.out.ready:
		case <-s.done:
			for {
				n, ok, _ := s.out.pop(buf[:])
				if !ok {
					break
				}
				s.write(buf[:n])
				last = n
			}
			var goodbye []byte
			if last >= 0 {
				goodbye = buf[:last]
			}
			s.io.closeWith(s.Reason(), goodbye)
			s.cancel()
			return
		}
	}
}

func (s *session) write(p []byte) {
	if err := s.io.send(s.ctx, p); err != nil {
		s.sendDropped.Add(1)
		return
	}
	s.sent.Add(1)
}

// acceptQueue hands new sessions to Accept; a full backlog or a closed
// listener refuses them.
type acceptQueue struct {
	mu     sync.Mutex
	ch     chan Conn
	stop   chan struct{}
	closed bool
}

func newAcceptQueue(backlog int) *acceptQueue {
	if backlog <= 0 {
		backlog = DefaultAcceptBacklog
	}
	return &acceptQueue{ch: make(chan Conn, backlog), stop: make(chan struct{})}
}

func (a *acceptQueue) isClosed() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.closed
}

// offer queues c for Accept; false when refused.
func (a *acceptQueue) offer(c Conn) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return false
	}
	select {
	case a.ch <- c:
		return true
	default:
		return false
	}
}

func (a *acceptQueue) Accept(ctx context.Context) (Conn, error) {
	select {
	case c := <-a.ch:
		return c, nil
	case <-a.stop:
		return nil, ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// close stops accepting and closes sessions never accepted; false if
// already closed.
func (a *acceptQueue) close() bool {
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		return false
	}
	a.closed = true
	close(a.stop)
	a.mu.Unlock()
	for {
		select {
		case c := <-a.ch:
			c.Close("listener closed")
		default:
			return true
		}
	}
}

// truncateReason cuts reason to at most n bytes on a UTF-8 boundary, for
// close messages with a size limit.
func truncateReason(reason string, n int) string {
	if len(reason) <= n {
		return reason
	}
	for n > 0 && reason[n]&0xC0 == 0x80 { // a continuation byte
		n--
	}
	return reason[:n]
}
