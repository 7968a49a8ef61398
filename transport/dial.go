package transport

import (
	"context"
	"fmt"
	"net/url"
)

// DialOptions configures Dial. The zero value gives the defaults and
// verifies servers against the system's certificate authorities.
type DialOptions struct {
	// TLS checks the server for wt:// and wss:// (a pinned certificate
	// hash, as a Web server's CertHash gives).
	TLS ClientTLS
	// UDP configures udp:// sessions.
	UDP UDPOptions
	// WS configures ws:// and wss:// sessions.
	WS WSOptions
	// QueueLen is a wt:// session's queue in each direction, in
	// datagrams (DefaultQueueLen if 0).
	QueueLen int
}

// Dial opens a session to a lagkit server by URL: udp://HOST:PORT (a UDP
// listener), wt://HOST:PORT (WebTransport at WTPath of a Web server),
// ws://HOST:PORT or wss://HOST:PORT (WebSocket at WSPath). A path in the
// URL replaces the default one.
func Dial(ctx context.Context, rawURL string, opts DialOptions) (Conn, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("transport: dial %q: %w", rawURL, err)
	}
	if u.Host == "" {
		return nil, fmt.Errorf("transport: dial %q: no HOST:PORT", rawURL)
	}
	withPath := func(scheme, path string) string {
		v := *u
		v.Scheme = scheme
		if v.Path == "" || v.Path == "/" {
			v.Path = path
		}
		return v.String()
	}
	switch u.Scheme {
	case "udp":
		if u.Path != "" && u.Path != "/" {
			return nil, fmt.Errorf("transport: dial %q: udp takes no path", rawURL)
		}
		return DialUDP(ctx, u.Host, opts.UDP)
	case "wt":
		return DialWT(ctx, withPath("https", WTPath), opts.TLS, opts.QueueLen)
	case "ws", "wss":
		return DialWS(ctx, withPath(u.Scheme, WSPath), opts.TLS, opts.WS)
	default:
		return nil, fmt.Errorf("transport: dial %q: scheme %q: want udp, wt, ws or wss", rawURL, u.Scheme)
	}
}
