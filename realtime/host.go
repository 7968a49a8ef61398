package realtime

import (
	"context"
	"crypto/ecdh"
	crand "crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"net/netip"
	"runtime/debug"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/lagkit/lagkit/record"
	"github.com/lagkit/lagkit/seal"
	"github.com/lagkit/lagkit/token"
	"github.com/lagkit/lagkit/transport"
)

// Host runs many matches in one process, each on its own goroutine, and
// hands each connection its listeners accept to a match: the one its
// connect token names, or without tokens the oldest with a free seat.
type Host struct {
	log *slog.Logger
	met *Metrics

	mu      sync.Mutex
	matches []*Match
	seq     int
	closed  bool
	// tokens, if set, is the connect-token key every match started
	// after RequireTokens checks, and tokenAddr the address tokens name.
	tokens    []byte
	tokenAddr string
	// sink, if set, gets what every match started after SetSink does.
	sink record.Sink
	// spectateDelay is the delay on what spectators of every match
	// started after SetSpectateDelay see.
	spectateDelay time.Duration
	// cookieKey keys the address tokens of every match's handshake and
	// of the host's gates; sealKey is the host's key for sealed
	// sessions (package seal). gates are made from them and the tokens'
	// key when first needed.
	cookieKey []byte
	sealKey   *ecdh.PrivateKey
	gates     *gates
	limits    HandshakeLimits
	pending   map[netip.Prefix]int // connections in their handshake, by source
	refusals  *sampler
}

// RequireTokens makes every match started after it admit only clients
// with a connect token (package token) sealed under key (token.KeySize
// bytes) for that match at address, the UDP address clients reach.
// The host's own bots get theirs from the match. A connection goes to
// the match its token names (see Join), so one listener serves them all.
func (h *Host) RequireTokens(key []byte, address string) error {
	if len(key) != token.KeySize {
		return fmt.Errorf("realtime: connect key of %d bytes, want %d", len(key), token.KeySize)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.tokens, h.tokenAddr = key, address
	h.gates = nil // made again with the key
	return nil
}

// IssueToken returns a connect token for player in the match id, valid
// for ttl, or an error if the host requires no tokens or has no such
// match. For a match that is ending it returns ErrEnded: such a token
// would connect to nothing, and its holder wait out its connect timeout.
func (h *Host) IssueToken(id, player string, ttl time.Duration) ([]byte, error) {
	h.mu.Lock()
	key, addr := h.tokens, h.tokenAddr
	h.mu.Unlock()
	if key == nil {
		return nil, errors.New("realtime: this host requires no connect tokens")
	}
	m, ok := h.Match(id)
	if !ok {
		return nil, fmt.Errorf("realtime: no match %q", id)
	}
	if m.ended.Load() {
		return nil, ErrEnded
	}
	return token.Seal(key, token.Claims{Match: id, Player: player, Address: addr, Expires: time.Now().Add(ttl)})
}

// NewHost returns a host logging to log (nil: slog's default) and
// counting into met (nil: metrics on a private registry).
func NewHost(log *slog.Logger, met *Metrics) *Host {
	if log == nil {
		log = slog.Default()
	}
	if met == nil {
		met = NewMetrics(prometheus.NewRegistry())
	}
	cookie := make([]byte, 32)
	crand.Read(cookie)
	key, err := seal.NewKey()
	if err != nil {
		panic(fmt.Sprintf("realtime: no key for sealed sessions: %v", err)) // the system's random source failed
	}
	return &Host{log: log, met: met, cookieKey: cookie, sealKey: key, limits: DefaultHandshakeLimits,
		pending: map[netip.Prefix]int{}, refusals: newSampler(log, 10*time.Second)}
}

// ErrShutdown is returned by Start once Shutdown has begun.
var ErrShutdown = errors.New("realtime: host is shutting down")

// maxMatches bounds the matches one host runs at once.
const maxMatches = 256

// Start starts a match for cfg.
func (h *Host) Start(cfg MatchConfig) (*Match, error) {
	m, sink, err := h.start(cfg)
	if err != nil {
		return nil, err
	}
	if sink != nil {
		if err := m.SetSink(sink); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// start starts a match for cfg and returns it with the host's sink.
func (h *Host) start(cfg MatchConfig) (*Match, record.Sink, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil, nil, ErrShutdown
	}
	if len(h.matches) >= maxMatches {
		return nil, nil, fmt.Errorf("realtime: %d matches running, at most %d", len(h.matches), maxMatches)
	}
	h.seq++
	id := strconv.Itoa(h.seq)
	m, err := newMatch(id, cfg, h.log, h.met, h.keys(), h.tokenAddr)
	if err != nil {
		return nil, nil, err
	}
	m.round = h.seq - 1
	h.matches = append(h.matches, m)
	go func() {
		<-m.Done()
		h.mu.Lock()
		h.matches = slices.DeleteFunc(h.matches, func(x *Match) bool { return x == m })
		h.mu.Unlock()
	}()
	return m, h.sink, nil
}

// SetSink makes every match started after it put what happens in it
// into sink (see Match.SetSink), each match as one round numbered from 0
// in the order the host started them. The matches' puts are serialised,
// so sink sees one goroutine at a time.
func (h *Host) SetSink(sink record.Sink) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.sink = record.Locked(sink)
}

// Matches returns the running matches, oldest first.
func (h *Host) Matches() []*Match {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.matches)
}

// Match returns the running match id.
func (h *Host) Match(id string) (*Match, bool) {
	for _, m := range h.Matches() {
		if m.ID() == id {
			return m, true
		}
	}
	return nil, false
}

// Serve accepts sessions from l and joins them to matches (see Join)
// until ctx is done or l closes. A UDP listener made with the host's
// UDPUnrouted opens no session by itself, and Serve on it only waits.
func (h *Host) Serve(ctx context.Context, l transport.Listener) error {
	for {
		conn, err := l.Accept(ctx)
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, transport.ErrClosed) {
				return nil
			}
			return err
		}
		h.Join(conn)
	}
}

// Shutdown stops starting matches and ends every match, telling its
// players reason; it waits for the matches to close their connections
// or for ctx.
func (h *Host) Shutdown(ctx context.Context, reason string) error {
	h.mu.Lock()
	h.closed = true
	h.mu.Unlock()
	var first error
	for _, m := range h.Matches() {
		if err := m.End(ctx, reason); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// guard runs the match goroutine, and turns a panic in it (in the server
// core, or in a command run on it) into the end of this match alone: one
// process hosts many matches, and one broken match must not end the
// others.
func (m *Match) guard() {
	defer m.recoverPanic("match", func() {
		select {
		case <-m.done:
			return // it had already ended
		default:
		}
		m.abandon("server error")
	})
	m.run()
}

// recoverPanic, deferred by each goroutine of a match (the match's own,
// a connection's reader, a server-side bot), turns a panic there into an
// error logged with its stack and counted in Metrics.Panics, then runs
// then: the panic ends what it broke, never the process.
func (m *Match) recoverPanic(what string, then func()) {
	v := recover()
	if v == nil {
		return
	}
	m.met.parent.Panics.Inc()
	m.log.Error(what+" panic", "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
	then()
}

// abandon ends a match whose server core can no longer be trusted: it
// closes every connection with reason without asking the core anything
// (end, the orderly way, has the core tell each player), then finishes
// as end does.
func (m *Match) abandon(reason string) {
	m.ended.Store(true)
	for _, p := range m.peers {
		m.remove(p, reason)
	}
	m.log.Info("match end", "reason", reason, "uptime_s", time.Since(m.start).Seconds())
	m.reason = reason
	m.putRound(time.Now())
	m.met.remove() // before Done: a match seen ended has no series left
	close(m.done)
	m.wg.Wait()
}
