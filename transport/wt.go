package transport

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"path"
	"strings"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"
	"github.com/quic-go/webtransport-go"
)

// maxWTReason is the longest close message webtransport-go sends in a
// CLOSE_WEBTRANSPORT_SESSION capsule (draft-ietf-webtrans-http3, section
// 5: at most 1024 bytes).
const maxWTReason = 1024

// wtConfig is the WebTransport configuration both ends advertise. lagkit
// uses datagrams only; the stream limits bound what a peer may open and
// leave unread. Setting them at all matters: Safari refuses a server
// that advertises WT_MAX_SESSIONS without the WT_INITIAL_MAX_* settings
// (webtransport-go issue #355, a server with a nil Config).
var wtConfig = webtransport.Config{
	MaxIncomingStreams:    4,
	MaxIncomingUniStreams: 4,
	MaxIncomingData:       64 << 10,
}

// quicConfig is the QUIC configuration for WebTransport: datagrams and
// partial-delivery resets are required by webtransport-go; the idle
// timeout closes a silent peer as the UDP transport does.
func quicConfig(idle time.Duration) *quic.Config {
	return &quic.Config{
		EnableDatagrams:                  true,
		EnableStreamResetPartialDelivery: true,
		MaxIdleTimeout:                   idle,
		KeepAlivePeriod:                  idle / 3,
	}
}

// closeLinger is how long a dialed session's QUIC connection outlives the
// session's close, so the close capsule carrying the reason reaches the
// server before the connection's own close overtakes it: a few round
// trips on the paths lagkit serves.
const closeLinger = 250 * time.Millisecond

// wtIO carries datagrams as WebTransport session datagrams.
type wtIO struct {
	sess  *webtransport.Session
	qconn *quic.Conn     // a dialed session's own QUIC connection; nil on servers
	sock  net.PacketConn // qconn's socket, closed after it
}

func newWTConn(w *wtIO, peer string, queueLen int, onDone func()) *session {
	sess := w.sess
	s := startSession(peer, queueLen, w, onDone)
	// A session the peer ends stops the reader; a cut (the close
	// timeout) ends a writer blocked in SendDatagram, which waits while
	// QUIC's own datagram queue is full.
	context.AfterFunc(sess.Context(), s.cancel)
	context.AfterFunc(s.ctx, func() { sess.CloseWithError(0, s.Reason()) })
	return s
}

func (w *wtIO) receive(ctx context.Context) ([]byte, error) {
	return w.sess.ReceiveDatagram(ctx)
}

func (w *wtIO) send(_ context.Context, p []byte) error {
	return w.sess.SendDatagram(p)
}

// closeWith sends reason in the session's close capsule. Go peers receive
// it; Chromium 156 (checked on loopback) rejects its closed promise with
// "Connection lost" instead, because webtransport-go v0.13.0 sends
// STOP_SENDING along with the capsule (webtransport-go issue #242), so a
// driver that must tell a browser why sends the wire's Disconnect first,
// as over UDP. A browser's own close reason does reach the server.
//
// A browser also discards the datagrams its page has not yet read when
// the session closes under it, so a goodbye read a moment late was never
// read at all (a loaded machine's page said "connection lost" where the
// server had said why). A server's session therefore leaves the close to
// its peer for up to goodbyeLinger, sending the goodbye (last) again every
// goodbyeEvery meanwhile: a page that has read it closes its end, and a
// copy outlives a page's datagram age limit.
func (w *wtIO) closeWith(reason string, last []byte) {
	if w.qconn == nil && len(last) > 0 {
		w.awaitPeerClose(last)
	}
	w.sess.CloseWithError(0, truncateReason(reason, maxWTReason))
	if w.qconn != nil {
		select {
		case <-w.qconn.Context().Done():
		case <-time.After(closeLinger):
		}
		w.qconn.CloseWithError(0, "")
		w.sock.Close()
	}
}

// goodbyeLinger bounds how long a server's session waits for its peer to
// close after its goodbye; goodbyeEvery is how often the goodbye goes
// again meanwhile.
const (
	goodbyeLinger = 1500 * time.Millisecond
	goodbyeEvery  = 100 * time.Millisecond
)

func (w *wtIO) awaitPeerClose(goodbye []byte) {
	ended := w.sess.Context().Done()
	linger := time.NewTimer(goodbyeLinger)
	defer linger.Stop()
	again := time.NewTicker(goodbyeEvery)
	defer again.Stop()
	for {
		select {
		case <-ended:
			return
		case <-linger.C:
			return
		case <-again.C:
			if w.sess.SendDatagram(goodbye) != nil {
				return
			}
		}
	}
}

func (w *wtIO) closeReason(err error) string {
	// The session's own error carries the peer's message; AcceptUniStream
	// returns it once the session is closed.
	select {
	case <-w.sess.Context().Done():
	case <-time.After(time.Second):
	}
	done, cancel := context.WithCancel(context.Background())
	cancel()
	if _, serr := w.sess.AcceptUniStream(done); serr != nil && !errors.Is(serr, context.Canceled) {
		err = serr
	}
	var se *webtransport.SessionError
	if errors.As(err, &se) {
		if se.Message != "" {
			return se.Message
		}
		return fmt.Sprintf("webtransport: session closed with code %d", se.ErrorCode)
	}
	var idle *quic.IdleTimeoutError
	if errors.As(err, &idle) {
		return "idle timeout"
	}
	return "webtransport: " + err.Error()
}

// newWTServer is the HTTP/3 server accepting WebTransport sessions at
// WTPath; other requests go to pages.
func newWTServer(cert *Certificate, idle time.Duration, origins []string, pages http.Handler, upgrade func(*webtransport.Server, http.ResponseWriter, *http.Request)) *webtransport.Server {
	mux := http.NewServeMux()
	h3 := &http3.Server{
		TLSConfig:  http3.ConfigureTLSConfig(serverTLS(cert)),
		QUICConfig: quicConfig(idle),
		Handler:    mux,
	}
	cfg := wtConfig
	s := &webtransport.Server{
		H3:          h3,
		Config:      &cfg,
		CheckOrigin: func(r *http.Request) bool { return originAllowed(r, origins) },
	}
	mux.HandleFunc(WTPath, func(w http.ResponseWriter, r *http.Request) { upgrade(s, w, r) })
	if pages != nil {
		mux.Handle("/", pages)
	}
	return s
}

// originAllowed lets requests without an Origin (native clients), from
// the server's own origin, or from a host matching one of patterns.
func originAllowed(r *http.Request, patterns []string) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil {
		return false
	}
	if strings.EqualFold(u.Host, r.Host) {
		return true
	}
	for _, p := range patterns {
		if ok, _ := path.Match(strings.ToLower(p), strings.ToLower(u.Host)); ok {
			return true
		}
	}
	return false
}

// DialWT opens a WebTransport session to rawURL (https://HOST:PORT/PATH),
// checking the server as tlsc says. The session's QUIC connection closes
// with it.
func DialWT(ctx context.Context, rawURL string, tlsc ClientTLS, queueLen int) (Conn, error) {
	w, host, err := dialWTSession(ctx, rawURL, tlsc)
	if err != nil {
		return nil, err
	}
	return newWTConn(w, "wt:"+host, queueLen, nil), nil
}

// dialWTSession opens the WebTransport session DialWT wraps, on a QUIC
// connection and a socket of its own, and names the host it reached.
func dialWTSession(ctx context.Context, rawURL string, tlsc ClientTLS) (*wtIO, string, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, "", fmt.Errorf("transport: webtransport dial %q: %w", rawURL, err)
	}
	tlsConf, err := tlsc.config()
	if err != nil {
		return nil, "", err
	}
	tlsConf.NextProtos = []string{http3.NextProtoH3}
	to, err := net.ResolveUDPAddr("udp", u.Host)
	if err != nil {
		return nil, "", fmt.Errorf("transport: webtransport dial %q: %w", rawURL, err)
	}
	// As quic.DialAddrEarly does, on a socket that sends and reads with
	// raw system calls (see rawUDP).
	udp, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4zero})
	if err != nil {
		return nil, "", fmt.Errorf("transport: webtransport dial %q: %w", rawURL, err)
	}
	sock := rawUDP(udp)
	// Dialing the QUIC connection here rather than in Transport.Dial
	// leaves its close to closeWith, after the session's close.
	qconn, err := quic.DialEarly(ctx, sock, to, tlsConf, quicConfig(DefaultIdleTimeout))
	if err != nil {
		sock.Close()
		return nil, "", fmt.Errorf("transport: webtransport dial %q: %w", rawURL, err)
	}
	cfg := wtConfig
	tr := &webtransport.Transport{Config: &cfg}
	defer tr.Close() // only cancels establishment; the session lives on
	cc, err := tr.NewClientConn(qconn)
	var sess *webtransport.Session
	if err == nil {
		// The response body is the session's CONNECT stream: closing it
		// would cancel the session, which owns it from here.
		_, sess, err = cc.Dial(ctx, rawURL, nil)
	}
	if err != nil {
		qconn.CloseWithError(0, "")
		sock.Close()
		return nil, "", fmt.Errorf("transport: webtransport dial %q: %w", rawURL, err)
	}
	return &wtIO{sess: sess, qconn: qconn, sock: sock}, u.Host, nil
}
