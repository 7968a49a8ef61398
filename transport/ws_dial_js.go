//go:build js

package transport

import (
	"context"
	"errors"
	"fmt"
	"net/url"

	"github.com/coder/websocket"
)

// errBrowserTLS refuses a ClientTLS in a browser, where the page's own
// TLS stack checks the server's certificate and no Go code can.
var errBrowserTLS = errors.New("in a browser the page checks the server's certificate: ClientTLS must be zero (serve wss:// with a certificate the browser trusts)")

// DialWS opens a WebSocket session to rawURL (ws:// or wss://). Built
// for js/wasm it dials through the browser's WebSocket: the browser
// checks a wss:// server's certificate and picks the local address, so
// a non-zero tlsc or opts.LocalAddr is an error.
func DialWS(ctx context.Context, rawURL string, tlsc ClientTLS, opts WSOptions) (Conn, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("transport: websocket dial %q: %w", rawURL, err)
	}
	if tlsc.CertHash != "" || tlsc.InsecureSkipVerify || tlsc.Config != nil {
		return nil, fmt.Errorf("transport: websocket dial %q: %w", rawURL, errBrowserTLS)
	}
	if opts.LocalAddr != "" {
		return nil, fmt.Errorf("transport: websocket dial %q: a browser picks the local address; LocalAddr %q cannot be used", rawURL, opts.LocalAddr)
	}
	ws, _, err := websocket.Dial(ctx, rawURL, nil)
	if err != nil {
		return nil, fmt.Errorf("transport: websocket dial %q: %w", rawURL, err)
	}
	return newWSConn(ws, "ws:"+u.Host, opts.QueueLen, opts.IdleTimeout, nil), nil
}
