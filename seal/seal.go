// Package seal authenticates and encrypts the datagrams of a session
// after its handshake, so that nobody who can forge a player's source
// address can act as that player: a datagram that does not open under
// the session's key is dropped before it touches the session.
//
// Over native UDP an attacker on the same network can send datagrams
// with any source address. The handshake's address token (wire.Challenge)
// proves that a client receives at its address, but once the session is
// up, nothing in a plain datagram says who sent it. netcode.io answers
// this by encrypting and signing every packet of a session under keys its
// connect token carries; lagkit derives the keys in the handshake instead,
// so servers without connect tokens are covered too:
//
//   - the client makes an ephemeral X25519 key pair and sends its public
//     key in its Connect (wire.Connect.Key);
//   - the server answers with its own public key in the Challenge
//     (wire.Challenge.Key); the server's pair lives as long as the
//     process, so the Challenge stays stateless;
//   - both sides take the X25519 shared secret through HKDF-SHA256,
//     salted with both public keys and bound to the session's nonce,
//     into one key for each direction.
//
// The proving Connect travels in the clear (it carries nothing secret);
// from the server's Accept on, every datagram of the session is sealed:
// the wire.MsgSealed byte, an 8-byte sequence number, the inner datagram
// encrypted with ChaCha20-Poly1305 (RFC 8439) and its 16-byte tag
// (SealOverhead bytes in all). The sequence number is the AEAD's nonce
// (each direction has its own key, so a nonce never repeats under a key)
// and the receiver keeps a window of the last 128 it opened, so a copy
// of a sealed datagram replayed by anyone opens once at most.
//
// The handshake authenticates neither side's key, so an attacker who sits
// on the path between the two (and can rewrite the Challenge) is not
// kept out; one who can only send forged datagrams, the threat of native
// UDP, is. Browser sessions run over WebTransport (QUIC) or WebSocket
// (TCP, usually TLS), where the transport already authenticates every
// packet, and do not seal.
//
// Sealing allocates nothing per datagram: a Session is made once per
// handshake and seals into, or opens into, buffers the caller keeps.
package seal

import (
	"crypto/cipher"
	"crypto/ecdh"
	"crypto/hkdf"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"

	"golang.org/x/crypto/chacha20poly1305"
)

// KeySize is the size of an X25519 public key, as Connect and Challenge
// carry it.
const KeySize = 32

// headerSize is the sealed datagram's type byte and sequence number.
const headerSize = 1 + 8

// Overhead is how many bytes sealing adds to a datagram.
const Overhead = headerSize + chacha20poly1305.Overhead

// Type is the first byte of a sealed datagram (wire.MsgSealed).
const Type = 10

// window is how many sequence numbers below the newest a receiver still
// accepts, once each.
const window = 128

// ErrOpen is returned for a datagram that is not a sealed datagram of
// this session: forged, corrupted, replayed or too old.
var ErrOpen = errors.New("seal: datagram does not open under the session's key")

// NewKey returns a new X25519 private key from the system's random
// source. Drivers call it; the cores never do, to stay deterministic.
func NewKey() (*ecdh.PrivateKey, error) {
	return ecdh.X25519().GenerateKey(nil)
}

// Side says which end of a session a Session seals for.
type Side uint8

const (
	// Client seals what a client sends and opens what its server sends.
	Client Side = iota
	// Server seals what a server sends and opens what its client sends.
	Server
)

// Session seals one session's outgoing datagrams and opens its incoming
// ones. It is not safe for concurrent use.
type Session struct {
	tx, rx  cipher.AEAD
	txSeq   uint64
	rxMax   uint64 // newest sequence number opened; 0 before any
	rxSeen  [window / 64]uint64
	nonce   [chacha20poly1305.NonceSize]byte
	forgeds uint64
}

// New derives the session of nonce between a client whose public key is
// clientPub and a server whose public key is serverPub, for side, from
// own (the private key of that side) and the other side's public key. It
// fails for a key that is not a valid X25519 public key, or whose shared
// secret is all zeros (a low-order point).
func New(side Side, own *ecdh.PrivateKey, clientPub, serverPub []byte, nonce uint64) (*Session, error) {
	peer := serverPub
	if side == Server {
		peer = clientPub
	}
	pub, err := ecdh.X25519().NewPublicKey(peer)
	if err != nil {
		return nil, fmt.Errorf("seal: peer key: %w", err)
	}
	shared, err := own.ECDH(pub) // refuses an all-zero result
	if err != nil {
		return nil, fmt.Errorf("seal: %w", err)
	}
	salt := make([]byte, 0, 2*KeySize)
	salt = append(append(salt, clientPub...), serverPub...)
	var info [len("lagkit session ") + 8]byte
	copy(info[:], "lagkit session ")
	binary.LittleEndian.PutUint64(info[len("lagkit session "):], nonce)
	keys, err := hkdf.Key(sha256.New, shared, salt, string(info[:]), 2*chacha20poly1305.KeySize)
	if err != nil {
		return nil, fmt.Errorf("seal: %w", err)
	}
	up, err := chacha20poly1305.New(keys[:chacha20poly1305.KeySize])
	if err != nil {
		return nil, err
	}
	down, err := chacha20poly1305.New(keys[chacha20poly1305.KeySize:])
	if err != nil {
		return nil, err
	}
	s := &Session{tx: up, rx: down}
	if side == Server {
		s.tx, s.rx = down, up
	}
	return s, nil
}

// Seal appends the sealed form of datagram p to dst and returns it.
func (s *Session) Seal(dst, p []byte) []byte {
	s.txSeq++
	start := len(dst)
	dst = append(dst, Type)
	dst = binary.LittleEndian.AppendUint64(dst, s.txSeq)
	binary.LittleEndian.PutUint64(s.nonce[4:], s.txSeq)
	return s.tx.Seal(dst, s.nonce[:], p, dst[start:])
}

// Open appends the datagram sealed in b to dst and returns it, or returns
// ErrOpen when b is not a datagram of this session sealed by the other
// side, or one already opened, or one older than the last 128. A failed
// Open changes nothing but Forged.
func (s *Session) Open(dst, b []byte) ([]byte, error) {
	if len(b) < Overhead || b[0] != Type {
		s.forgeds++
		return dst, ErrOpen
	}
	seq := binary.LittleEndian.Uint64(b[1:headerSize])
	if seq == 0 || !s.fresh(seq) {
		s.forgeds++
		return dst, ErrOpen
	}
	binary.LittleEndian.PutUint64(s.nonce[4:], seq)
	out, err := s.rx.Open(dst, s.nonce[:], b[headerSize:], b[:headerSize])
	if err != nil {
		s.forgeds++
		return dst, ErrOpen
	}
	s.mark(seq)
	return out, nil
}

// Forged counts the datagrams Open refused.
func (s *Session) Forged() uint64 { return s.forgeds }

// fresh reports whether seq is newer than every sequence number opened,
// or within the window and not yet opened.
func (s *Session) fresh(seq uint64) bool {
	if seq > s.rxMax {
		return true
	}
	d := s.rxMax - seq
	if d >= window {
		return false
	}
	return s.rxSeen[(seq%window)/64]&(1<<(seq%64)) == 0
}

// mark records seq as opened, sliding the window past older numbers.
func (s *Session) mark(seq uint64) {
	if seq > s.rxMax {
		if seq-s.rxMax >= window {
			s.rxSeen = [window / 64]uint64{}
		} else {
			for n := s.rxMax + 1; n < seq; n++ {
				s.rxSeen[(n%window)/64] &^= 1 << (n % 64)
			}
		}
		s.rxMax = seq
	}
	s.rxSeen[(seq%window)/64] |= 1 << (seq % 64)
}

// Is reports whether datagram b has the form of a sealed datagram (its
// first byte, and long enough); Open decides whether it is one.
func Is(b []byte) bool { return len(b) >= Overhead && b[0] == Type }
