package transport

import (
	"errors"
	"net"
	"net/netip"
)

// SendBatch gathers datagrams for many connections and sends them with
// as few system calls as the platform allows: a server's tick of
// snapshots to a UDP listener's sessions leaves in one sendmmsg per 64
// datagrams on Linux. Datagrams for other connections are sent at once
// by their Send. Add copies what it is given into buffers allocated
// once, so neither Add nor Flush allocates in steady state. One
// goroutine uses a SendBatch.
type SendBatch struct {
	data []byte
	ents []sendEntry
	// Scratch for one listener's write.
	ps [][]byte
	to []netip.AddrPort
	cs []*udpConn
}

type sendEntry struct {
	c      *udpConn
	off, n int
}

// NewSendBatch returns an empty batch.
func NewSendBatch() *SendBatch { return &SendBatch{} }

// Add sends p to c: later, with the batch's Flush, if c is a UDP
// listener's session, else at once with c.Send. It returns what Send
// would for a datagram c refuses (too large, c closed); as with Send, a
// datagram the network then refuses is counted in c's Stats, not
// returned.
func (s *SendBatch) Add(c Conn, p []byte) error {
	u, ok := c.(*udpConn)
	if !ok || u.l == nil {
		return c.Send(p)
	}
	if err := u.checkSend(p); err != nil {
		return err
	}
	s.ents = append(s.ents, sendEntry{c: u, off: len(s.data), n: len(p)})
	s.data = append(s.data, p...)
	return nil
}

// Len is how many datagrams wait for Flush.
func (s *SendBatch) Len() int { return len(s.ents) }

// Flush sends the datagrams Add gathered, in the order added, each
// listener's in as few system calls as its platform allows, and empties
// the batch.
func (s *SendBatch) Flush() {
	for i := 0; i < len(s.ents); {
		// A server has one listener as a rule: take a run of entries on
		// the same one.
		l := s.ents[i].c.l
		j := i
		s.ps, s.to, s.cs = s.ps[:0], s.to[:0], s.cs[:0]
		for ; j < len(s.ents) && s.ents[j].c.l == l; j++ {
			e := s.ents[j]
			s.ps = append(s.ps, s.data[e.off:e.off+e.n])
			s.to = append(s.to, e.c.to)
			s.cs = append(s.cs, e.c)
		}
		l.writeBatch(s.ps, s.to, s.cs)
		i = j
	}
	clear(s.ps)
	clear(s.cs)
	clear(s.ents)
	s.ents, s.data = s.ents[:0], s.data[:0]
}

// writeBatch sends ps[i] to to[i] for the sessions cs from the
// listener's socket, counting what was sent and what the network
// refused in each session's Stats.
func (l *UDPListener) writeBatch(ps [][]byte, to []netip.AddrPort, cs []*udpConn) {
	l.wmu.Lock()
	defer l.wmu.Unlock()
	for len(ps) > 0 {
		n, err := l.wio.write(ps, to)
		for _, c := range cs[:n] {
			c.sent.Add(1)
		}
		if err == nil {
			return
		}
		if errors.Is(err, net.ErrClosed) {
			for _, c := range cs[n:] {
				c.sendDropped.Add(1)
			}
			return
		}
		// The datagram at n was refused (an ICMP error from an earlier
		// one, say): lost, counted, and the rest go on.
		cs[n].sendDropped.Add(1)
		ps, to, cs = ps[n+1:], to[n+1:], cs[n+1:]
	}
}
