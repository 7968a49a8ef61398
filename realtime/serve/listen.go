package serve

import (
	"errors"
	"fmt"

	"github.com/lagkit/lagkit/realtime"
	"github.com/lagkit/lagkit/realtime/api"
	"github.com/lagkit/lagkit/transport"
	"github.com/lagkit/lagkit/web"
)

// Listeners are the game listeners: Listen for browsers (the page and
// WebSocket over HTTPS/TCP, WebTransport over UDP), UDP for native
// clients. An empty address turns its listener off.
type Listeners struct {
	Listen, UDP string
	// Cert and Key are the TLS certificate and key files (PEM) for
	// Listen (default: a self-signed certificate).
	Cert, Key string
	// Tokens has the page on Listen get its connect token for the oldest
	// match.
	Tokens bool
	// Page, if set, adjusts the page's options (a study serves its own
	// pages).
	Page func(*web.Options)
}

// OpenListeners opens the listeners o asks for, joined to host, and
// returns them (the caller closes them, also after an error) and the
// addresses they got. The page serves maps (the shipped maps if nil).
func OpenListeners(o Listeners, host *realtime.Host, maps *realtime.Maps) ([]transport.Listener, Addrs, error) {
	var (
		a  Addrs
		ls []transport.Listener
	)
	if o.Listen != "" {
		var cert *transport.Certificate
		if o.Cert != "" {
			var err error
			if cert, err = transport.LoadCertificate(o.Cert, o.Key); err != nil {
				return ls, a, fmt.Errorf("--cert: %w", err)
			}
		}
		wo := web.Options{Maps: maps, Host: host}
		if o.Tokens {
			wo.Tokens = func(player string) ([]byte, error) { return browserToken(host, player) }
		}
		if o.Page != nil {
			o.Page(&wo)
		}
		w, err := transport.NewWeb(transport.WebOptions{Addr: o.Listen, Cert: cert, Handler: web.HandlerWith(wo)})
		if err != nil {
			return ls, a, fmt.Errorf("--listen: %w", err)
		}
		ls = append(ls, w)
		a.Listen, a.CertHash = w.Addr(), w.CertHash()
	}
	if o.UDP != "" {
		l, err := transport.ListenUDP(o.UDP, transport.UDPOptions{Unrouted: host.UDPUnrouted})
		if err != nil {
			return ls, a, fmt.Errorf("--udp: %w", err)
		}
		ls = append(ls, l)
		a.UDP = l.Addr()
	}
	return ls, a, nil
}

// browserToken issues a page's connect token for the match a new
// connection joins: the oldest (a person takes a bot's seat).
func browserToken(host *realtime.Host, player string) ([]byte, error) {
	ms := host.Matches()
	if len(ms) == 0 {
		return nil, errors.New("no match is running")
	}
	return host.IssueToken(ms[0].ID(), player, api.TokenTTL)
}
