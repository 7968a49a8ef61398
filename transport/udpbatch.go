package transport

import "net/netip"

// ioBatch is how many datagrams one read or write of a UDP socket
// carries at most: a 64-player tick's snapshots in one system call.
const ioBatch = 64

// udpBatchIO reads and writes a UDP socket's datagrams many per system
// call where the platform allows it (recvmmsg and sendmmsg on Linux),
// one per call elsewhere, into buffers allocated once. One goroutine
// reads and one writes at a time.
type udpBatchIO struct {
	sock *udpSock
	// What the last read returned: datagram i is rbuf[i][:rlen[i]] (one
	// byte longer than MaxDatagram: an oversized datagram) from
	// rfrom[i], unmapped.
	rbuf  [][]byte
	rlen  []int
	rfrom []netip.AddrPort
	rat   []int64 // arrival, on the monotonic clock (monotonic())
	sys   sysBatch
}

// newUDPBatchIO returns a reader and writer of sock; with reads false
// it only writes, and holds no receive buffers.
func newUDPBatchIO(sock *udpSock, reads bool) *udpBatchIO {
	b := &udpBatchIO{sock: sock, rbuf: make([][]byte, ioBatch), rlen: make([]int, ioBatch), rfrom: make([]netip.AddrPort, ioBatch), rat: make([]int64, ioBatch)}
	for i := range b.rbuf {
		if !reads {
			b.rbuf[i] = make([]byte, 1) // for the headers' pointers only
			continue
		}
		b.rbuf[i] = make([]byte, MaxDatagram+1)
	}
	b.sys.init(b)
	return b
}

// datagram returns the last read's i-th datagram, its sender and when
// it arrived.
func (b *udpBatchIO) datagram(i int) ([]byte, netip.AddrPort, int64) {
	return b.rbuf[i][:b.rlen[i]], b.rfrom[i], b.rat[i]
}

// unmap gives one form to an address a dual-stack socket reports as
// IPv4-mapped IPv6: one peer maps to one key whichever form arrives.
func unmap(a netip.AddrPort) netip.AddrPort { return netip.AddrPortFrom(a.Addr().Unmap(), a.Port()) }
