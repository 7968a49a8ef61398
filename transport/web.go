package transport

import (
	"context"
	"encoding/json"

	"fmt"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/quic-go/webtransport-go"
)

// Paths a Web server serves besides the caller's pages.
const (
	WSPath   = "/lagkit/ws"   // WebSocket upgrade (HTTPS over TCP)
	WTPath   = "/lagkit/wt"   // WebTransport sessions (HTTP/3 over UDP)
	CertPath = "/lagkit/cert" // the certificate hash, as JSON
)

// WebOptions configures a Web server. The zero value serves on a free
// loopback port with a generated certificate.
type WebOptions struct {
	// Addr is HOST:PORT for both TCP and UDP ("127.0.0.1:0" if empty;
	// port 0 picks a port free on both).
	Addr string
	// Handler serves every other path: pages and API (404 if nil).
	Handler http.Handler
	// Cert is the certificate presented (SelfSigned for 127.0.0.1, ::1
	// and localhost if nil); LoadCertificate reads a real one.
	Cert *Certificate
	// IdleTimeout closes sessions silent for this long
	// (DefaultIdleTimeout if 0).
	IdleTimeout time.Duration
	// QueueLen is each session's queue in each direction, in datagrams
	// (DefaultQueueLen if 0).
	QueueLen int
	// AcceptBacklog bounds sessions not yet accepted
	// (DefaultAcceptBacklog if 0).
	AcceptBacklog int
	// MaxSessions bounds open sessions, WebSocket and WebTransport
	// together (DefaultMaxPeers if 0): each holds its queues, so the
	// bound caps memory. Further upgrades are refused with 503.
	MaxSessions int
	// OriginPatterns lists other origins (host patterns as in
	// path.Match) whose pages may open sessions; same-origin pages and
	// native clients (no Origin) always may.
	OriginPatterns []string
	// ReadTimeout bounds reading a request over HTTPS, its body
	// included (DefaultReadTimeout if 0), and WriteTimeout writing its
	// response (DefaultWriteTimeout if 0). Neither applies to a
	// WebSocket session once upgraded.
	ReadTimeout, WriteTimeout time.Duration
}

// The HTTPS server's timeouts: reading a request's header, the request
// with its body, writing a response (the client core is megabytes), and
// keeping an idle keep-alive connection.
const (
	DefaultReadHeaderTimeout = 10 * time.Second
	DefaultReadTimeout       = 30 * time.Second
	DefaultWriteTimeout      = 2 * time.Minute
	DefaultHTTPIdleTimeout   = 2 * time.Minute
)

// Web serves browsers on one HOST:PORT: HTTPS over TCP for the caller's
// pages and the WebSocket upgrade at WSPath, and HTTP/3 over UDP on the
// same port number for WebTransport at WTPath. It is one Listener for
// both kinds of session: Accept yields WebSocket and WebTransport Conns
// alike (Peer tells them apart). Close stops accepting; the servers keep
// running for the sessions already accepted and shut down with the last
// of them.
type Web struct {
	addr   string
	cert   *Certificate
	accept *acceptQueue
	https  *http.Server
	tcp    net.Listener
	udp    *net.UDPConn
	wt     *webtransport.Server
	opts   WebOptions

	mu       sync.Mutex
	live     int  // sessions started and not yet ended
	closing  bool // Close was called
	stopOnce sync.Once
	wg       sync.WaitGroup
}

// NewWeb starts a Web server.
func NewWeb(opts WebOptions) (*Web, error) {
	if opts.Addr == "" {
		opts.Addr = "127.0.0.1:0"
	}
	if opts.IdleTimeout <= 0 {
		opts.IdleTimeout = DefaultIdleTimeout
	}
	if opts.MaxSessions <= 0 {
		opts.MaxSessions = DefaultMaxPeers
	}
	if opts.ReadTimeout <= 0 {
		opts.ReadTimeout = DefaultReadTimeout
	}
	if opts.WriteTimeout <= 0 {
		opts.WriteTimeout = DefaultWriteTimeout
	}
	if opts.Cert == nil {
		c, err := SelfSigned(0)
		if err != nil {
			return nil, err
		}
		opts.Cert = c
	}
	tcp, udp, err := listenPair(opts.Addr)
	if err != nil {
		return nil, err
	}
	w := &Web{
		addr:   tcp.Addr().String(),
		cert:   opts.Cert,
		accept: newAcceptQueue(opts.AcceptBacklog),
		tcp:    tcp,
		udp:    udp,
		opts:   opts,
	}
	ws := &WSListener{
		opts:   WSOptions{QueueLen: opts.QueueLen, OriginPatterns: opts.OriginPatterns, IdleTimeout: opts.IdleTimeout},
		addr:   w.addr,
		accept: w.accept,
		track:  w.track,
	}
	pages := http.NewServeMux()
	pages.HandleFunc(CertPath, w.serveCert)
	if opts.Handler != nil {
		pages.Handle("/", opts.Handler)
	}
	mux := http.NewServeMux()
	mux.Handle(WSPath, ws)
	mux.Handle("/", pages)
	protocols := new(http.Protocols)
	// HTTP/1.1 only: the WebSocket upgrade needs it (a browser on an
	// HTTP/2 connection would try RFC 8441 WebSockets instead).
	protocols.SetHTTP1(true)
	w.https = &http.Server{
		Handler:           mux,
		TLSConfig:         serverTLS(opts.Cert),
		Protocols:         protocols,
		ReadHeaderTimeout: min(DefaultReadHeaderTimeout, opts.ReadTimeout),
		ReadTimeout:       opts.ReadTimeout,
		WriteTimeout:      opts.WriteTimeout,
		IdleTimeout:       DefaultHTTPIdleTimeout,
		MaxHeaderBytes:    16 << 10,
	}
	// Over HTTP/3 the pages get the same bounds per request (the
	// WebTransport upgrade, on its own path, is not bound).
	w.wt = newWTServer(opts.Cert, opts.IdleTimeout, opts.OriginPatterns, withDeadlines(pages, opts.ReadTimeout, opts.WriteTimeout), w.upgradeWT)
	w.wg.Add(2)
	go func() {
		defer w.wg.Done()
		w.https.ServeTLS(rawTCP(tcp), "", "")
	}()
	go func() {
		defer w.wg.Done()
		w.wt.Serve(rawUDP(udp))
	}()
	return w, nil
}

// withDeadlines bounds reading each request to h and writing its
// response, as an http.Server's ReadTimeout and WriteTimeout do, for a
// server that has none (HTTP/3).
func withDeadlines(h http.Handler, read, write time.Duration) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(rw)
		now := time.Now()
		_ = rc.SetReadDeadline(now.Add(read))
		_ = rc.SetWriteDeadline(now.Add(write))
		h.ServeHTTP(rw, r)
	})
}

// listenPair binds TCP and UDP on the same port; for port 0 it retries
// until the port the TCP listener got is free for UDP too.
func listenPair(addr string) (net.Listener, *net.UDPConn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, nil, fmt.Errorf("transport: web address %q: %w", addr, err)
	}
	var lastErr error
	for range 20 {
		tcp, err := net.Listen("tcp", addr)
		if err != nil {
			return nil, nil, fmt.Errorf("transport: web listen %q: %w", addr, err)
		}
		got := strconv.Itoa(tcp.Addr().(*net.TCPAddr).Port)
		ua, err := net.ResolveUDPAddr("udp", net.JoinHostPort(host, got))
		if err == nil {
			var udp *net.UDPConn
			if udp, err = net.ListenUDP("udp", ua); err == nil {
				return tcp, udp, nil
			}
		}
		tcp.Close()
		lastErr = err
		if port != "0" {
			break
		}
	}
	return nil, nil, fmt.Errorf("transport: web listen udp %q: %w", addr, lastErr)
}

// Addr is the bound HOST:PORT, the same for TCP and UDP.
func (w *Web) Addr() string { return w.addr }

// Certificate is the certificate the server presents.
func (w *Web) Certificate() *Certificate { return w.cert }

// CertHash is the SHA-256 of the certificate's DER, in hex: what a page
// passes to WebTransport's serverCertificateHashes.
func (w *Web) CertHash() string { return w.cert.HashHex() }

// Accept returns the next WebSocket or WebTransport session.
func (w *Web) Accept(ctx context.Context) (Conn, error) { return w.accept.Accept(ctx) }

// Close stops accepting sessions (new ones are refused with 503). The
// servers stop once every accepted session has closed, at once if none
// is open.
func (w *Web) Close() error {
	w.accept.close()
	w.mu.Lock()
	w.closing = true
	idle := w.live == 0
	w.mu.Unlock()
	if idle {
		w.stop(0)
	}
	return nil
}

// track counts a session about to start; false refuses it.
func (w *Web) track() (func(), bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closing || w.live >= w.opts.MaxSessions {
		return nil, false
	}
	w.live++
	return w.sessionDone, true
}

func (w *Web) sessionDone() {
	w.mu.Lock()
	w.live--
	idle := w.closing && w.live == 0
	w.mu.Unlock()
	if idle {
		// The last session's close capsule may still be in flight:
		// closing its QUIC connection now would overtake it.
		w.stop(closeLinger)
	}
}

// stop closes both servers after linger and waits for them.
func (w *Web) stop(linger time.Duration) {
	w.stopOnce.Do(func() {
		time.Sleep(linger)
		w.https.Close()
		w.wt.Close()
		w.udp.Close()
		w.wg.Wait()
	})
}

func (w *Web) upgradeWT(s *webtransport.Server, rw http.ResponseWriter, r *http.Request) {
	onDone, ok := w.track()
	if !ok {
		http.Error(rw, "lagkit: not accepting sessions", http.StatusServiceUnavailable)
		return
	}
	sess, err := s.Upgrade(rw, r)
	if err != nil {
		onDone()
		http.Error(rw, "lagkit: webtransport upgrade: "+err.Error(), http.StatusBadRequest)
		return
	}
	c := newWTConn(&wtIO{sess: sess}, "wt:"+r.RemoteAddr, w.opts.QueueLen, onDone)
	if !w.accept.offer(c) {
		c.Close("server busy")
	}
}

// certJSON is what CertPath serves.
type certJSON struct {
	SHA256    string `json:"sha256"`
	Algorithm string `json:"algorithm"`
}

func (w *Web) serveCert(rw http.ResponseWriter, r *http.Request) {
	rw.Header().Set("Content-Type", "application/json")
	// A restarted server has a new certificate: never serve a stale hash.
	rw.Header().Set("Cache-Control", "no-store")
	json.NewEncoder(rw).Encode(certJSON{SHA256: w.CertHash(), Algorithm: "sha-256"})
}

var _ Listener = (*Web)(nil)
