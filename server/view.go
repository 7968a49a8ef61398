package server

import (
	"slices"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/wire"
)

// A step sees the match (game.StepCtx.View): the game's entities and its
// match state as the tick began. Both change only between ticks
// (SetEntity, RemoveEntity, SetMatchState, the rules' Update after the
// tick's commands), so the view is made again only when one did, and
// under time warp each tick keeps the view it began with for its
// re-runs: a command run late sees what it would have seen on time.

// SetMatchState sets the game's match state the steps see from the
// next tick on (game.MatchView.Match): what its rules choose to show the
// players' movement (a zone closed, a round's phase), opaque bytes a game
// declares as a struct with game.Declare. The clients learn of it only
// through what the game sends them (client.Client.SetMatchState).
func (s *Server) SetMatchState(st game.State) {
	if st != s.matchState {
		s.matchState, s.viewDirty = st, true
	}
}

// MatchState returns the game's match state (SetMatchState).
func (s *Server) MatchState() game.State { return s.matchState }

// SetMatchState sets the game's match state, as Server.SetMatchState.
func (r *Referee) SetMatchState(st game.State) { r.s.SetMatchState(st) }

// beginView makes the view of the tick beginning, and keeps it for time
// warp.
func (s *Server) beginView() {
	if s.viewDirty {
		s.viewDirty = false
		v := &s.view
		v.Reset()
		ids := s.viewIDs[:0]
		ids = append(ids, s.objectIDs...)
		slices.Sort(ids)
		s.viewIDs = ids
		for _, id := range ids {
			v.Add(id, s.shown(&s.objects[id].state))
		}
		v.SetMatch(s.matchState)
	}
	if s.warp != nil {
		s.warp.viewOf(s.tick).CopyFrom(&s.view)
	}
}

// shown is what clients are sent of entity state st: what the wire
// carries of it, and of its declared state the fields sent to all.
func (s *Server) shown(st *game.PlayerState) game.PlayerState {
	out := wire.EntityFromState(*st).State()
	out.Game = st.Game
	s.cfg.Game.Public(&out.Game)
	return out
}

// viewOf returns the view kept for tick t.
func (w *timeWarp) viewOf(t uint32) *game.MatchView {
	return &w.views[int(t%uint32(len(w.views)))]
}
