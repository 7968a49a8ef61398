package server

import (
	"errors"
	"fmt"
	"time"

	"github.com/lagkit/lagkit/wire"
)

// A game's own events, both ways (see wire.EventGameMin): the server
// sends them to a client in its snapshots, reliably and in order, as it
// sends lagkit's own events, and takes a client's from GameEvents
// datagrams, in order, acknowledging each datagram with the number of
// the last event taken (wire.GameEventAck), which the client resends
// until acknowledged. The game reads what arrived with GameEvents.

// maxGameInbox bounds the client events the server holds for the game
// between two GameEvents calls, over all clients. When it is full the
// server takes no more: it acknowledges none of them, so their clients
// send them again later and nothing is lost.
const maxGameInbox = 1024

// maxGameInboxBytes bounds the bytes of their Data.
const maxGameInboxBytes = 64 << 10

// GameEvent is a game's event a client sent.
type GameEvent struct {
	// Client is the sender's slot, at the time the event arrived.
	Client int
	// Seq numbers the client's events of its session from 1 up.
	Seq  uint32
	Kind uint16
	// Data is valid until the next GameEvents call.
	Data []byte
}

// gameInbox holds the client events for the game: in, being filled,
// and out, the last batch GameEvents returned, whose buffers are reused
// at the next call.
type gameInbox struct {
	in, out         []GameEvent
	inData, outData []byte
	scratch         wire.GameEvents
	ack             []byte
}

// ErrNotGameEvent is wrapped by the error SendEvent and BroadcastEvent
// return for an event kind below wire.EventGameMin, which is lagkit's.
var ErrNotGameEvent = errors.New("server: event kind is lagkit's, not a game's")

// ErrEventBacklog is wrapped by the error SendEvent returns when the
// client has wire.MaxEventWindow events unacknowledged.
var ErrEventBacklog = errors.New("server: client has too many unacknowledged events")

// SendEvent queues a game event of kind (at least wire.EventGameMin)
// for the client in slot id: it rides in the client's next snapshot and
// again about a round trip after each time it is sent, until
// acknowledged, and the client delivers it once, in order with the
// others (client.Client.GameEvents). data (at most
// wire.MaxGameEventData bytes) is copied.
func (s *Server) SendEvent(id int, kind uint16, data []byte) error {
	if err := checkGameEvent(kind, data); err != nil {
		return err
	}
	if id < 0 || id >= len(s.clients) || s.clients[id] == nil {
		return fmt.Errorf("server: send event: no client in slot %d", id)
	}
	c := s.clients[id]
	if len(c.events) > 0 && c.nextEventSeq-c.events[0].seq >= maxQueuedEvents {
		return fmt.Errorf("server: send event to %d: %w", id, ErrEventBacklog)
	}
	s.sendEvent(c, kind, append([]byte(nil), data...))
	return nil
}

// BroadcastEvent queues a game event for every client, as SendEvent,
// sharing one copy of data. A client with a full backlog misses it; the
// error then names the first.
func (s *Server) BroadcastEvent(kind uint16, data []byte) error {
	if err := checkGameEvent(kind, data); err != nil {
		return err
	}
	data = append([]byte(nil), data...)
	var first error
	for _, c := range s.clients {
		if c == nil {
			continue
		}
		if len(c.events) > 0 && c.nextEventSeq-c.events[0].seq >= maxQueuedEvents {
			if first == nil {
				first = fmt.Errorf("server: broadcast event to %d: %w", c.id, ErrEventBacklog)
			}
			continue
		}
		s.sendEvent(c, kind, data)
	}
	return first
}

func checkGameEvent(kind uint16, data []byte) error {
	if !wire.IsGameEvent(kind) {
		return fmt.Errorf("kind %d: %w", kind, ErrNotGameEvent)
	}
	if len(data) > wire.MaxGameEventData {
		return fmt.Errorf("server: event of %d bytes exceeds wire.MaxGameEventData", len(data))
	}
	return nil
}

// take hands over the events that arrived since the previous handover
// (Ready.GameEvents), valid until the next.
func (g *gameInbox) take() []GameEvent {
	g.in, g.out = g.out[:0], g.in
	g.inData, g.outData = g.outData[:0], g.inData
	return g.out
}

// gameEventsDatagram takes a client's GameEvents datagram: the events
// after the last one taken, in order, as far as the inbox has room, and
// answers with the number of the last one taken.
func (s *Server) gameEventsDatagram(now time.Duration, from Peer, data []byte) error {
	id, ok := s.byPeer[from]
	if !ok {
		return fmt.Errorf("server: game events: %w", ErrNoSession)
	}
	g := &s.games
	m := &g.scratch
	if err := wire.DecodeGameEvents(data, m); err != nil {
		return s.malformed(err)
	}
	c := s.clients[id]
	c.lastHeard = now
	for _, ev := range m.Events {
		if ev.Seq != c.gameIn+1 {
			continue // taken before, or after one not yet taken
		}
		if len(g.in) == maxGameInbox || len(g.inData)+len(ev.Data) > maxGameInboxBytes {
			s.stats.GameEventsDeferred++
			break
		}
		start := len(g.inData)
		g.inData = append(g.inData, ev.Data...)
		g.in = append(g.in, GameEvent{Client: id, Seq: ev.Seq, Kind: ev.Kind, Data: g.inData[start:len(g.inData):len(g.inData)]})
		c.gameIn++
	}
	clear(m.Events) // no references into the datagram's buffer
	g.ack = wire.AppendGameEventAck(g.ack[:0], &wire.GameEventAck{Through: c.gameIn})
	s.queue(c.peer, g.ack)
	return nil
}
