package game

import "unsafe"

// MatchView is what a step sees of the match beyond its own player
// (StepCtx.View): the game's entities, each by its slot, and the game's
// match state, both as the tick the command runs in began. The server
// and the client fill it; a step only reads it, through methods that
// are safe on a nil view (none: no entities, a zero match state).
//
// What each side sees:
//
//   - The server, live: the entities its game set (server.Server's
//     SetEntity, between ticks) and the match state it set
//     (Server.SetMatchState, or its rules' Referee), as they stood when
//     the tick began. An entity shows what a client is sent of it: its
//     position, velocity, yaw, pitch, flags and teleport count, and of
//     its declared state the fields sent to all.
//   - The server, when time warp re-runs a tick: the view that tick
//     began with, kept with the tick, not the present one.
//   - The owner's client, predicting: the entities of the newest
//     snapshot (client.Config.FirstEntity and up), as the server sent
//     them, and the match state its game set (client.Client's
//     SetMatchState) from what it heard. A change reaches the client a
//     one-way delay late; commands predicted before it are corrected
//     by reconciliation, as any other misprediction.
type MatchView struct {
	slots  []int
	states []PlayerState
	match  State
}

// Entity returns the state of the entity in slot id.
func (v *MatchView) Entity(id int) (PlayerState, bool) {
	if v == nil {
		return PlayerState{}, false
	}
	for i, s := range v.slots {
		if s == id {
			return v.states[i], true
		}
	}
	return PlayerState{}, false
}

// Entities returns the slots of the entities in view, ascending. Do not
// modify it.
func (v *MatchView) Entities() []int {
	if v == nil {
		return nil
	}
	return v.slots
}

// Match returns the game's match state: opaque bytes a game declares as
// a struct with Declare and reads with its Schema's In.
func (v *MatchView) Match() State {
	if v == nil {
		return State{}
	}
	return v.match
}

// Reset empties the view of entities, for a core to fill it again (Add).
func (v *MatchView) Reset() {
	v.slots, v.states = v.slots[:0], v.states[:0]
}

// Add puts the entity in slot id with state st in view; slots are added
// in ascending order.
func (v *MatchView) Add(id int, st PlayerState) {
	v.slots = append(v.slots, id)
	v.states = append(v.states, st)
}

// SetMatch sets the match state in view.
func (v *MatchView) SetMatch(st State) { v.match = st }

// CopyFrom makes v a copy of o, reusing v's storage.
func (v *MatchView) CopyFrom(o *MatchView) {
	v.slots = append(v.slots[:0], o.slots...)
	v.states = append(v.states[:0], o.states...)
	v.match = o.match
}

// Public zeroes the fields of s that are not sent to all (VisAll): what
// a client is sent of an entity's or another player's declared state.
func (l *Layout) Public(s *State) {
	if l == nil {
		return
	}
	for i := range l.fields {
		if f := &l.fields[i]; f.Vis != VisAll {
			store(s, f, 0)
		}
	}
}

// Hide zeroes the fields of s of visibility v: what a client that is
// not sent them sees of them (VisTeam's, for a player not on the
// owner's team).
func (l *Layout) Hide(s *State, v Vis) {
	if l == nil {
		return
	}
	for i := range l.fields {
		if f := &l.fields[i]; f.Vis == v {
			store(s, f, 0)
		}
	}
}

// In returns match state st, typed, as Of does a player's: a game's
// declared match state (MatchView.Match) read in place.
func (s *Schema[T]) In(st *State) *T { return (*T)(unsafe.Pointer(st)) }
