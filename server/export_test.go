package server

import (
	"testing"
	"time"

	"github.com/lagkit/lagkit/game"
)

// The internals the external tests (package server_test) reach: they
// build their scenes with internal/fixture, which imports server, so
// they cannot be in package server.

// SetLatency makes s measure a round trip of twice ticks for slot id.
func SetLatency(s *Server, id int, ticks uint32) { setLatency(s, id, ticks) }

// SendCmds sends cmds to s from peer at now.
func SendCmds(t testing.TB, s *Server, now time.Duration, peer Peer, cmds []game.UserCmd) {
	sendCmds(t, s, now, peer, cmds)
}

// SetWarpExhaustive turns time warp's pruning off (every shot and
// projectile judged one by one) or on.
func SetWarpExhaustive(s *Server, exhaustive bool) { s.warp.exhaustive = exhaustive }

// TurnWarpCmds turns the aim of slot id's recorded commands over the
// last ticks ticks (the next call turns it back), so that a warp over
// them re-runs a changed player.
func TurnWarpCmds(s *Server, id, ticks int) {
	for t := s.tick + 1 - uint32(ticks); t <= s.tick; t++ {
		e, _ := s.warp.entry(t)
		cmds := e.Cmds(id)
		for k := range cmds {
			cmds[k].Yaw ^= 0x2000
		}
	}
}
