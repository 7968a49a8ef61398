package client

import "github.com/lagkit/lagkit/wire"

// The client tells the server its SBC detection of every hit on its
// player (HitReport.SBC) as a wire.Sighting riding on its command
// packets: a study records it as the objective shot behind cover of
// [alc], the victim's own judgment, which only the victim's client can
// make (it alone has the predicted pose the hit arrived on). Each
// sighting goes in sightingCopies consecutive command packets, as each
// command goes in several (Config.Redundancy), so that a lost packet
// loses none; the server takes the first copy and ignores the rest.
const sightingCopies = 3

// maxPendingSightings bounds the sightings waiting to be sent: a command
// packet carries wire.MaxSightings, so more than this many hits within a
// few ticks lose their oldest sightings (the server then records those
// hits as unjudged).
const maxPendingSightings = 32

// pendingSighting is a sighting and how many packets have carried it.
type pendingSighting struct {
	s      wire.Sighting
	copies int
}

// sighted queues the sighting of hit h, with its SBC detection sbc, for
// the next command packets.
func (c *Client) sighted(h *wire.HitEvent, sbc bool) {
	if len(c.sightings) == maxPendingSightings {
		c.sightings = append(c.sightings[:0], c.sightings[1:]...)
		c.stats.SightingsDropped++
	}
	c.sightings = append(c.sightings, pendingSighting{s: wire.Sighting{Shooter: h.Shooter, ShotTick: h.ShotTick, Part: h.Part, SBC: sbc}})
}

// nextSightings fills batch with the oldest pending sightings, at most
// wire.MaxSightings, for the command packet being sent.
func (c *Client) nextSightings(batch *[wire.MaxSightings]wire.Sighting) []wire.Sighting {
	n := min(len(c.sightings), wire.MaxSightings)
	for i := range n {
		batch[i] = c.sightings[i].s
	}
	return batch[:n]
}

// sentSightings counts a packet carrying the first n pending sightings
// and forgets those sent sightingCopies times.
func (c *Client) sentSightings(n int) {
	keep := c.sightings[:0]
	for i, p := range c.sightings {
		if i < n {
			if p.copies == 0 {
				c.stats.Sightings++
				c.ready.cur.Sightings = append(c.ready.cur.Sightings, p.s)
			}
			p.copies++
		}
		if p.copies < sightingCopies {
			keep = append(keep, p)
		}
	}
	c.sightings = keep
}
