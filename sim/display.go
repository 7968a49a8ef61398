package sim

import (
	"time"

	"github.com/lagkit/lagkit/client"
	"github.com/lagkit/lagkit/lagcomp"
	"github.com/lagkit/lagkit/server"
)

// udpIPv4Header is the IPv4 and UDP header bytes each datagram costs on
// the wire; reported bandwidth includes it.
const udpIPv4Header = 28

// WireBytes returns the bytes the server sent a client on the wire:
// its datagrams and their IPv4 and UDP headers.
func WireBytes(info server.ClientInfo) int {
	return info.BytesSent + info.PacketsSent*udpIPv4Header
}

// DisplayError measures how far a client draws remote players from
// where the server had them: at each call, for every remote player the
// client draws, the distance between the drawn position at the client's
// view time and the server's record at that time (players who
// teleported in between are left out). Whatever the display mode
// (interpolation, extrapolation, dead reckoning), this is the error a
// person looking at the screen sees. The zero DisplayError is empty.
type DisplayError struct {
	Sum float64 // metres, summed over the samples
	N   int     // samples
	ids []int
}

// Observe adds the samples of client c at now against the server's
// history h; a client not yet connected adds none.
func (e *DisplayError) Observe(now time.Duration, c *client.Client, h *lagcomp.History) {
	if c.Phase() != client.Connected {
		return
	}
	vt := c.ViewTime(now)
	at := h.Instant(vt)
	e.ids = c.RemoteIDs(e.ids[:0])
	for _, id := range e.ids {
		drawn, drawnTeleport, ok1 := c.RemotePos(id, vt)
		truth, teleport, ok2 := at.PosAt(id)
		if ok1 && ok2 && drawnTeleport == teleport {
			e.Sum += drawn.Dist(truth)
			e.N++
		}
	}
}

// Mean returns the mean error in metres, or 0 without samples.
func (e *DisplayError) Mean() float64 {
	if e.N == 0 {
		return 0
	}
	return e.Sum / float64(e.N)
}
