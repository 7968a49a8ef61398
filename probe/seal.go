package probe

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// A seal vouches for a measurement to a third party that shares a key
// with the host that measured: an online study's lobby, whose
// participants' round trips are measured by probes on game server hosts
// it does not run (an Agones Fleet's), trusts the figure a page forwards
// only with the host's seal on it. The seal is an HMAC-SHA256 over the
// ticket, the round trip, the host as the lobby names it and the time
// of the measurement; it travels with the result in the Done Probe's
// Ticket (within wire.MaxProbeTicket) as "UNIXMILLIS.MAC" (MAC in
// unpadded base64url), and the page hands it on with the round trip and
// the host it measured.

// SealKey derives the key of seals from secret, a key the host and the
// lobby share (the lobby's completion code key): a seal is not
// anything else made with secret.
func SealKey(secret []byte) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte("lagkit probe seal v1"))
	return m.Sum(nil)
}

// Result is a measurement as a seal vouches for it.
type Result struct {
	Ticket string
	// Host is the probe's HOST:PORT as the lobby names it to pages.
	Host string
	RTT  time.Duration
	// At is when the host measured it (to the millisecond).
	At time.Time
}

func (r Result) mac(key []byte) []byte {
	m := hmac.New(sha256.New, key)
	fmt.Fprintf(m, "%s\n%d\n%s\n%d", r.Ticket, r.RTT.Microseconds(), r.Host, r.At.UnixMilli())
	return m.Sum(nil)
}

// Seal returns r's seal under key.
func Seal(key []byte, r Result) string {
	return strconv.FormatInt(r.At.UnixMilli(), 10) + "." + base64.RawURLEncoding.EncodeToString(r.mac(key))
}

// ErrSeal is a seal that does not vouch for the result it came with.
var ErrSeal = errors.New("probe: the seal does not match the ticket, round trip and host (not this host's measurement, or altered)")

// Open checks seal against the measurement of rtt for ticket by host
// under key and returns when it was made.
func Open(key []byte, ticket, host string, rtt time.Duration, seal string) (time.Time, error) {
	ms, mac, ok := strings.Cut(seal, ".")
	at, err := strconv.ParseInt(ms, 10, 64)
	if !ok || err != nil || len(seal) > 64 {
		return time.Time{}, fmt.Errorf("probe: seal %.64q: want UNIXMILLIS.MAC", seal)
	}
	if _, err := base64.RawURLEncoding.DecodeString(mac); err != nil {
		return time.Time{}, fmt.Errorf("probe: seal's MAC: %w", err)
	}
	// The seal must be the one Seal makes, byte for byte: one result
	// has one seal (a lobby refuses a seal handed on twice, and "+17…"
	// or another spelling of the MAC would be a second one).
	r := Result{Ticket: ticket, Host: host, RTT: rtt, At: time.UnixMilli(at)}
	if !hmac.Equal([]byte(seal), []byte(Seal(key, r))) {
		return time.Time{}, ErrSeal
	}
	return r.At, nil
}
