package server

import (
	"testing"

	"github.com/lagkit/lagkit/geom"
)

// TestPlayerStateIsClientsState: PlayerState gives the state and team
// Client reports, and nothing for an empty or invalid slot.
func TestPlayerStateIsClientsState(t *testing.T) {
	s := testServer(t, Config{})
	a, b := join(t, s, 0, 1), join(t, s, 0, 2)
	s.Place(b, geom.V(3, 4, 0), 1)
	for _, id := range []int{a, b} {
		info, _ := s.Client(id)
		st, team, ok := s.PlayerState(id)
		if !ok || st != info.State || team != info.Team {
			t.Fatalf("slot %d: PlayerState %+v, team %d, %v; Client has %+v, team %d", id, st, team, ok, info.State, info.Team)
		}
	}
	for _, id := range []int{-1, max(a, b) + 1, s.MaxClients()} {
		if _, _, ok := s.PlayerState(id); ok {
			t.Fatalf("slot %d has a player state", id)
		}
	}
}
