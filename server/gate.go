package server

import (
	"crypto/ecdh"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/binary"
	"fmt"
	"time"

	"github.com/lagkit/lagkit/token"
	"github.com/lagkit/lagkit/wire"
)

// Gate is the stateless front of the handshake: what a server answers a
// datagram from an address that has no session. It holds only keys and
// keeps no state between calls, so a driver can run it where datagrams
// arrive, before anything is allocated for their sender: a UDP listener
// answers Challenges from its reader and opens a route for an address
// only once its Connect proves the address (Admit), and a driver of
// connection-based transports screens a new connection's first datagrams
// the same way. The server core runs the same checks on every Connect it
// is handed (see connect), with the same keys, so a Connect the gate
// admitted is one the core takes.
//
// Gate is safe for concurrent use.
type Gate struct {
	cookieKey  []byte
	connectKey []byte
	sealKey    string // the server's public key, "" when not sealing
	address    string // what connect tokens must name, with connectKey
	// requireSeal refuses a Connect that asks for no sealing.
	requireSeal bool
}

// GateConfig configures a Gate. Its keys must be the ones every server
// core behind the gate has (Config.CookieKey, Config.ConnectKey,
// Config.SealKey).
type GateConfig struct {
	CookieKey  []byte
	ConnectKey []byte
	// Address is what connect tokens must name (Config.Address).
	Address string
	SealKey *ecdh.PrivateKey
	// RequireSeal refuses a Connect without a public key to seal the
	// session with: for native UDP, where anyone can forge a player's
	// source address, a gate should let no unsealed session start.
	RequireSeal bool
}

// NewGate returns a gate for cfg.
func NewGate(cfg GateConfig) (*Gate, error) {
	if len(cfg.CookieKey) == 0 {
		return nil, fmt.Errorf("server: gate: no cookie key")
	}
	if len(cfg.ConnectKey) != 0 && len(cfg.ConnectKey) != token.KeySize {
		return nil, fmt.Errorf("server: gate: connect key of %d bytes, want %d", len(cfg.ConnectKey), token.KeySize)
	}
	if cfg.RequireSeal && cfg.SealKey == nil {
		return nil, fmt.Errorf("server: gate: RequireSeal without a seal key")
	}
	g := &Gate{cookieKey: cfg.CookieKey, connectKey: cfg.ConnectKey, address: cfg.Address, requireSeal: cfg.RequireSeal}
	if cfg.SealKey != nil {
		g.sealKey = string(cfg.SealKey.PublicKey().Bytes())
	}
	return g, nil
}

// Verdict is what a Gate decided about a datagram.
type Verdict uint8

const (
	// Drop: send nothing, keep nothing (Screening.Refusal says why).
	Drop Verdict = iota
	// Reply: send Screening.Out back to the sender, keep nothing. A
	// Challenge, or a Reject no larger than the Connect it answers.
	Reply
	// Admit: a Connect that proves its sender receives at its address
	// (and, with a connect key, carries a valid token): hand it to a
	// server core, which gives it a session if it has a slot.
	Admit
)

// Refusals a Gate reports, as metric labels.
const (
	RefuseMalformed  = "malformed"   // not a well-formed datagram
	RefuseNotConnect = "not_connect" // not a Connect: nothing but a Connect starts a session
	RefuseVersion    = "version"     // a Connect of another protocol version (answered with a Reject when it fits)
	RefuseToken      = "token"       // a connect token missing, invalid or expired
	RefuseUnsealed   = "unsealed"    // a Connect asking for no sealing where sealing is required
)

// Screening is a Gate's answer.
type Screening struct {
	Verdict Verdict
	// Out is the datagram to send back (Reply): appended to the buffer
	// Screen was given.
	Out []byte
	// Refusal says why a datagram was dropped or rejected (a Refuse
	// constant), "" for a Challenge or an Admit.
	Refusal string
	// Claims are the connect token's claims (Admit, with a connect key):
	// the match it names, for a driver that routes by it.
	Claims token.Claims
	// Peer is the sender's Peer (ScreenFrom, for a Connect).
	Peer Peer
}

// Screen decides what to do with datagram data, which arrived at wall
// time at from an address with no session, whose Peer is from (see
// PeerOf). It appends any reply to out.
func (g *Gate) Screen(at time.Time, from Peer, data, out []byte) Screening {
	typ, err := wire.PeekType(data)
	if err != nil {
		return Screening{Refusal: RefuseMalformed}
	}
	if typ != wire.MsgConnect {
		return Screening{Refusal: RefuseNotConnect}
	}
	var m wire.Connect
	if err := wire.DecodeConnect(data, &m); err != nil {
		return Screening{Refusal: RefuseMalformed}
	}
	if m.Version != wire.Version {
		if b, ok := rejectFitting(out, versionReason(m.Version), len(data)); ok {
			return Screening{Verdict: Reply, Out: b, Refusal: RefuseVersion}
		}
		return Screening{Refusal: RefuseVersion}
	}
	if g.requireSeal && m.Key == "" {
		if b, ok := rejectFitting(out, "sealed sessions only: update the client", len(data)); ok {
			return Screening{Verdict: Reply, Out: b, Refusal: RefuseUnsealed}
		}
		return Screening{Refusal: RefuseUnsealed}
	}
	addr := g.addressToken(from, m.Nonce)
	proven, sealed := m.Token == addr, m.Token
	var claims token.Claims
	if len(g.connectKey) != 0 {
		proven = len(sealed) >= addressTokenLen && subtle.ConstantTimeCompare([]byte(sealed[:addressTokenLen]), []byte(addr)) == 1
		if proven {
			sealed = sealed[addressTokenLen:]
		}
		c, err := token.Open(g.connectKey, []byte(sealed), at)
		if err == nil && g.address != "" && c.Address != g.address {
			err = token.ErrWrongAddress
		}
		if err != nil {
			return Screening{Refusal: RefuseToken}
		}
		claims = c
	}
	if !proven {
		return Screening{Verdict: Reply, Out: g.challenge(out, m.Nonce, addr)}
	}
	return Screening{Verdict: Admit, Claims: claims}
}

// ScreenFrom is Screen for a datagram from the address named name (see
// PeerOf): it tells what is not a Connect from the first byte, before it
// spends a keyed hash on the address, so junk costs a listener little,
// and it returns the address's Peer in Screening.Peer.
func (g *Gate) ScreenFrom(at time.Time, name string, data, out []byte) Screening {
	typ, err := wire.PeekType(data)
	switch {
	case err != nil:
		return Screening{Refusal: RefuseMalformed}
	case typ != wire.MsgConnect:
		return Screening{Refusal: RefuseNotConnect}
	}
	peer := g.PeerOf(name)
	sc := g.Screen(at, peer, data, out)
	sc.Peer = peer
	return sc
}

// Full appends to out the Reject that tells a client whose Connect of
// size bytes no match had a seat for that the server is full, if it is
// no larger than that Connect (before a session exists a server sends
// nothing larger than what it received); ok is false when it is not.
func (g *Gate) Full(out []byte, size int) (b []byte, ok bool) {
	return rejectFitting(out, "server full", size)
}

// PeerOf returns the Peer a driver gives the address named name (a
// transport's peer name, such as "udp:127.0.0.1:40512"): a keyed hash,
// with its top bit set so that it never equals a driver's own small
// numbers, the same for every datagram from that address. Address
// tokens are keyed by Peer, so the Peer of an address must not change
// between its Challenge and its proving Connect.
func (g *Gate) PeerOf(name string) Peer {
	mac := hmac.New(sha256.New, g.cookieKey)
	mac.Write([]byte("peer "))
	mac.Write([]byte(name))
	var sum [sha256.Size]byte
	return Peer(binary.LittleEndian.Uint64(mac.Sum(sum[:0]))) | 1<<63
}

// addressToken returns the token a client at peer must echo in its
// Connect of session nonce: a keyed hash, so that only a client that
// received the Challenge at that address knows it.
func (g *Gate) addressToken(peer Peer, nonce uint64) string {
	mac := hmac.New(sha256.New, g.cookieKey)
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:8], uint64(peer))
	binary.LittleEndian.PutUint64(b[8:], nonce)
	mac.Write(b[:])
	var sum [sha256.Size]byte
	return string(mac.Sum(sum[:0])[:addressTokenLen])
}

// challenge appends the Challenge for nonce with address token addr,
// carrying the server's public key when it seals.
func (g *Gate) challenge(dst []byte, nonce uint64, addr string) []byte {
	b, err := wire.AppendChallenge(dst, &wire.Challenge{Nonce: nonce, Token: addr, Key: g.sealKey})
	if err != nil {
		panic(err) // the token and key are ours, within the wire's limits
	}
	return b
}

// versionReason is the Reject's reason for a Connect of version v.
func versionReason(v uint16) string {
	return fmt.Sprintf("protocol version %d not supported (server speaks %d)", v, wire.Version)
}

// rejectFitting appends a Reject with reason to dst if it is no larger
// than size, the Connect it answers: before a session exists a server
// sends nothing larger than what it received.
func rejectFitting(dst []byte, reason string, size int) ([]byte, bool) {
	start := len(dst)
	b, err := wire.AppendReject(dst, &wire.Reject{Reason: reason})
	if err != nil || len(b)-start > size {
		return dst, false
	}
	return b, true
}
