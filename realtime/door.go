package realtime

import (
	"context"
	"crypto/ecdh"
	"fmt"
	"log/slog"
	"net/netip"
	"strings"
	"sync"
	"time"

	"github.com/lagkit/lagkit/server"
	"github.com/lagkit/lagkit/token"
	"github.com/lagkit/lagkit/transport"
	"github.com/lagkit/lagkit/wire"
)

// The host's front door: what arrives from an address with no session
// is screened by a server.Gate, which keeps no state, before any match
// sees it. Over UDP the listener opens no session for an address until
// its Connect proves the address (UDPUnrouted), so spoofed source
// addresses hold no place anywhere. A WebTransport or WebSocket
// connection (whose address TLS and TCP have proved) must finish the
// handshake within HandshakeLimits.Wait, and one source may have only
// HandshakeLimits.PerSource connections in their handshake at once.

// HandshakeLimits bound the connections a host holds before their
// handshake ends.
type HandshakeLimits struct {
	// Wait is how long a new connection may take to send a Connect that
	// proves its address (and carries a valid connect token, when the
	// host requires them); it is closed after that.
	Wait time.Duration
	// PerSource is how many connections from one source may be in their
	// handshake at once; more are closed at once.
	PerSource int
	// IPv4Prefix and IPv6Prefix say what one source is: addresses that
	// share this many leading bits (32 and 64 by default: one IPv4
	// address, one IPv6 subnet; 24 counts a whole IPv4 /24 as one).
	IPv4Prefix, IPv6Prefix int
	// LimitLoopback applies PerSource to loopback sources too. They are
	// exempt by default: a process on the server's own machine (a load
	// test's 64 bots connecting at once) is not what the limit keeps out.
	LimitLoopback bool
}

// DefaultHandshakeLimits are a host's limits until SetHandshakeLimits.
// A handshake takes one round trip, so even a lab of people behind one
// address seldom has more than a few open at once.
var DefaultHandshakeLimits = HandshakeLimits{Wait: 2 * time.Second, PerSource: 8, IPv4Prefix: 32, IPv6Prefix: 64}

// SetHandshakeLimits replaces the host's handshake limits; it refuses
// values out of range.
func (h *Host) SetHandshakeLimits(l HandshakeLimits) error {
	switch {
	case l.Wait < 100*time.Millisecond || l.Wait > time.Minute:
		return fmt.Errorf("realtime: handshake wait %v, want 100ms to 1m", l.Wait)
	case l.PerSource < 1 || l.PerSource > 1024:
		return fmt.Errorf("realtime: %d handshakes per source, want 1 to 1024", l.PerSource)
	case l.IPv4Prefix < 8 || l.IPv4Prefix > 32:
		return fmt.Errorf("realtime: IPv4 source prefix /%d, want /8 to /32", l.IPv4Prefix)
	case l.IPv6Prefix < 16 || l.IPv6Prefix > 128:
		return fmt.Errorf("realtime: IPv6 source prefix /%d, want /16 to /128", l.IPv6Prefix)
	}
	h.mu.Lock()
	h.limits = l
	h.mu.Unlock()
	return nil
}

// matchKeys are the keys a host gives each match's server core, and
// the delay on what its spectators see (Host.SetSpectateDelay).
type matchKeys struct {
	cookie, connect []byte
	seal            *ecdh.PrivateKey
	spectateDelay   time.Duration
}

// keys returns the keys for a new match; called with h.mu held.
func (h *Host) keys() matchKeys {
	return matchKeys{cookie: h.cookieKey, connect: h.tokens, seal: h.sealKey, spectateDelay: h.spectateDelay}
}

// gates are a host's two gates: for native UDP, where a session must be
// sealed, and for connections whose transport authenticates packets.
type gates struct{ udp, conn *server.Gate }

// gate returns the host's gates, made on first use after RequireTokens.
func (h *Host) gate() (*gates, HandshakeLimits) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.gates == nil {
		cfg := server.GateConfig{CookieKey: h.cookieKey, ConnectKey: h.tokens, Address: h.tokenAddr, SealKey: h.sealKey}
		conn, err := server.NewGate(cfg)
		if err != nil {
			panic(err) // the host's own keys, checked when set
		}
		cfg.RequireSeal = true
		udp, err := server.NewGate(cfg)
		if err != nil {
			panic(err)
		}
		h.gates = &gates{udp: udp, conn: conn}
	}
	return h.gates, h.limits
}

// Handshake refusals counted in Metrics.Handshakes, beside the gate's
// (server.RefuseMalformed ...).
const (
	RefuseTimeout   = "timeout"    // no proving Connect within HandshakeLimits.Wait
	RefusePerSource = "per_source" // the source had HandshakeLimits.PerSource handshakes open
	RefuseFull      = "full"       // no match had a seat, or the listener its most sessions
	RefuseNoMatch   = "no_match"   // the connect token names a match this host does not run
)

// UDPUnrouted is a UDP listener's UDPOptions.Unrouted for a host: it
// answers Connects with Challenges from the listener's socket, keeping
// nothing, and routes the address to a match only once its Connect
// proves it receives there, carries a key to seal the session with, and
// (when the host requires them) a valid connect token.
func (h *Host) UDPUnrouted(l *transport.UDPListener, from netip.AddrPort, b []byte) {
	g, _ := h.gate()
	var out [wire.ConnectSize]byte
	// Not a handshake (commands or goodbyes of a session that ended, or
	// never was; garbage) is dropped on its first byte.
	sc := g.udp.ScreenFrom(time.Now(), "udp:"+from.String(), b, out[:0])
	switch sc.Verdict {
	case server.Reply:
		_ = l.Reply(from, sc.Out)
		if sc.Refusal != "" {
			h.refuse("udp", sc.Refusal, from)
		} else {
			h.met.Handshakes.WithLabelValues("udp", "challenged").Inc()
		}
	case server.Drop:
		h.refuse("udp", sc.Refusal, from)
	case server.Admit:
		conn, err := l.Route(from)
		if err != nil {
			h.refuse("udp", RefuseFull, from)
			return
		}
		first := append([]byte(nil), b...)
		go h.admit("udp", conn, sc.Peer, first, sc.Claims)
	}
}

// Join screens conn's handshake at the host's front door and gives it
// to a match once its Connect proves its address: with connect tokens,
// the match its token names, else the oldest with a free seat. It
// returns at once; conn is closed if it does not finish its handshake
// within HandshakeLimits.Wait, if its source has too many handshakes
// open, or if no match takes it.
func (h *Host) Join(conn transport.Conn) {
	go h.screen(conn)
}

// screen runs Join's handshake on its own goroutine.
func (h *Host) screen(conn transport.Conn) {
	g, lim := h.gate()
	kind, src := sourceOf(conn.Peer(), lim)
	if !lim.LimitLoopback && src.Addr().IsLoopback() {
		src = netip.PrefixFrom(src.Addr(), src.Addr().BitLen()) // counted, never refused
		lim.PerSource = int(^uint(0) >> 1)
	}
	if !h.enter(src, lim.PerSource) {
		h.refuse(kind, RefusePerSource, src.Addr())
		_ = conn.Close("too many handshakes from your address")
		return
	}
	defer h.leave(src)
	ctx, cancel := context.WithTimeout(context.Background(), lim.Wait)
	defer cancel()
	gate := g.conn
	if transport.Forgeable(conn) {
		gate = g.udp // a UDP listener without UDPUnrouted: sessions sealed all the same
	}
	peer := gate.PeerOf(conn.Peer())
	buf := make([]byte, transport.MaxDatagram)
	out := make([]byte, 0, wire.ConnectSize)
	for {
		n, err := conn.Recv(ctx, buf)
		if err != nil {
			if ctx.Err() != nil {
				h.refuse(kind, RefuseTimeout, src.Addr())
				_ = conn.Close("no handshake within " + lim.Wait.String())
			}
			return
		}
		sc := gate.Screen(time.Now(), peer, buf[:n], out[:0])
		switch sc.Verdict {
		case server.Reply:
			_ = conn.Send(sc.Out)
			if sc.Refusal != "" {
				h.refuse(kind, sc.Refusal, src.Addr())
				_ = conn.Close(sc.Refusal)
				return
			}
			h.met.Handshakes.WithLabelValues(kind, "challenged").Inc()
		case server.Drop:
			h.refuse(kind, sc.Refusal, src.Addr())
			_ = conn.Close("handshake refused: " + sc.Refusal)
			return
		case server.Admit:
			h.admit(kind, conn, peer, append([]byte(nil), buf[:n]...), sc.Claims)
			return
		}
	}
}

// admit hands conn, whose Connect first the gate admitted, to a match
// as peer: the match its connect token names, or the oldest with a free
// seat. It closes conn when none takes it.
func (h *Host) admit(kind string, conn transport.Conn, peer server.Peer, first []byte, claims token.Claims) {
	h.mu.Lock()
	tokens := h.tokens != nil
	h.mu.Unlock()
	if tokens {
		m, ok := h.Match(claims.Match)
		if !ok {
			h.refuse(kind, RefuseNoMatch, addrOf(conn.Peer()))
			_ = conn.Close(fmt.Sprintf("connect token for match %q, which this server does not run", claims.Match))
			return
		}
		if err := m.addFirst(conn, peer, first); err != nil {
			h.refuse(kind, RefuseFull, addrOf(conn.Peer()))
			_ = conn.Close("match full")
			return
		}
		h.met.Handshakes.WithLabelValues(kind, "admitted").Inc()
		return
	}
	for _, m := range h.Matches() {
		if err := m.addFirst(conn, peer, first); err == nil {
			h.met.Handshakes.WithLabelValues(kind, "admitted").Inc()
			return
		}
	}
	h.refuse(kind, RefuseFull, addrOf(conn.Peer()))
	// The gate's Reject says so on a transport whose close carries no
	// reason (UDP).
	g, _ := h.gate()
	if b, ok := g.conn.Full(nil, len(first)); ok {
		_ = conn.Send(b)
	}
	_ = conn.Close("server full")
}

// enter counts a handshake from src, refusing it when src has perSource
// open already.
func (h *Host) enter(src netip.Prefix, perSource int) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.pending[src] >= perSource {
		return false
	}
	h.pending[src]++
	return true
}

// leave ends a handshake enter counted.
func (h *Host) leave(src netip.Prefix) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.pending[src]--; h.pending[src] <= 0 {
		delete(h.pending, src)
	}
}

// sourceOf returns the transport of a connection named peer
// ("wt:1.2.3.4:5", "ws:[::1]:6") and its source: its address masked to
// the limits' prefix. A name without an address is a source of its own.
func sourceOf(peer string, lim HandshakeLimits) (string, netip.Prefix) {
	kind, _, _ := strings.Cut(peer, ":")
	a := addrOf(peer)
	if !a.IsValid() {
		return kind, netip.Prefix{}
	}
	bits := lim.IPv6Prefix
	if a.Is4() {
		bits = lim.IPv4Prefix
	}
	p, err := a.Prefix(bits)
	if err != nil {
		return kind, netip.PrefixFrom(a, a.BitLen())
	}
	return kind, p
}

// addrOf returns the IP address in a connection's peer name, or the zero
// Addr.
func addrOf(peer string) netip.Addr {
	_, hostport, ok := strings.Cut(peer, ":")
	if !ok {
		return netip.Addr{}
	}
	ap, err := netip.ParseAddrPort(hostport)
	if err != nil {
		return netip.Addr{}
	}
	return ap.Addr().Unmap()
}

// refuse counts a refused handshake and logs it, sampled.
func (h *Host) refuse(kind, reason string, from any) {
	h.met.Handshakes.WithLabelValues(kind, reason).Inc()
	h.refusals.note(kind+" "+reason, from)
}

// sampler logs events of a kind at most once per period, with how many
// there were since the last record, so that a flood of refusals is seen
// in the log without the log becoming the flood.
type sampler struct {
	log    *slog.Logger
	period time.Duration
	mu     sync.Mutex
	kinds  map[string]*sampled
}

type sampled struct {
	last time.Time
	n    int
}

func newSampler(log *slog.Logger, period time.Duration) *sampler {
	return &sampler{log: log, period: period, kinds: map[string]*sampled{}}
}

// note counts one event of kind from from, logging it (and those of
// its kind not logged) when the last record of its kind is a period
// old.
func (s *sampler) note(kind string, from any) {
	now := time.Now()
	s.mu.Lock()
	k := s.kinds[kind]
	if k == nil {
		if len(s.kinds) >= 64 {
			s.kinds = map[string]*sampled{} // kinds are a fixed few; never grow
		}
		k = &sampled{}
		s.kinds[kind] = k
	}
	k.n++
	if !k.last.IsZero() && now.Sub(k.last) < s.period {
		s.mu.Unlock()
		return
	}
	n := k.n
	k.last, k.n = now, 0
	s.mu.Unlock()
	s.log.Info("handshake refused", "kind", kind, "from", fmt.Sprint(from), "count", n, "per", s.period.String())
}
