package wire

import (
	"math"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
)

// EntityFromState quantises a player's state for replication to others.
// Positions already lie on the game.PosQuantum grid, so this is exact.
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
	return game.PlayerState{
		Pos: geom.V(float64(e.X)*game.PosQuantum, float64(e.Y)*game.PosQuantum,
			float64(e.Z)*game.PosQuantum),
		Vel: geom.V(float64(e.VX)*game.VelQuantum, float64(e.VY)*game.VelQuantum,
			float64(e.VZ)*game.VelQuantum),
		Yaw:      e.Yaw,
		Pitch:    e.Pitch,
		Flags:    e.Flags,
		Teleport: e.Teleport,
	}
}
