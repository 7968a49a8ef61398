package main

import (
	"fmt"

	"github.com/lagkit/lagkit/transport"
	"github.com/lagkit/lagkit/web"
)

// openListeners opens the transports o asks for, appending them to ls
// (which the caller closes), and returns the addresses they got.
func openListeners(o serveOptions, ls *[]transport.Listener) (boundAddrs, error) {
	var a boundAddrs
	if o.listen != "" {
		var cert *transport.Certificate
		if o.cert != "" {
			var err error
			if cert, err = transport.LoadCertificate(o.cert, o.key); err != nil {
				return a, fmt.Errorf("--cert: %w", err)
			}
		}
		w, err := transport.NewWeb(transport.WebOptions{Addr: o.listen, Cert: cert, Handler: web.Handler()})
		if err != nil {
			return a, fmt.Errorf("--listen: %w", err)
		}
		*ls = append(*ls, w)
		a.listen, a.certHash = w.Addr(), w.CertHash()
	}
	if o.udp != "" {
		l, err := transport.ListenUDP(o.udp, transport.UDPOptions{})
		if err != nil {
			return a, fmt.Errorf("--udp: %w", err)
		}
		*ls = append(*ls, l)
		a.udp = l.Addr()
	}
	return a, nil
}
