package client

import "github.com/lagkit/lagkit/wire"

// What the server tells a client for its player's screen (wire's name,
// place and server events): the other players' names, the way the server
// turned the player when it placed it (Ready's Placements), and what the
// server measured of itself and of this client's link over the last
// second.

// pageInfo is what the client core keeps of those events.
type pageInfo struct {
	names     map[uint8]string
	server    wire.ServerEvent
	hasServer bool
}

// pageEvent handles a name, place or server event; it reports whether
// kind was one of them.
func (c *Client) pageEvent(kind uint16, data []byte) bool {
	p := &c.page
	switch kind {
	case wire.EventName:
		var e wire.NameEvent
		if wire.DecodeNameEvent(data, &e) != nil {
			c.stats.Malformed++
			return true
		}
		if p.names == nil {
			p.names = make(map[uint8]string)
		}
		p.names[e.Player] = e.Name
	case wire.EventPlace:
		var e wire.PlaceEvent
		if wire.DecodePlaceEvent(data, &e) != nil {
			c.stats.Malformed++
			return true
		}
		c.ready.cur.Placements = append(c.ready.cur.Placements, e)
	case wire.EventServer:
		var e wire.ServerEvent
		if wire.DecodeServerEvent(data, &e) != nil {
			c.stats.Malformed++
			return true
		}
		p.server, p.hasServer = e, true
	default:
		return false
	}
	return true
}

// PlayerName returns the name the server gave the player in slot id,
// and whether it gave one.
func (c *Client) PlayerName(id int) (string, bool) {
	if id < 0 || id > 255 {
		return "", false
	}
	n, ok := c.page.names[uint8(id)]
	return n, ok
}

// ServerInfo returns the newest server event: the server's tick time and
// tick-start lateness, the latency injected into this client's link, its
// commands' loss and the lag compensation policy in force; false before
// the first (a server whose driver does not report its ticks sends none).
func (c *Client) ServerInfo() (wire.ServerEvent, bool) { return c.page.server, c.page.hasServer }
