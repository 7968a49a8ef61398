package page

import (
	"context"
	"errors"
	"net"
	"net/http"
	"time"

	"github.com/lagkit/lagkit/transport"
)

// Web serves the page over HTTP and accepts the clients' WebSocket
// sessions at transport.WSPath on the same address: a
// transport.Listener for a realtime.Host. Plain HTTP suits a game on
// loopback or a LAN (a browser lets a page on localhost do anything a
// secure one may); on the Internet put a TLS proxy in front, or serve
// with lagkit's transport.NewWeb (HTTPS and WebTransport).
type Web struct {
	ws  *transport.WSListener
	srv *http.Server
}

// Listen serves the page, its client and loader from dir (see Handler),
// at addr (HOST:PORT; port 0 picks one).
func Listen(addr, dir string) (*Web, error) {
	pages, err := Handler(dir)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	w := &Web{ws: transport.NewWSListener(ln.Addr().String(), transport.WSOptions{})}
	mux := http.NewServeMux()
	mux.Handle(transport.WSPath, w.ws)
	mux.Handle("/", pages)
	w.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = w.srv.Serve(ln) }()
	return w, nil
}

// Addr is the HOST:PORT served.
func (w *Web) Addr() string { return w.ws.Addr() }

// URL is the page's address.
func (w *Web) URL() string { return "http://" + w.Addr() + "/" }

// Accept returns the next WebSocket session.
func (w *Web) Accept(ctx context.Context) (transport.Conn, error) { return w.ws.Accept(ctx) }

// Close stops accepting sessions and serving the page; sessions already
// accepted stay open.
func (w *Web) Close() error {
	w.ws.Close()
	err := w.srv.Close()
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}
