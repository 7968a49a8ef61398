package server

import (
	"testing"

	"github.com/lagkit/lagkit/game"
)

// TestFarFutureCommandDoesNotFreezeSession: one datagram claiming a
// command tick far ahead of the session (here 2^32 - 4, as a spoofed
// packet might) is dropped and counted, and the honest commands that
// follow still move the player.
func TestFarFutureCommandDoesNotFreezeSession(t *testing.T) {
	s := testServer(t, Config{})
	dt := s.TickDuration()
	id := join(t, s, 0, 1)
	for n := uint32(1); n <= 10; n++ {
		now := s.NextTick()
		sendCmds(t, s, now, 1, []game.UserCmd{walk(n, dt)})
		s.Advance(now)
	}
	sendCmds(t, s, s.NextTick(), 1, []game.UserCmd{walk(1<<32-4, dt)})
	before, _ := s.Client(id)
	for n := uint32(11); n <= 40; n++ {
		now := s.NextTick()
		sendCmds(t, s, now, 1, []game.UserCmd{walk(n, dt)})
		s.Advance(now)
	}
	after, _ := s.Client(id)
	if after.LastCmd != 40 || after.State.Pos == before.State.Pos {
		t.Fatalf("honest commands after a far-future one: last executed %d (want 40), moved %v", after.LastCmd, after.State.Pos != before.State.Pos)
	}
	if got := s.Stats().CmdsDropped.OutOfWindow; got != 1 {
		t.Fatalf("out-of-window commands counted %d, want 1", got)
	}
}
