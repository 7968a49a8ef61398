//go:build !js

package transport

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"

	"github.com/coder/websocket"
)

// DialWS opens a WebSocket session to rawURL (ws:// or wss://); for
// wss, tlsc says how the server's certificate is checked.
func DialWS(ctx context.Context, rawURL string, tlsc ClientTLS, opts WSOptions) (Conn, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("transport: websocket dial %q: %w", rawURL, err)
	}
	tlsConf, err := tlsc.config()
	if err != nil {
		return nil, err
	}
	d := &net.Dialer{}
	if opts.LocalAddr != "" {
		local := opts.LocalAddr
		if _, _, err := net.SplitHostPort(local); err != nil {
			local = net.JoinHostPort(local, "0")
		}
		la, err := net.ResolveTCPAddr("tcp", local)
		if err != nil {
			return nil, fmt.Errorf("transport: websocket local address %q: %w", opts.LocalAddr, err)
		}
		d.LocalAddr = la
	}
	tr := &http.Transport{TLSClientConfig: tlsConf, DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := d.DialContext(ctx, network, addr)
		if tc, ok := c.(*net.TCPConn); ok {
			return newRawTCPConn(tc), nil // see rawTCPConn
		}
		return c, err
	}}
	client := &http.Client{Transport: tr}
	ws, resp, err := websocket.Dial(ctx, rawURL, &websocket.DialOptions{HTTPClient: client})
	if err != nil {
		client.CloseIdleConnections()
		return nil, fmt.Errorf("transport: websocket dial %q: %w", rawURL, err)
	}
	if resp != nil && resp.Body != nil {
		resp.Body.Close()
	}
	return newWSConn(ws, "ws:"+u.Host, opts.QueueLen, opts.IdleTimeout, nil), nil
}
