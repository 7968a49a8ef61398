package server

import (
	"math"
	"math/bits"

	"github.com/lagkit/lagkit/seal"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/reckoning"
	"github.com/lagkit/lagkit/wire"
)

// DefaultBandwidth is Config.Bandwidth's default: 16000 bytes per second
// (128 kbit/s) of snapshots per client.
const DefaultBandwidth = 16000

// datagramHeader is the IPv4 and UDP header bytes each datagram costs on
// the wire, which Config.Bandwidth counts.
const datagramHeader = 28

// Priority weights per snapshot (see weight): a player within nearRange
// gains the most, one at fullRange or further a quarter of that, and
// one outside the client's field of view half as much again.
const (
	nearRange  = 10.0 // metres
	fullRange  = 4 * nearRange
	nearWeight = 64
)

// encodeSnapshot encodes snap, delta encoded against base, for c within
// c's share of Config.Bandwidth. Other players' states compete for the
// room by priority in the manner of Glenn Fiedler's priority accumulator
// ("State Synchronization", gafferongames.com, 2015): each snapshot a
// player whose state the client lacks gains a weight (see weight), the
// ones with most priority go first, and a player sent starts again from
// nothing while one left out keeps what it gained, so every state
// reaches the client, the near and visible ones more often. A state left
// out is not lost: the client keeps the one it holds, stamped with its
// own tick, and draws the player from the states it has. The server's
// own history stays exact; only what clients see changes.
func (s *Server) encodeSnapshot(c *client, snap, base *wire.Snapshot) ([]byte, error) {
	budget := s.snapshotBudget(c, snap)
	if budget == 0 || c.senders != nil {
		if c.senders == nil {
			for _, w := range snap.Present {
				c.updatesSent += bits.OnesCount64(w) // every state in every snapshot
			}
		}
		return wire.AppendSnapshot(c.out[:0], snap, base, wire.MaxDatagram)
	}
	if c.prio == nil {
		c.prio = make([]uint32, s.cfg.Shape.SlotCount())
	}
	if !c.overBudget {
		// Most snapshots fit, and then every state goes and priorities
		// start again from nothing: weigh them only when one does not.
		out, err := wire.AppendSnapshot(c.out[:0], snap, base, wire.MaxDatagram)
		if err != nil || len(out) <= budget {
			if err == nil {
				s.sent(c, snap, out)
			}
			return out, err
		}
	}
	yaw := float64(c.state.Yaw) * 2 * math.Pi / game.AngleUnits
	v := view{fx: math.Cos(yaw), fy: math.Sin(yaw), cos: math.Cos(float64(s.cfg.Settings.FOVDeg) * math.Pi / 360)}
	for _, o := range s.clients {
		if o == nil || o == c {
			continue
		}
		// weigh's body, written out: a call per player per client per
		// tick costs the server's tick as much as the weighing.
		p := &c.prio[o.id]
		if base == nil || !base.Has(o.id) {
			*p = wire.PriorityUrgent // appearing
			continue
		}
		held := &base.Entities[o.id]
		e := &snap.Entities[o.id]
		if e.Teleport != held.Teleport || (e.Flags^held.Flags)&game.FlagDead != 0 {
			*p = wire.PriorityUrgent
			continue
		}
		w := v.weight(c, o.state.Pos)
		if e.X == held.X && e.Y == held.Y && e.Z == held.Z && e.Yaw == held.Yaw && e.Pitch == held.Pitch && e.Flags == held.Flags && e.Health == held.Health {
			// Standing still: only its stamp and velocity are new.
			w = max(1, w/4)
		}
		*p = min(*p, wire.PriorityUrgent-1-w) + w
	}
	// The game's entities gain priority as the players do, so that none
	// is left out for good when they are many.
	for _, id := range s.objectIDs {
		weigh(c, id, v.weight(c, s.objects[id].state.Pos), snap, base)
	}
	out, err := wire.AppendSnapshotBudget(c.out[:0], snap, base, wire.MaxDatagram, budget, c.prio)
	if err == nil {
		s.sent(c, snap, out)
	}
	return out, err
}

// weigh adds to c's priority of slot id in snap, against base, the
// weight w of its place in c's view: urgent when the slot appears,
// teleports or dies, a quarter when it stands still (as encodeSnapshot
// weighs the players).
func weigh(c *client, id int, w uint32, snap, base *wire.Snapshot) {
	p := &c.prio[id]
	if base == nil || !base.Has(id) {
		*p = wire.PriorityUrgent // appearing
		return
	}
	held := &base.Entities[id]
	e := &snap.Entities[id]
	if e.Teleport != held.Teleport || (e.Flags^held.Flags)&game.FlagDead != 0 {
		*p = wire.PriorityUrgent
		return
	}
	if e.X == held.X && e.Y == held.Y && e.Z == held.Z && e.Yaw == held.Yaw && e.Pitch == held.Pitch && e.Flags == held.Flags && e.Health == held.Health {
		// Standing still: only its stamp and velocity are new.
		w = max(1, w/4)
	}
	*p = min(*p, wire.PriorityUrgent-1-w) + w
}

// stampEntities quantises every player's state once a tick, stamped
// with the tick, for all the snapshots of the tick to share.
func (s *Server) stampEntities() {
	if len(s.entities) != len(s.clients) {
		s.entities = make([]wire.EntityState, len(s.clients))
	}
	for _, o := range s.clients {
		if o != nil {
			e := wire.EntityFromState(o.state)
			e.Stamp = s.tick
			if s.cfg.Shape.HealthToAll {
				e.Health = o.state.Health
			}
			s.entities[o.id] = e
		}
	}
}

// sent spends c's credit on snapshot snap, encoded as out, and starts
// the priority of each state it carries again from nothing.
func (s *Server) sent(c *client, snap *wire.Snapshot, out []byte) {
	c.credit -= len(out) + c.header()
	c.overBudget = false
	for _, o := range s.clients {
		if o == nil || o == c || !snap.Has(o.id) {
			continue
		}
		if snap.Entities[o.id].Stamp == s.tick {
			c.prio[o.id] = 0
			c.updatesSent++
		} else {
			c.overBudget = true // one was left out
		}
	}
	for _, id := range s.objectIDs {
		switch {
		case !snap.Has(id):
			c.overBudget = true // appearing, and left out
		case snap.Entities[id].Stamp == s.tick:
			if c.prio != nil {
				c.prio[id] = 0
			}
		default:
			c.overBudget = true
		}
	}
}

// snapshotBudget returns the bytes c's next snapshot, snap, may take, 0
// for no limit: a token bucket. Each snapshot adds its share of
// Config.Bandwidth to c's credit and spends what it took, events and
// all. Credit saved is capped at a quarter second of Bandwidth, so that a
// snapshot swollen by events (hits repeated until a far client
// acknowledges them, a scoreboard for every player) passes whole when the
// client is under its budget on average; debt is capped at eight
// snapshots' share, so that what the floor below and urgent states
// spend past the credit is paid back by the snapshots after it, not
// forgiven (at four shares, a 64-player match over a lossy link forgave
// a third of a share a snapshot and overran Bandwidth). Whatever the debt, other players' states get half a
// share beside snap's events, so that events repeated until a far or
// lossy client acknowledges them do not hold every player's state back
// for a round trip.
func (s *Server) snapshotBudget(c *client, snap *wire.Snapshot) int {
	if s.cfg.Bandwidth < 0 {
		return 0
	}
	share := s.cfg.Bandwidth * int(c.snapEvery) / s.cfg.TickRate
	c.credit = min(max(c.credit, -8*share)+share, max(s.cfg.Bandwidth/4, share))
	floor := share / 2
	for _, ev := range snap.Events {
		floor += len(ev.Data) + 4 // its kind, length and alignment
	}
	return min(max(c.credit-c.header(), floor), wire.MaxDatagram)
}

// header is what each datagram to c costs on the wire beyond its
// message: the IPv4 and UDP headers, and a sealed session's sequence
// number and tag.
func (c *client) header() int {
	if c.seal != nil {
		return datagramHeader + seal.Overhead
	}
	return datagramHeader
}

// view is a client's horizontal view direction and the cosine of half
// its field of view.
type view struct{ fx, fy, cos float64 }

// weight returns the priority a player or entity at pos gains in a
// snapshot to c, whose view v is: what is near c matters most, and what
// c cannot see, outside its field of view, half as much.
func (v view) weight(c *client, pos geom.Vec3) uint32 {
	d := pos.Sub(c.state.Pos)
	// Map coordinates are far from overflow: math.Hypot's scaling would
	// only cost time, 128 x 127 times a tick at 128 players.
	dist := math.Sqrt(d.X*d.X + d.Y*d.Y)
	w := nearWeight * nearRange / max(nearRange, min(dist, fullRange))
	if dist > 0 && d.X*v.fx+d.Y*v.fy < v.cos*dist {
		w /= 2
	}
	return uint32(w)
}

// replicate returns what client c is told of player o under threshold
// replication: o's current state e if an update is due, else the state
// last sent, stamped with its tick.
func (s *Server) replicate(c, o *client, e wire.EntityState) wire.EntityState {
	r := &c.rep[o.id]
	snd := &c.senders[o.id]
	if !c.repSent[o.id] {
		*snd = reckoning.Sender{Policy: s.cfg.Replication.For(o.team), Order: s.cfg.Replication.Order, Heartbeat: s.cfg.Replication.Heartbeat}
	}
	st := reckoning.State{T: s.Time(), Pos: o.state.Pos, Vel: o.state.Vel}
	// A teleport (or the first state) is taken at once, as the client
	// does; a turn or a change of stance or flags is sent and blended
	// into like any update.
	jump := !c.repSent[o.id] || r.Teleport != e.Teleport
	turn := math.Abs(float64(int16(e.Yaw-r.Yaw))) * 360 / game.AngleUnits
	_, due := snd.Step(st, jump)
	if !due && (r.Flags != e.Flags || r.Health != e.Health || turn > s.cfg.Replication.TurnDeg) {
		snd.Send(st)
		due = true
	}
	if due {
		*r = e
		r.Stamp = s.tick
		c.repSent[o.id] = true
		c.updatesSent++
	}
	return *r
}

// For returns the policy for the players of team.
func (r Replication) For(team int) reckoning.Policy {
	if team >= 0 && team < len(r.Teams) && r.Teams[team] != nil {
		return r.Teams[team]
	}
	return r.Policy
}
