//go:build !linux

package transport

import (
	"net"
	"net/netip"
)

// canPoll: here a listener's own reader reads every datagram as it
// comes; its consumers do not read the socket themselves.
const canPoll = false

// udpSock is a listener's socket: here Go's own, in its poller.
type udpSock struct{ c *net.UDPConn }

func takeSock(c *net.UDPConn) (*udpSock, error) { return &udpSock{c: c}, nil }

func (s *udpSock) close() error { return s.c.Close() }

// sysBatch reads and writes one datagram per call: this platform has no
// recvmmsg and sendmmsg that Go reaches.
type sysBatch struct{}

func (s *sysBatch) init(*udpBatchIO) {}

// read reads one datagram, waiting for it (canPoll is false: wait is
// always true here).
func (b *udpBatchIO) read(bool) (int, error) {
	n, from, err := b.sock.c.ReadFromUDPAddrPort(b.rbuf[0])
	if err != nil {
		return 0, err
	}
	b.rlen[0], b.rfrom[0], b.rat[0] = n, unmap(from), monotonic()
	return 1, nil
}

// write sends ps[i] to to[i] in order and returns how many were sent
// before the first error.
func (b *udpBatchIO) write(ps [][]byte, to []netip.AddrPort) (int, error) {
	for i, p := range ps {
		if _, err := b.sock.c.WriteToUDPAddrPort(p, to[i]); err != nil {
			return i, err
		}
	}
	return len(ps), nil
}
