package server

import (
	"time"

	"github.com/lagkit/lagkit/wire"
)

// maxQueuedEvents bounds the sequence numbers of the events waiting for a
// client's acknowledgement, from the oldest to the next: a client that
// lets more pile up, or leaves one unacknowledged that long, is dropped.
// They then stay within the window a snapshot can number and a client
// holds early arrivals for.
const maxQueuedEvents = wire.MaxEventWindow

// queuedEvent is a game event not yet acknowledged by its client.
type queuedEvent struct {
	seq  uint32
	kind uint16
	data []byte
	// sent reports whether a snapshot carried the event, last at sentAt.
	sent   bool
	sentAt time.Duration
	// board marks a scoreboard part's buffer (see boardBuf; 0: none).
	board uint8
}

// sendEvent queues a reliable event for c: it rides in c's next snapshot
// and again about a round trip after each time it is sent, until a
// snapshot carrying it is acknowledged.
func (s *Server) sendEvent(c *client, kind uint16, data []byte) {
	if len(c.events) > 0 && c.nextEventSeq-c.events[0].seq >= maxQueuedEvents {
		c.overflow = true // dropped at the end of the tick
		return
	}
	c.events = append(c.events, queuedEvent{seq: c.nextEventSeq, kind: kind, data: data})
	c.nextEventSeq++
	s.note(c, &c.events[len(c.events)-1], false)
}

// resendAfter returns how long c's events wait for an acknowledgement
// before they are sent again: the retransmission timeout of TCP (RFC
// 6298: smoothed round trip plus four deviations) and two snapshot
// intervals, the longest a client may hold a snapshot before the command
// that acknowledges it and the next snapshot that can carry an event
// again. Before any round trip is measured that leaves two snapshot
// intervals.
func (s *Server) resendAfter(c *client) time.Duration {
	return c.rtt.Smoothed() + 4*c.rtt.Var() + 2*time.Duration(c.snapEvery)*s.tickDur
}

// carriedEvents are the sequence numbers of the events one snapshot
// carried, for its acknowledgement to settle.
type carriedEvents struct {
	n   int
	seq [wire.MaxEvents]uint32
}

// fillEvents puts into c's next snapshot, in order, the events never sent
// and those whose last sending is resendAfter old, at most MaxEvents.
// They live in c.eventBuf until the next snapshot: eventsSent keeps their
// numbers.
func (s *Server) fillEvents(now time.Duration, c *client, snap *wire.Snapshot) {
	snap.FirstEventSeq = c.nextEventSeq
	snap.Events = c.eventBuf[:0]
	c.carried[s.tick%snapRing].n = 0
	s.refillTracers(c)
	wait := s.resendAfter(c)
	for i := range c.events {
		ev := &c.events[i]
		if ev.sent && now-ev.sentAt < wait {
			continue
		}
		if len(snap.Events) == 0 {
			snap.FirstEventSeq = ev.seq
		}
		snap.Events = append(snap.Events, wire.Event{Seq: ev.seq, Kind: ev.kind, Data: ev.data})
		if len(snap.Events) == wire.MaxEvents {
			break
		}
	}
}

// eventsSent notes that snap, sent at now, carried its events (those the
// encoder left in it), and lets go of them.
func (s *Server) eventsSent(now time.Duration, c *client, snap *wire.Snapshot) {
	carried := &c.carried[snap.Tick%snapRing]
	carried.n = len(snap.Events)
	i := 0
	for k, ev := range snap.Events {
		carried.seq[k] = ev.Seq
		for i < len(c.events) && c.events[i].seq != ev.Seq {
			i++
		}
		if i < len(c.events) {
			c.events[i].sent, c.events[i].sentAt = true, now
		}
	}
	clear(snap.Events) // c.eventBuf, reused by the next snapshot
	snap.Events = nil
}

// ackEvents forgets c's events that the acknowledged snapshot of slot
// carried.
func (s *Server) ackEvents(c *client, slot uint32) {
	carried := &c.carried[slot]
	acked := carried.seq[:carried.n]
	if len(acked) == 0 {
		return
	}
	kept, j := c.events[:0], 0
	for _, ev := range c.events {
		for j < len(acked) && int32(acked[j]-ev.seq) < 0 {
			j++ // an event acknowledged already
		}
		if j < len(acked) && acked[j] == ev.seq {
			s.note(c, &ev, true)
			continue
		}
		kept = append(kept, ev)
	}
	clear(c.events[len(kept):])
	c.events = kept
}
