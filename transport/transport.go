// Package transport carries lagkit's wire datagrams between a real-time
// driver and its peers over real networks: native UDP for Go clients and
// bots, WebTransport datagrams for browsers, and WebSocket binary messages
// where WebTransport is unavailable. Every transport moves the wire's
// datagrams unchanged (at most wire.MaxDatagram bytes) behind one
// interface, so a driver never knows which one a peer uses.
//
// ListenUDP and DialUDP serve native clients; Web serves browsers on one
// HOST:PORT (HTTPS and WebSocket over TCP, HTTP/3 and WebTransport over
// UDP, with a generated certificate whose hash pages pin); Dial opens a
// session by URL (udp://, wt://, ws://, wss://). Every Conn queues a
// bounded number of datagrams each way and drops, counting the drop
// (Counted), rather than block or grow.
package transport

import (
	"context"
	"errors"
)

// MaxDatagram is the largest datagram a transport carries: the wire's
// limit (wire.MaxDatagram, 1100 bytes) and the 25 bytes sealing a
// session adds (seal.Overhead). Larger ones are refused by Send and
// dropped on receipt. With IPv6's and UDP's headers it stays within the
// 1280 bytes every IPv6 link carries.
const MaxDatagram = 1125

// ErrClosed is returned by Recv and Send once a connection or listener is
// closed. Conn.Reason tells why.
var ErrClosed = errors.New("transport: closed")

// Conn is one peer's datagram session. Send and Recv may be called from
// different goroutines; Close may be called from any goroutine, any number
// of times.
type Conn interface {
	// Send sends one datagram. It never blocks on the network: a datagram
	// the transport cannot queue is dropped (datagrams are unreliable) and
	// counted. Send does not retain p.
	Send(p []byte) error
	// Recv copies the next datagram into buf and returns its length. It
	// blocks until one arrives, ctx is done, or the connection closes
	// (ErrClosed); datagrams that arrived before the close come first. A
	// datagram longer than buf is dropped with an io.ErrShortBuffer
	// error.
	Recv(ctx context.Context, buf []byte) (int, error)
	// Close ends the session, telling the peer reason where the transport
	// can carry one (WebTransport and WebSocket close frames; over UDP the
	// driver sends the wire's Disconnect first). Datagrams sent before it
	// still go. A server's WebTransport session waits up to 1.5 s for the
	// peer to close first, sending its last datagram (the driver's
	// goodbye) again every 100 ms: a browser discards the datagrams it
	// has not read when a session closes under it.
	Close(reason string) error
	// Peer names the remote end for logs and configuration: its transport
	// and address, such as "udp:127.0.0.1:40512".
	Peer() string
	// Reason is why the connection closed ("" while open): the reason
	// given to Close or received from the peer, or the network error.
	Reason() string
}

// Listener accepts sessions from peers.
type Listener interface {
	// Accept returns the next new session, blocking until one arrives, ctx
	// is done, or the listener closes (ErrClosed).
	Accept(ctx context.Context) (Conn, error)
	// Addr is the address the listener is bound to (with the port chosen
	// when 0 was asked for), as HOST:PORT.
	Addr() string
	// Close stops accepting; sessions already accepted stay open.
	Close() error
}

// Forgeable reports whether anyone who can send datagrams to conn's
// local end can forge one from its peer's address: true for native UDP,
// whose source addresses are not checked; false for WebTransport (QUIC
// authenticates every packet), WebSocket (TCP's handshake proves the
// address, TLS authenticates) and in-process pipes. A session over a
// forgeable conn should be sealed (package seal).
func Forgeable(conn Conn) bool {
	_, ok := conn.(*udpConn)
	return ok
}
