package server

import (
	"time"

	"github.com/lagkit/lagkit/wire"
)

// What a player's screen needs beyond the game's rules (wire.NameEvent,
// PlaceEvent, ServerEvent): the names of the players, the way the server
// turned the player when it placed it, and, once a driver reports its
// ticks' timing (SetLoad), what the server measures of itself and of
// each client's link, once a second.

// pageLink is what the server keeps of one client for its server events.
type pageLink struct {
	lost0 int    // cmdsLost at the last server event
	exec0 uint32 // lastExec at the last server event
	buf   []byte // the last server event's data, reused once acknowledged
}

// serverLoad is the driver's report of the ticks' timing since the last
// server events: the longest tick and the latest start.
type serverLoad struct {
	on         bool
	tick, late time.Duration
}

// announceName tells every client the name of c, which has just taken
// its slot, and c the name of every other player.
func (s *Server) announceName(c *client) {
	data, err := wire.AppendNameEvent(nil, &wire.NameEvent{Player: uint8(c.id), Name: c.name})
	if err != nil {
		return // Connect.Name holds at most MaxName bytes of UTF-8: cannot happen
	}
	for _, o := range s.clients {
		if o == nil {
			continue
		}
		s.sendEvent(o, wire.EventName, data)
		if o == c {
			continue
		}
		if od, err := wire.AppendNameEvent(nil, &wire.NameEvent{Player: uint8(o.id), Name: o.name}); err == nil {
			s.sendEvent(c, wire.EventName, od)
		}
	}
}

// tellPlace tells c the way the server turned it when it placed it.
func (s *Server) tellPlace(c *client) {
	data, err := wire.AppendPlaceEvent(nil, &wire.PlaceEvent{Teleport: c.state.Teleport, Yaw: c.state.Yaw, Pitch: c.state.Pitch})
	if err == nil {
		s.sendEvent(c, wire.EventPlace, data)
	}
}

// SetLoad reports how long the server's last tick took to compute and
// how late it started, as its driver measured them (the core keeps no
// clock). From the first report on, every client gets a server event
// once a second with the longest tick and the latest start reported
// since the one before.
func (s *Server) SetLoad(tickTime, late time.Duration) {
	l := &s.load
	l.on = true
	l.tick = max(l.tick, tickTime)
	l.late = max(l.late, late)
}

// SetEmulated reports the one-way latency a driver's network emulation
// adds to slot id's link, up (client to server) and down, for the
// slot's server events. It holds for the slot until reported again.
func (s *Server) SetEmulated(id int, up, down time.Duration) {
	if id < 0 || id >= len(s.clients) {
		return
	}
	if s.emulated == nil {
		s.emulated = make([][2]time.Duration, len(s.clients))
	}
	s.emulated[id] = [2]time.Duration{max(up, 0), max(down, 0)}
}

// sendServerEvents sends every client a server event, once SetLoad has
// been called, and starts the next second's load. A client whose last
// server event is still unacknowledged gets none this second: its buffer
// is reused, so that a tick allocates nothing in a steady state.
func (s *Server) sendServerEvents() {
	l := &s.load
	if !l.on {
		return
	}
	ev := wire.ServerEvent{TickTime: min(l.tick, wire.MaxClock), TickLate: min(l.late, wire.MaxClock), Policy: s.policy.Name()}
	if len(ev.Policy) > wire.MaxPolicyName {
		ev.Policy = ev.Policy[:wire.MaxPolicyName]
	}
	l.tick, l.late = 0, 0
	for _, c := range s.clients {
		if c == nil || s.serverEventHeld(c) {
			continue
		}
		ev.EmulatedUp, ev.EmulatedDown = 0, 0
		if s.emulated != nil {
			ev.EmulatedUp, ev.EmulatedDown = min(s.emulated[c.id][0], wire.MaxClock), min(s.emulated[c.id][1], wire.MaxClock)
		}
		ev.HeldUp, ev.HeldDown = s.delay.Added(c.id), s.delay.SnapshotHold(c.id)
		p := &c.page
		ev.LossOut = 0
		if n := c.lastExec - p.exec0; n > 0 && p.exec0 != 0 {
			ev.LossOut = uint16(min(1000, (c.cmdsLost-p.lost0)*1000/int(n)))
		}
		p.lost0, p.exec0 = c.cmdsLost, c.lastExec
		data, err := wire.AppendServerEvent(p.buf[:0], &ev)
		if err != nil {
			continue
		}
		p.buf = data
		s.sendEvent(c, wire.EventServer, data)
	}
}

// serverEventHeld reports whether c's queue holds a server event.
func (s *Server) serverEventHeld(c *client) bool {
	for i := range c.events {
		if c.events[i].kind == wire.EventServer {
			return true
		}
	}
	return false
}
