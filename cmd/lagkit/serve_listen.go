package main

import (
	"fmt"

	"github.com/lagkit/lagkit/transport"
)

// openListeners opens the transports o asks for, appending them to ls
// (which the caller closes), and returns the addresses they got.
func openListeners(o serveOptions, ls *[]transport.Listener) (boundAddrs, error) {
	var a boundAddrs
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
