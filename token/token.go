// Package token seals and opens connect tokens in the manner of
// netcode.io: a matchmaker (or `lagkit serve`'s HTTP side) that shares a
// 32-byte key with a game server issues a player a short-lived token
// naming the match, the player and the server address; the client puts
// it in its Connect (wire.Connect.Token, after the address token of the
// server's Challenge), and the server admits only a Connect whose token
// opens under the key, is unexpired, names this match and this address,
// and has not been used before.
//
// A token is XChaCha20-Poly1305 (golang.org/x/crypto/chacha20poly1305):
// a random 24-byte nonce, then the sealed claims and the 16-byte tag. No
// additional data is bound: the claims carry what the server checks.
// Anything but the holder of the key can neither read nor forge one, and
// a flipped bit fails authentication (ErrInvalid) in the AEAD's constant
// time; the checks after that (expiry, match, address) compare claims
// the attacker cannot choose.
//
// Sans-IO: Open takes the wall time as an argument and reads no clock.
// The server core (server.Config.Epoch) keeps its own clock, a duration
// since it started; its driver supplies the wall time of that start once,
// as configuration, and the core checks a token's expiry against
// Epoch+now. The core thus stays deterministic under a simulated clock.
package token

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"golang.org/x/crypto/chacha20poly1305"
)

// KeySize is the size of a key.
const KeySize = chacha20poly1305.KeySize

// Overhead is what sealing adds to the claims: nonce and tag.
const Overhead = chacha20poly1305.NonceSizeX + chacha20poly1305.Overhead

// MaxSize is the largest sealed token: wire.MaxTokenLen (127) less the
// 16-byte address token that precedes it in a proven Connect.
const MaxSize = 111

// MaxStrings is the room the match id, player name and server address
// share in a token, in bytes: MaxSize less Overhead, the fixed fields
// (token id 8, expiry 4, seat 1) and one length byte for each string.
const MaxStrings = MaxSize - Overhead - 13 - 3

// Claims are what a token asserts.
type Claims struct {
	ID      uint64    // token id, for replay protection (random if 0 at Seal)
	Match   string    // the match the holder may join
	Player  string    // player name
	Seat    uint8     // player seat (matchmaker-defined)
	Expires time.Time // absolute; resolution one second
	Address string    // the server address ("host:port") the token is for
}

// Errors Open and Check return. Every failure of authentication (a wrong
// key, a tampered or truncated token) is ErrInvalid.
var (
	ErrInvalid      = errors.New("token: invalid (tampered, truncated or another key)")
	ErrExpired      = errors.New("token: expired")
	ErrWrongMatch   = errors.New("token: for another match")
	ErrWrongAddress = errors.New("token: for another server address")
)

// NewKey returns a random key.
func NewKey() ([]byte, error) {
	k := make([]byte, KeySize)
	if _, err := rand.Read(k); err != nil {
		return nil, err
	}
	return k, nil
}

// Seal returns c sealed under key. A zero c.ID gets a random one.
func Seal(key []byte, c Claims) ([]byte, error) {
	aead, err := chacha20poly1305.NewX(key)
	if err != nil {
		return nil, fmt.Errorf("token: %w", err)
	}
	if n := len(c.Match) + len(c.Player) + len(c.Address); n > MaxStrings {
		return nil, fmt.Errorf("token: match, player and address take %d bytes, more than %d", n, MaxStrings)
	}
	exp := c.Expires.Unix()
	if exp <= 0 || exp > 1<<32-1 {
		return nil, fmt.Errorf("token: expiry %v out of range", c.Expires)
	}
	if c.ID == 0 {
		var b [8]byte
		if _, err := rand.Read(b[:]); err != nil {
			return nil, err
		}
		c.ID = binary.LittleEndian.Uint64(b[:]) | 1
	}
	p := make([]byte, 0, MaxSize-Overhead)
	p = binary.LittleEndian.AppendUint64(p, c.ID)
	p = binary.LittleEndian.AppendUint32(p, uint32(exp))
	p = append(p, c.Seat)
	for _, s := range []string{c.Match, c.Player, c.Address} {
		p = append(p, byte(len(s)))
		p = append(p, s...)
	}
	out := make([]byte, chacha20poly1305.NonceSizeX, chacha20poly1305.NonceSizeX+len(p)+chacha20poly1305.Overhead)
	if _, err := rand.Read(out); err != nil {
		return nil, err
	}
	return aead.Seal(out, out, p, nil), nil
}

// Open authenticates sealed under key and returns its claims, or
// ErrInvalid, or ErrExpired (with the claims) if it expired at or before
// now.
func Open(key, sealed []byte, now time.Time) (Claims, error) {
	aead, err := chacha20poly1305.NewX(key)
	if err != nil {
		return Claims{}, fmt.Errorf("token: %w", err)
	}
	if len(sealed) < Overhead || len(sealed) > MaxSize {
		return Claims{}, ErrInvalid
	}
	n := chacha20poly1305.NonceSizeX
	p, err := aead.Open(nil, sealed[:n], sealed[n:], nil)
	if err != nil {
		return Claims{}, ErrInvalid
	}
	if len(p) < 13 {
		return Claims{}, ErrInvalid
	}
	c := Claims{
		ID:      binary.LittleEndian.Uint64(p),
		Expires: time.Unix(int64(binary.LittleEndian.Uint32(p[8:])), 0),
		Seat:    p[12],
	}
	p = p[13:]
	for _, s := range []*string{&c.Match, &c.Player, &c.Address} {
		if len(p) < 1 || len(p) < 1+int(p[0]) {
			return Claims{}, ErrInvalid
		}
		*s = string(p[1 : 1+int(p[0])])
		p = p[1+int(p[0]):]
	}
	if len(p) != 0 {
		return Claims{}, ErrInvalid
	}
	if !now.Before(c.Expires) {
		return c, ErrExpired
	}
	return c, nil
}

// Check returns ErrWrongMatch or ErrWrongAddress if c is not for match at
// address, else nil.
func (c Claims) Check(match, address string) error {
	if c.Match != match {
		return ErrWrongMatch
	}
	if c.Address != address {
		return ErrWrongAddress
	}
	return nil
}
