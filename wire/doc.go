// Package wire is lagkit's versioned, bounded network protocol: the
// messages a client and server exchange, their bit-packed encodings, and
// snapshots quantised and delta encoded against the client's last
// acknowledged snapshot. Every decoder rejects malformed input with an
// error and never panics; no datagram exceeds MaxDatagram bytes.
//
// A datagram is one message: its MsgType byte, then the message's fields
// as a bit stream, least significant bit first, padded with zero bits to a
// whole byte. Decoders reject anything after the padding. Connect carries
// the protocol Version in the two bytes after the type byte in every
// version, so a server can reject a client of another version with a
// reason; the other messages are those of this Version.
//
// The handshake: the client sends a Connect padded to ConnectSize with a
// session Nonce of its choosing; the server answers with a Challenge
// carrying an address token; the client repeats its Connect with that
// Token and the server answers with Accept (or Reject). Until then the
// server keeps nothing for the address and sends it nothing larger than
// what it received. A connect token, where a server requires one,
// travels in the token field after the address token. A Connect with a
// new Nonce from an address that has a session starts a new session; a
// repeat of the same Connect repeats the Accept. The Connect may carry
// the client's X25519 public key (Key) and the Challenge the server's:
// when both do, every datagram of the session after the handshake, from
// the Accept on, is a MsgSealed datagram (package seal) that only the
// session's keys open.
// A Disconnect carries the Nonce of the session it ends, so that the
// goodbye of an earlier session at the same address ends nothing.
//
// Each message has an AppendX function, which appends its encoding to a
// buffer and checks every field against the limits (MaxNameLen, MaxCoord,
// ...), and a DecodeX function, which checks the same limits and reuses
// the slices of the message it decodes into. Game events (HitEvent,
// ConfirmEvent, VerdictEvent, KillEvent, the match events,
// ProjectileEvent and ExplosionEvent, and the page's NameEvent,
// PlaceEvent and ServerEvent) travel inside snapshots as the Data
// of an Event of their kind (EventHit ...), and have AppendXEvent and
// DecodeXEvent functions that work the same way.
package wire
