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
	if !due && (r.Flags != e.Flags || turn > s.cfg.Replication.TurnDeg) {
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
