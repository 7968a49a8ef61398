package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
)

// maxWSReason is the longest close reason a WebSocket close frame holds:
// 125 bytes of control frame payload less the 2-byte status code
// (RFC 6455, section 5.5).
const maxWSReason = 123

// errTextMessage ends a WebSocket session whose peer sent text: lagkit's
// datagrams travel as binary messages only.
var errTextMessage = errors.New("websocket: text message received; lagkit sends binary messages")

// WSOptions configures the WebSocket listener and dialer. The zero value
// gives the defaults.
type WSOptions struct {
	// QueueLen is each session's queue length in each direction, in
	// datagrams (DefaultQueueLen if 0).
	QueueLen int
	// AcceptBacklog bounds sessions not yet accepted
	// (DefaultAcceptBacklog if 0).
	AcceptBacklog int
	// OriginPatterns lists other origins whose pages may connect (host
	// patterns as in path.Match); the page's own origin always may.
	OriginPatterns []string
	// IdleTimeout closes a session whose peer sends nothing for this long
	// (DefaultIdleTimeout if 0).
	IdleTimeout time.Duration
	// LocalAddr is the HOST (or HOST:PORT) DialWS connects from
	// (default: as the system picks), as a machine with several
	// addresses may need.
	LocalAddr string
}

// WSListener is an http.Handler that upgrades requests to WebSocket
// sessions and yields them on Accept. Close stops accepting (upgrades are
// then refused with 503); accepted sessions stay open.
type WSListener struct {
	opts   WSOptions
	addr   string
	accept *acceptQueue
	// track, when set (by Web), counts a new session: it returns the
	// function to call when the session ends, or false to refuse it.
	track func() (onDone func(), ok bool)
}

// NewWSListener returns a WebSocket listener to mount on an HTTP server
// serving at addr (what Addr reports).
func NewWSListener(addr string, opts WSOptions) *WSListener {
	return &WSListener{opts: opts, addr: addr, accept: newAcceptQueue(opts.AcceptBacklog)}
}

// Addr is the HTTP server's address given to NewWSListener.
func (l *WSListener) Addr() string { return l.addr }

// Accept returns the next upgraded session.
func (l *WSListener) Accept(ctx context.Context) (Conn, error) { return l.accept.Accept(ctx) }

// Close stops accepting.
func (l *WSListener) Close() error {
	l.accept.close()
	return nil
}

// ServeHTTP upgrades the request and queues the session for Accept.
func (l *WSListener) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var onDone func()
	ok := !l.accept.isClosed()
	if ok && l.track != nil {
		onDone, ok = l.track()
	}
	if !ok {
		http.Error(w, "lagkit: not accepting sessions", http.StatusServiceUnavailable)
		return
	}
	// The server's read and write deadlines bound a request and its
	// response, never the session that takes over the connection (it
	// has its idle timeout). net/http clears them when the upgrade
	// hijacks the connection; clearing them here too keeps a session
	// whole under any server the listener is mounted on.
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Time{})
	_ = rc.SetWriteDeadline(time.Time{})
	ws, err := websocket.Accept(w, r, &websocket.AcceptOptions{OriginPatterns: l.opts.OriginPatterns})
	if err != nil {
		if onDone != nil {
			onDone()
		}
		return // Accept has answered the request with the error
	}
	c := newWSConn(ws, "ws:"+r.RemoteAddr, l.opts.QueueLen, l.opts.IdleTimeout, onDone)
	if !l.accept.offer(c) {
		c.Close("server busy")
	}
}

func newWSConn(ws *websocket.Conn, peer string, queueLen int, idle time.Duration, onDone func()) *session {
	if idle <= 0 {
		idle = DefaultIdleTimeout
	}
	ws.SetReadLimit(MaxDatagram)
	w := &wsIO{ws: ws}
	// One timer, reset per message, bounds the wait for the next one:
	// when it fires it cuts the connection, which ends the read.
	w.timer = time.AfterFunc(idle, func() {
		w.idleHit.Store(true)
		ws.CloseNow()
	})
	w.idle = idle
	s := startSession(peer, queueLen, w, onDone)
	// The session's cut (its close timeout) ends a read or a write
	// stuck on the peer the same way.
	context.AfterFunc(s.ctx, func() { ws.CloseNow() })
	return s
}

// wsIO carries datagrams as binary WebSocket messages. Its reads and
// writes pass the WebSocket library a context that is never done: with
// one that can be, the library arms a context.AfterFunc per frame read
// and per message written (three allocations a datagram); the idle
// timer and the session's cut close the connection instead.
type wsIO struct {
	ws      *websocket.Conn
	idle    time.Duration
	timer   *time.Timer
	idleHit atomic.Bool
	buf     [MaxDatagram + 1]byte // one more byte tells an oversized message
}

func (w *wsIO) receive(context.Context) ([]byte, error) {
	// Only the reader goroutine calls receive.
	w.timer.Reset(w.idle)
	p, err := w.message()
	if err != nil {
		w.timer.Stop() // the session is over
		if w.idleHit.Load() {
			return nil, errWSIdle
		}
	}
	return p, err
}

// message reads the next message whole.
func (w *wsIO) message() ([]byte, error) {
	typ, r, err := w.ws.Reader(context.Background())
	if err != nil {
		return nil, err
	}
	// The read limit ends the session on a longer message; the one
	// byte past it that the limiter lets through is caught here.
	n, err := io.ReadFull(r, w.buf[:])
	switch {
	case n > MaxDatagram:
		return nil, errWSTooLarge
	case err == nil, errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
	default:
		return nil, err
	}
	if typ != websocket.MessageBinary {
		return nil, errTextMessage
	}
	return w.buf[:n], nil
}

func (w *wsIO) send(_ context.Context, p []byte) error {
	return w.ws.Write(context.Background(), websocket.MessageBinary, p)
}

func (w *wsIO) closeWith(reason string, _ []byte) {
	w.ws.Close(websocket.StatusNormalClosure, truncateReason(reason, maxWSReason))
}

func (w *wsIO) closeReason(err error) string {
	if err == errWSIdle {
		return "idle timeout"
	}
	var ce websocket.CloseError
	if errors.As(err, &ce) {
		if ce.Reason != "" {
			return ce.Reason
		}
		return "websocket: " + ce.Code.String()
	}
	return err.Error()
}

// errWSIdle ends a WebSocket session whose peer was silent for the idle
// timeout.
var errWSIdle = errors.New("websocket: idle timeout")

// errWSTooLarge ends a WebSocket session whose peer sent a message longer
// than MaxDatagram: a reliable stream cannot drop it and resynchronise.
var errWSTooLarge = fmt.Errorf("websocket: message of more than %d bytes", MaxDatagram)
