package server

import (
	"fmt"
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
func SetWarpExhaustive(s *Server, exhaustive bool) { s.warp.d.Exhaustive = exhaustive }

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

// WarpBodiesSettled reports the first player and tick of time warp's
// ring whose body in the history TraceAt rewinds is not where the ring
// settled it (its state after its commands), nil if none.
func WarpBodiesSettled(s *Server) error {
	w := s.warp
	for k := 0; k <= w.d.Window && uint32(k) < s.tick; k++ {
		t := s.tick - uint32(k)
		e, ok := w.entry(t)
		if !ok || t <= w.d.Floor() {
			continue
		}
		for i, c := range e.Owner {
			if c == nil || e.Moved[i].Has(game.FlagDead) {
				continue
			}
			p, b, ok := s.rewind.At(i, time.Duration(t)*s.tickDur)
			if !ok || p.Pos != e.Moved[i].Pos {
				return fmt.Errorf("player %d at tick %d: body at %v (held: %v), settled at %v", i, t, p.Pos, ok, e.Moved[i].Pos)
			}
			if of := s.cfg.BodyOf; of != nil && of(i, e.Moved[i]).Reach() != b.Reach() {
				return fmt.Errorf("player %d at tick %d: body of reach %v, BodyOf the settled state %v", i, t, b.Reach(), of(i, e.Moved[i]).Reach())
			}
		}
	}
	return nil
}
