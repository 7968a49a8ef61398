package server

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/lagcomp"
	"github.com/lagkit/lagkit/wire"
)

// A game's own objects beside the players (crates, doors, vehicles) and
// its own players' bodies, which its shots are traced against
// (ShotWorld.Trace). An entity lives in a snapshot slot above the
// players' (MaxClients up to the last of Config.Shape's slots, 255 unless
// the shape declares more) and is replicated to
// every client as a player's state is, delta coded, its game values
// included (Config.Values), so that clients draw it interpolated
// (client.Client.Remote). With a body
// it is recorded each tick for lag compensation: TraceAt tests a ray
// against the entities, and the players when Config.Body or BodyOf is
// set, as they were at a past server time, with the game's own shapes
// as they were then: a body changes from tick to tick (BodyOf for a
// player, SetEntity for an entity) and is recorded with the pose.

// entity is a game entity of the server.
type entity struct {
	on    bool
	state game.PlayerState
	body  lagcomp.Body
}

// ErrNotEntitySlot is wrapped by the error of SetEntity for a slot
// outside MaxClients to the last of Config.Shape's slots.
var ErrNotEntitySlot = errors.New("server: not an entity slot")

// SetEntity puts a game entity in slot id (MaxClients up to
// wire.MaxEntities-1), or updates it: st is its state (position,
// velocity, yaw, flags, teleport count, its health when
// Config.Shape sends health to all, and the fields of its game state
// (Config.Game) sent to all; the other fields are not sent), body
// its shape for lag compensation (nil: never hit by TraceAt), which may
// change at any update (a door's leaf, a broken crate): each tick
// records the body set then, and TraceAt tests a past tick's. Its position and velocity
// are snapped to the wire's grids. It is sent from the next snapshot
// on.
func (s *Server) SetEntity(id int, st game.PlayerState, body lagcomp.Body) error {
	if n := s.cfg.Shape.SlotCount(); id < len(s.clients) || id >= n {
		return fmt.Errorf("%w: %d, want %d to %d", ErrNotEntitySlot, id, len(s.clients), n-1)
	}
	if s.cfg.Game == nil && st.Game != (game.State{}) {
		return fmt.Errorf("server: entity %d: game state set, but the server declares none of its own (Config.Game)", id)
	}
	if !within(st.Pos, wire.MaxCoord*game.PosQuantum) || !within(st.Vel, wire.MaxCoord*game.VelQuantum) {
		return fmt.Errorf("server: entity %d: position %v or velocity %v out of range", id, st.Pos, st.Vel)
	}
	if st.Pitch < -game.MaxPitch || st.Pitch > game.MaxPitch {
		return fmt.Errorf("server: entity %d: pitch %d out of range", id, st.Pitch)
	}
	if s.objects == nil {
		s.objects = make([]entity, s.cfg.Shape.SlotCount())
	}
	st.Pos, st.Vel = game.SnapPos(st.Pos), snapVel(st.Vel)
	e := &s.objects[id]
	if !e.on {
		s.objectIDs = append(s.objectIDs, id)
	}
	*e = entity{on: true, state: st, body: body}
	s.viewDirty = true
	if body != nil && s.rewind == nil {
		if err := s.startRewind(); err != nil {
			return err
		}
	}
	return nil
}

// RemoveEntity takes the game entity in slot id out of the world.
func (s *Server) RemoveEntity(id int) {
	if s.objects == nil || id < 0 || id >= len(s.objects) || !s.objects[id].on {
		return
	}
	s.objects[id] = entity{}
	s.viewDirty = true
	for k, o := range s.objectIDs {
		if o == id {
			s.objectIDs = append(s.objectIDs[:k], s.objectIDs[k+1:]...)
			break
		}
	}
}

// Entity returns the game entity in slot id.
func (s *Server) Entity(id int) (game.PlayerState, bool) {
	if s.objects == nil || id < 0 || id >= len(s.objects) || !s.objects[id].on {
		return game.PlayerState{}, false
	}
	return s.objects[id].state, true
}

// within reports whether v is finite and each component within
// ±limit, a little inside the wire's range.
func within(v geom.Vec3, limit float64) bool {
	limit *= 0.999
	return v.IsFinite() && math.Abs(v.X) < limit && math.Abs(v.Y) < limit && math.Abs(v.Z) < limit
}

// startRewind makes the history TraceAt rewinds.
func (s *Server) startRewind() error {
	r, err := lagcomp.NewRewinder(s.tickDur, s.cfg.MaxUnlag, s.cfg.Shape.SlotCount())
	if err != nil {
		return fmt.Errorf("server: %w", err)
	}
	s.rewind = r
	return nil
}

// recordBodies records the tick's poses of the entities and players
// with bodies.
func (s *Server) recordBodies() {
	if s.rewind == nil {
		return
	}
	s.rewind.Begin(s.tick)
	if b, of := s.cfg.Body, s.cfg.BodyOf; b != nil || of != nil {
		for _, c := range s.clients {
			if c == nil || c.state.Has(game.FlagDead) {
				continue
			}
			if of != nil {
				if b = of(c.id, c.state); b == nil {
					continue
				}
			}
			s.rewind.Record(c.id, bodyPose(&c.state), b)
		}
	}
	for _, id := range s.objectIDs {
		if e := &s.objects[id]; e.body != nil {
			s.rewind.Record(id, bodyPose(&e.state), e.body)
		}
	}
}

// bodyPose is the pose a body of state st is tested at.
func bodyPose(st *game.PlayerState) lagcomp.Pose { return lagcomp.PoseOf(*st) }

// TraceAt returns the first entity with a body, or player when
// Config.Body or BodyOf is set, that ray r (Dir a unit vector) hits within
// maxDist as they were at server time t (lag compensation: a shot's
// ShotWorld.Trace tests them at the time its policy chooses), skipping the ids skip reports (nil: none; a shooter
// skips itself), each with the body it had then (RewindHit.Body). The
// world does not block it: a game cuts maxDist at its world's first
// hit. Nothing has a body: no hit.
func (s *Server) TraceAt(r geom.Ray, maxDist float64, t time.Duration, skip func(id int) bool) (lagcomp.RewindHit, bool) {
	if s.rewind == nil {
		return lagcomp.RewindHit{}, false
	}
	return s.rewind.Trace(r, maxDist, t, skip)
}

// BodyAt returns the pose entity or player id had at server time t in
// the history TraceAt rewinds.
func (s *Server) BodyAt(id int, t time.Duration) (lagcomp.Pose, bool) {
	p, _, ok := s.ShapeAt(id, t)
	return p, ok
}

// ShapeAt returns the pose and the body entity or player id had at
// server time t in the history TraceAt rewinds.
func (s *Server) ShapeAt(id int, t time.Duration) (lagcomp.Pose, lagcomp.Body, bool) {
	if s.rewind == nil {
		return lagcomp.Pose{}, nil, false
	}
	return s.rewind.At(id, t)
}

// addObjects puts the game entities into snap.
func (s *Server) addObjects(snap *wire.Snapshot) {
	for _, id := range s.objectIDs {
		e := &s.objects[id]
		ent := wire.EntityFromState(e.state)
		ent.Stamp = s.tick
		if s.cfg.Shape.HealthToAll {
			ent.Health = e.state.Health
		}
		snap.Entities[id] = ent
		snap.SetPresent(id, true)
		if snap.EntityGame != nil {
			snap.EntityGame[id] = e.state.Game
		}
	}
}
