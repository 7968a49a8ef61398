package server

import (
	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/wire"
)

// Tracers (Config.ShowTracers). A client draws its own shots from its
// prediction and learns of hits through rewind events, but another
// player's miss leaves no trace in its snapshots: the server tells the
// clients near each hitscan pellet where it flew, from the shooter's eye
// to where the ray stopped, in a wire.TracerEvent; a game's resolver
// shows the rays it traces that are such shots (ShotWorld.ShowTracer),
// by the same rules. Tracers only serve
// drawing, so they are sent sparingly and never at the cost of a game
// event or a client's place:
//
//   - only to clients whose eye lies within TracerReach of the pellet's
//     line, never to the shooter (which draws its own shots) nor, under
//     ShowRewind, to the victim of a hit (which the rewind event draws);
//   - at most MaxTracersPerSnapshot to a client between two of its
//     snapshots, the first fired first, and within a budget of
//     1/TracerShare of Config.Bandwidth: snapshots carry a client's
//     events before other players' states, so tracers beyond it would
//     crowd out the updates that keep the players it sees accurate;
//   - only while the client's queue of unacknowledged events is short
//     (under cosmeticEvents events, spanning under half the sequence
//     window that drops a client): a client that stops acknowledging
//     stops getting tracers long before its backlog could drop it.
//
// Tracers are not part of the game's state: they change no player,
// record or statistic.

// TracerReach is how far from a pellet's line, in metres, a client's eye
// may be and still be told of it.
const TracerReach = 30.0

// MaxTracersPerSnapshot bounds the tracer events queued for one client
// between two of its snapshots.
const MaxTracersPerSnapshot = 4

// TracerShare is the part of Config.Bandwidth tracers may take: one
// sixteenth, 1000 bytes per second at DefaultBandwidth, about 40
// tracers a second.
const TracerShare = 16

// tracerCost is the snapshot bytes a tracer event of data takes: its
// data, kind, length and alignment (as snapshotBudget counts an event).
func tracerCost(data []byte) int { return len(data) + 4 }

// refillTracers starts c's next snapshot interval: its count of tracers
// restarts and its tracer budget gains its share of the interval, saved
// up to MaxTracersPerSnapshot tracers' worth.
func (s *Server) refillTracers(c *client) {
	c.tracers = 0
	full := MaxTracersPerSnapshot * tracerCost(make([]byte, maxTracerData))
	if s.cfg.Bandwidth < 0 {
		c.tracerBytes = full
		return
	}
	c.tracerBytes = min(full, c.tracerBytes+s.cfg.Bandwidth*int(c.snapEvery)/s.cfg.TickRate/TracerShare)
}

// maxTracerData bounds the encoding of a tracer event on the maps that
// fit the wire's coordinates.
const maxTracerData = 26

// sendTracer tells the clients near the line from from to to, a shot by
// shooter with the weapon in slot weapon that hit player victim (-1:
// none), of it as a tracer, by the rules above: every shot a resolver
// shows (ShotWorld.ShowTracer), lagkit's pellets' as a game's.
func (s *Server) sendTracer(shooter int, weapon uint8, from, to geom.Vec3, victim int) {
	ev := wire.TracerEvent{Shooter: uint8(shooter), Weapon: weapon, From: game.SnapPos(from), To: game.SnapPos(to)}
	var data []byte
	for _, c := range s.clients {
		if c == nil || c.id == shooter || (c.id == victim && s.cfg.ShowRewind) {
			continue
		}
		eye := game.EyePos(c.state, s.cfg.Movement)
		if eye.Dist(geom.ClosestPointOnSegment(ev.From, ev.To, eye)) > TracerReach {
			continue
		}
		if data == nil {
			var err error
			if data, err = wire.AppendTracerEvent(nil, &ev); err != nil {
				return // beyond the wire's coordinates: nothing to draw
			}
		}
		if !s.tracerRoom(c, data) {
			continue
		}
		c.tracers++
		c.tracerBytes -= tracerCost(data)
		s.sendEvent(c, wire.EventTracer, data)
	}
}

// tracerRoom reports whether c may be sent the tracer event data before
// its next snapshot.
func (s *Server) tracerRoom(c *client, data []byte) bool {
	if c.tracers >= MaxTracersPerSnapshot || c.tracerBytes < tracerCost(data) || len(c.events) >= cosmeticEvents {
		return false
	}
	return len(c.events) == 0 || c.nextEventSeq-c.events[0].seq < maxQueuedEvents/2
}

// rayLength returns how far ray flies within maxDist before it meets the
// map's boxes, the ground or the edge of its bounds.
func (s *Server) rayLength(ray geom.Ray, maxDist float64) float64 {
	d := maxDist
	if wall, ok := s.cfg.Map.Grid.Raycast(ray, d); ok {
		d = wall.Dist
	}
	b := s.cfg.Map.Bounds
	o, dir := ray.Origin, ray.Dir
	for _, a := range [...][4]float64{
		{o.X, dir.X, b.Min.X, b.Max.X}, {o.Y, dir.Y, b.Min.Y, b.Max.Y}, {o.Z, dir.Z, b.Min.Z, b.Max.Z},
	} {
		// The distance to the face of this axis the ray leaves through.
		switch {
		case a[1] > 0:
			d = min(d, max(0, (a[3]-a[0])/a[1]))
		case a[1] < 0:
			d = min(d, max(0, (a[2]-a[0])/a[1]))
		}
	}
	return d
}
