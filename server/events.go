package server

import "github.com/lagkit/lagkit/wire"

// maxQueuedEvents bounds the events waiting for a client's
// acknowledgement; a client that lets more pile up is dropped.
const maxQueuedEvents = 512

// queuedEvent is a game event not yet acknowledged by its client.
type queuedEvent struct {
	seq  uint32
	kind uint16
	data []byte
}

// sendEvent queues a reliable event for c: it rides in every snapshot to
// c until a snapshot carrying it is acknowledged.
func (s *Server) sendEvent(c *client, kind uint16, data []byte) {
	if len(c.events) >= maxQueuedEvents {
		c.overflow = true // dropped at the end of the tick
		return
	}
	c.events = append(c.events, queuedEvent{seq: c.nextEventSeq, kind: kind, data: data})
	c.nextEventSeq++
	s.note(c, &c.events[len(c.events)-1], false)
}

// fillEvents puts c's unacknowledged events into its next snapshot.
func (s *Server) fillEvents(c *client, snap *wire.Snapshot) {
	snap.FirstEventSeq = c.nextEventSeq
	snap.Events = snap.Events[:0]
	if len(c.events) > 0 {
		snap.FirstEventSeq = c.events[0].seq
	}
	for i := range c.events {
		if i == wire.MaxEvents {
			break
		}
		snap.Events = append(snap.Events, wire.Event{Kind: c.events[i].kind, Data: c.events[i].data})
	}
}

// ackEvents forgets c's events that the acknowledged snapshot carried.
func (s *Server) ackEvents(c *client, acked *wire.Snapshot) {
	upTo := acked.FirstEventSeq + uint32(len(acked.Events))
	n := 0
	for n < len(c.events) && c.events[n].seq < upTo {
		s.note(c, &c.events[n], true)
		n++
	}
	if n > 0 {
		c.events = append(c.events[:0], c.events[n:]...)
	}
}
