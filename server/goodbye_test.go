package server

import (
	"testing"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/wire"
)

// TestStaleGoodbyeEndsNothing: a client restarted on the same address
// (the OS reuses ports) starts a new session; the goodbye of its
// previous session, delayed or reordered past the new Connect, and a
// spoofed goodbye naming no session, end nothing and are counted; the
// new session's own goodbye ends it. The server's Disconnects name the
// session they end.
func TestStaleGoodbyeEndsNothing(t *testing.T) {
	s := testServer(t, Config{})
	dt := s.TickDuration()
	joinSession(t, s, 0, 1, 1)
	id := joinSession(t, s, s.NextTick(), 1, 2)
	bye := func(nonce uint64) {
		t.Helper()
		b, err := wire.AppendDisconnect(nil, &wire.Disconnect{Nonce: nonce, Reason: "client left"})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Step(s.NextTick(), 1, b); err != nil {
			t.Fatal(err)
		}
	}
	bye(1)  // the first session's goodbye, arriving late
	bye(77) // spoofed
	for n := uint32(1); n <= 10; n++ {
		now := s.NextTick()
		sendCmds(t, s, now, 1, []game.UserCmd{walk(n, dt)})
		s.Advance(now)
	}
	if got, ok := s.ClientByPeer(1); !ok || got != id {
		t.Fatalf("after a stale and a spoofed goodbye: slot %d, session %v; want slot %d", got, ok, id)
	}
	if info, _ := s.Client(id); info.LastCmd != 10 {
		t.Fatalf("new session: last command executed %d, want 10", info.LastCmd)
	}
	if st := s.Stats(); st.ForeignGoodbyes != 2 || st.Disconnects != 1 {
		t.Fatalf("foreign goodbyes %d, disconnects %d; want 2 and 1 (the restart)", st.ForeignGoodbyes, st.Disconnects)
	}
	bye(2)
	if _, ok := s.ClientByPeer(1); ok {
		t.Fatal("the session's own goodbye did not end it")
	}

	// A kick names the session it ends.
	joinSession(t, s, s.NextTick(), 1, 3)
	slot, _ := s.ClientByPeer(1)
	s.Kick(slot, "bye")
	if d, ok := disconnectTo(s.Ready().Messages, 1); !ok || d.Nonce != 3 || d.Reason != "bye" || d.Code != wire.DisconnectKicked {
		t.Fatalf("kick sent %+v (%v), want the nonce 3, the reason and the code", d, ok)
	}
}
