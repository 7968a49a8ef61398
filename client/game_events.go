package client

import (
	"errors"
	"fmt"
	"time"

	"github.com/lagkit/lagkit/wire"
)

// A game's own events, both ways (see wire.EventGameMin). Those the
// server sends arrive in snapshots, in order and once, and are handed
// over in Ready's GameEvents. Those the client sends (SendEvent) go out in a GameEvents
// datagram at the next Tick and again, a retransmission timeout after
// each sending, until the server acknowledges them.

// MaxPendingGameEvents bounds the game events a client holds until the
// server acknowledges them; SendEvent refuses more.
const MaxPendingGameEvents = 64

// ErrGameEventBacklog is wrapped by the error SendEvent returns when
// MaxPendingGameEvents events wait for the server's acknowledgement.
var ErrGameEventBacklog = errors.New("client: too many game events unacknowledged")

// pendingEvent is a game event not yet acknowledged.
type pendingEvent struct {
	ev     wire.Event
	sent   bool
	sentAt time.Duration
}

// gameEvents is the client's side of the game's events.
type gameEvents struct {
	pending []pendingEvent
	next    uint32 // the sequence number of the next event sent, from 1
	buf     []byte
	batch   []wire.Event
}

// SendEvent queues a game event of kind (at least wire.EventGameMin)
// for the server, which receives it once and in order with the others
// (server.Server.GameEvents). data (at most wire.MaxGameEventData bytes)
// is copied. Only a connected client sends events.
func (c *Client) SendEvent(kind uint16, data []byte) error {
	switch {
	case c.phase != Connected:
		return errors.New("client: send event: not connected")
	case !wire.IsGameEvent(kind):
		return fmt.Errorf("client: send event: kind %d is lagkit's, want %d up", kind, wire.EventGameMin)
	case len(data) > wire.MaxGameEventData:
		return fmt.Errorf("client: send event: %d bytes exceed wire.MaxGameEventData", len(data))
	case len(c.games.pending) >= MaxPendingGameEvents:
		return ErrGameEventBacklog
	}
	g := &c.games
	if g.next == 0 {
		g.next = 1
	}
	g.pending = append(g.pending, pendingEvent{ev: wire.Event{Seq: g.next, Kind: kind, Data: append([]byte(nil), data...)}})
	g.next++
	return nil
}

// PendingGameEvents returns how many game events wait for the server's
// acknowledgement.
func (c *Client) PendingGameEvents() int { return len(c.games.pending) }

// sendGameEvents sends, from the first pending event never sent or not
// sent for a retransmission timeout, as many consecutive pending events
// as one datagram holds.
func (c *Client) sendGameEvents(now time.Duration) {
	g := &c.games
	if len(g.pending) == 0 {
		return
	}
	wait := c.rtt.Smoothed() + 4*c.rtt.Var() + 2*c.tickDur
	from := -1
	for i := range g.pending {
		if p := &g.pending[i]; !p.sent || now-p.sentAt >= wait {
			from = i
			break
		}
	}
	if from < 0 {
		return
	}
	g.batch = g.batch[:0]
	size := 6
	for i := from; i < len(g.pending) && len(g.batch) < wire.MaxGameEvents; i++ {
		p := &g.pending[i]
		size += 4 + len(p.ev.Data)
		if size > wire.MaxDatagram && len(g.batch) > 0 {
			break
		}
		g.batch = append(g.batch, p.ev)
		p.sent, p.sentAt = true, now
	}
	buf, err := wire.AppendGameEvents(g.buf[:0], &wire.GameEvents{First: g.pending[from].ev.Seq, Events: g.batch})
	clear(g.batch)
	if err != nil {
		c.stats.EncodeErrors++ // checked by SendEvent: not reached
		return
	}
	g.buf = buf
	c.send(buf)
}

// gameEventAck lets go of the events the server acknowledged.
func (c *Client) gameEventAck(data []byte) error {
	var m wire.GameEventAck
	if err := wire.DecodeGameEventAck(data, &m); err != nil {
		c.stats.Malformed++
		return err
	}
	g := &c.games
	n := 0
	for n < len(g.pending) && int32(m.Through-g.pending[n].ev.Seq) >= 0 {
		n++
	}
	g.pending = append(g.pending[:0], g.pending[n:]...)
	return nil
}
