package transport

import (
	"errors"
	"net"
	"net/netip"
)

// SendBatch gathers datagrams for many connections and sends them with
// as few system calls and goroutine hand-offs as the platform allows: a
// server's tick of snapshots to a UDP listener's sessions leaves in one
// sendmmsg per 64 datagrams on Linux, and those to WebSocket and
// WebTransport sessions go in one hand-off to one writer goroutine,
// which sends them one after another (rather than waking each session's
// writer). Datagrams for other connections are sent at once by their
// Send. Add copies what it is given into buffers allocated once, so
// neither Add nor Flush allocates in steady state. One goroutine uses a
// SendBatch.
//
// A peer too slow to take its datagram never holds up the caller, and
// holds up the others' at most until the next Flush: a Flush that finds
// the writer still sending the last batch marks the session it is stuck
// on slow (its datagrams go by its own bounded queue from then on, as
// Send's do), and hands what the writer has not started, and the new
// batch, to the sessions' own queues, which drop and count what does not
// fit.
type SendBatch struct {
	data []byte
	ents []sendEntry
	// Scratch for one listener's write.
	ps [][]byte
	to []netip.AddrPort
	cs []*udpConn
	// Datagrams for web sessions, and the writer that sends them.
	web webBatch
	w   *webWriter
}

type sendEntry struct {
	c      *udpConn
	off, n int
}

// NewSendBatch returns an empty batch.
func NewSendBatch() *SendBatch { return &SendBatch{} }

// Add sends p to c: later, with the batch's Flush, if c is a UDP
// listener's session or a WebSocket or WebTransport session, else at
// once with c.Send. It returns what Send would for a datagram c refuses
// (too large, c closed); as with Send, a datagram the network then
// refuses is counted in c's Stats, not returned.
func (s *SendBatch) Add(c Conn, p []byte) error {
	if ws, ok := c.(*session); ok {
		if err := ws.checkSend(p); err != nil {
			return err
		}
		if ws.slow.Load() {
			ws.enqueue(p)
			return nil
		}
		ws.pending.Add(1)
		s.web.add(ws, p)
		return nil
	}
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
func (s *SendBatch) Len() int { return len(s.ents) + len(s.web.ents) }

// Flush sends the datagrams Add gathered, in the order added, each
// listener's in as few system calls as its platform allows, hands the
// web sessions' to the batch's writer, and empties the batch.
func (s *SendBatch) Flush() {
	if len(s.web.ents) > 0 {
		if s.w == nil {
			s.w = newWebWriter()
		}
		s.w.hand(&s.web)
	}
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
