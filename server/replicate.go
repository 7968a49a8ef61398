package server

import (
	"math"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/reckoning"
	"github.com/lagkit/lagkit/wire"
)

// replicate returns what client c is told of player o under threshold
// replication: o's current state e if an update is due, else the state
// last sent, stamped with its tick.
func (s *Server) replicate(c, o *client, e wire.EntityState) wire.EntityState {
	r := &c.rep[o.id]
	turn := math.Abs(float64(int16(e.Yaw-r.Yaw))) * 360 / game.AngleUnits
	force := !c.repSent[o.id] || r.Teleport != e.Teleport || r.Flags != e.Flags || turn > s.cfg.Replication.TurnDeg
	snd := &c.senders[o.id]
	if !c.repSent[o.id] {
		*snd = reckoning.Sender{Policy: s.cfg.Replication.Policy, Order: s.cfg.Replication.Order, Heartbeat: s.cfg.Replication.Heartbeat}
	}
	st := reckoning.State{T: s.Time(), Pos: o.state.Pos, Vel: o.state.Vel}
	if _, due := snd.Step(st, force); due {
		*r = e
		r.Stamp = s.tick
		c.repSent[o.id] = true
		c.updatesSent++
	}
	return *r
}
