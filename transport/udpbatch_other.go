//go:build !linux

package transport

import "net/netip"

// sysBatch reads and writes one datagram per call: this platform has no
// recvmmsg and sendmmsg that Go reaches.
type sysBatch struct{ b *udpBatchIO }

func (s *sysBatch) init(b *udpBatchIO) { s.b = b }

// read reads one datagram.
func (b *udpBatchIO) read() (int, error) {
	n, from, err := b.sock.ReadFromUDPAddrPort(b.rbuf[0])
	if err != nil {
		return 0, err
	}
	b.rlen[0], b.rfrom[0] = n, unmap(from)
	return 1, nil
}

// write sends ps[i] to to[i] in order and returns how many were sent
// before the first error.
func (b *udpBatchIO) write(ps [][]byte, to []netip.AddrPort) (int, error) {
	for i, p := range ps {
		if _, err := b.sock.WriteToUDPAddrPort(p, to[i]); err != nil {
			return i, err
		}
	}
	return len(ps), nil
}
