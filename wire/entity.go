package wire

import (
	"math"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
)

// EntityFromState quantises a player's state for replication to others.
// Positions already lie on the game.PosQuantum grid, so this is exact.
// Health is left zero: a server sets it only in a session that sends it
// to all (Shape.HealthToAll).
func EntityFromState(s game.PlayerState) EntityState {
	return EntityState{
		X:        int32(math.Round(s.Pos.X / game.PosQuantum)),
		Y:        int32(math.Round(s.Pos.Y / game.PosQuantum)),
		Z:        int32(math.Round(s.Pos.Z / game.PosQuantum)),
		VX:       int32(math.Round(s.Vel.X / game.VelQuantum)),
		VY:       int32(math.Round(s.Vel.Y / game.VelQuantum)),
		VZ:       int32(math.Round(s.Vel.Z / game.VelQuantum)),
		Yaw:      s.Yaw,
		Pitch:    s.Pitch,
		Flags:    s.Flags,
		Teleport: s.Teleport,
	}
}

// State returns the replicated part of a player's state.
func (e EntityState) State() game.PlayerState {
	var st game.PlayerState
	e.StateInto(&st)
	return st
}

// StateInto sets *st to e.State(), field by field where it lies: a
// receiver keeping many states writes each in place, not through a
// copy.
func (e *EntityState) StateInto(st *game.PlayerState) {
	*st = game.PlayerState{}
	st.Pos = geom.V(float64(e.X)*game.PosQuantum, float64(e.Y)*game.PosQuantum,
		float64(e.Z)*game.PosQuantum)
	st.Vel = geom.V(float64(e.VX)*game.VelQuantum, float64(e.VY)*game.VelQuantum,
		float64(e.VZ)*game.VelQuantum)
	st.Yaw, st.Pitch, st.Flags, st.Teleport, st.Health = e.Yaw, e.Pitch, e.Flags, e.Teleport, e.Health
}
