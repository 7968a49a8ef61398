package server

import (
	"fmt"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/timewarp"
	"github.com/lagkit/lagkit/wire"
)

// Edit hands player id's authoritative state to edit, which may change
// any of it, the game's declared state (Config.Game's Schema.Of) above
// all: a grant of loot, a pickup taken back, a buff, a team's colours.
// The predicted fields too: the owner's client learns the new state
// from its next snapshot and predicts on from it, as it does after any
// correction (and counts the fields that changed as mispredicted once).
// The position and velocity are then snapped to the wire's grids and the
// pitch clamped, so that the state sent is the state kept; a game that
// moves a player discontinuously bumps Teleport, as Place does. Call it
// between ticks (realtime.MatchConfig.OnTick, a simulation's
// sim.Observer.ServerTicked) or from a resolver's Fire, through
// ShotWorld.Server (loot for a shot). Under time warp the
// fields the edit changed are a fact of the tick just run: a
// re-simulation that re-runs the player through that tick writes them
// again, with the values the edit gave them, into its re-simulated state
// (warpChange); the fields it left are re-simulated.
func (s *Server) Edit(id int, edit func(st *game.PlayerState)) error {
	switch {
	case id < 0 || id >= len(s.clients) || s.clients[id] == nil:
		return fmt.Errorf("server: edit %d: %w", id, ErrNoPlayer)
	}
	c := s.clients[id]
	before := c.state
	s.edit(c, edit)
	if s.warp != nil {
		if ed := timewarp.Diff(&before, &c.state, s.cfg.Game); !ed.Empty() {
			s.warpChange(c, timewarp.Change{Edit: ed})
		}
	}
	return nil
}

// edit runs edit on c's state and keeps the result sendable: Edit, and
// lagkit's own rules that write a player's state between its commands
// (the flag carrier's mark).
func (s *Server) edit(c *client, edit func(st *game.PlayerState)) {
	edit(&c.state)
	st := &c.state
	s.cfg.Game.Snap(&st.Game)
	st.Pos, st.Vel = game.SnapPos(st.Pos), snapVel(st.Vel)
	if !within(st.Pos, wire.MaxCoord*game.PosQuantum) {
		st.Pos = game.SnapPos(clampVec(st.Pos, (wire.MaxCoord-1)*game.PosQuantum))
	}
	if !within(st.Vel, wire.MaxCoord*game.VelQuantum) {
		st.Vel = snapVel(clampVec(st.Vel, (wire.MaxCoord-1)*game.VelQuantum))
	}
	st.Pitch = max(-game.MaxPitch, min(game.MaxPitch, st.Pitch))
}

// clampVec clamps each component of v to ±limit.
func clampVec(v geom.Vec3, limit float64) geom.Vec3 {
	c := func(x float64) float64 { return max(-limit, min(limit, x)) }
	return geom.V(c(v.X), c(v.Y), c(v.Z))
}

// maxHealth is the full health of player id in state st
// (Config.MaxHealth), at least 1.
func (s *Server) maxHealth(id int, st *game.PlayerState) int16 {
	if s.cfg.MaxHealth == nil {
		return game.MaxHealth
	}
	return max(1, s.cfg.MaxHealth(id, *st))
}

// respawned runs the game's respawn rule (Config.Spawn) on st, player
// c's state at a spawn or placement.
func (s *Server) respawned(c *client, st *game.PlayerState) {
	if s.cfg.Spawn != nil {
		s.cfg.Spawn(c.id, c.team, st)
		s.cfg.Game.Snap(&st.Game)
	}
}
