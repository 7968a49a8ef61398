// Package wire is lagkit's versioned, bounded network protocol: the
// messages a client and server exchange, their bit-packed encodings, and
// snapshots quantised and delta encoded against the client's last
// acknowledged snapshot. Every decoder rejects malformed input with an
// error and never panics; no datagram exceeds MaxDatagram bytes.
package wire
