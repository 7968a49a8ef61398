package main

import (
	"errors"
	"fmt"

	"github.com/lagkit/lagkit/realtime"
	"github.com/lagkit/lagkit/realtime/api"
	"github.com/lagkit/lagkit/transport"
	"github.com/lagkit/lagkit/web"
)

// openListeners opens the transports o asks for, appending them to ls
// (which the caller closes), and returns the addresses they got. The
// page serves maps (the shipped maps if nil).
func openListeners(o serveOptions, host *realtime.Host, maps *realtime.Maps, ls *[]transport.Listener) (boundAddrs, error) {
	var a boundAddrs
	if o.listen != "" {
		var cert *transport.Certificate
		if o.cert != "" {
			var err error
			if cert, err = transport.LoadCertificate(o.cert, o.key); err != nil {
				return a, fmt.Errorf("--cert: %w", err)
			}
		}
		wo := web.Options{Maps: maps, Host: host}
		if o.tokens {
			wo.Tokens = func(player string) ([]byte, error) { return browserToken(host, player) }
		}
		if o.page != nil {
			o.page(&wo)
		}
		w, err := transport.NewWeb(transport.WebOptions{Addr: o.listen, Cert: cert, Handler: web.HandlerWith(wo)})
		if err != nil {
			return a, fmt.Errorf("--listen: %w", err)
		}
		*ls = append(*ls, w)
		a.listen, a.certHash = w.Addr(), w.CertHash()
	}
	if o.udp != "" {
		l, err := transport.ListenUDP(o.udp, transport.UDPOptions{Unrouted: host.UDPUnrouted})
		if err != nil {
			return a, fmt.Errorf("--udp: %w", err)
		}
		*ls = append(*ls, l)
		a.udp = l.Addr()
	}
	return a, nil
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
