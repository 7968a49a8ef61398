package server

import (
	"errors"
	"testing"

	"github.com/lagkit/lagkit/wire"
)

// TestCounted checks that Counted says what was refused or dropped
// between the last two Outbox calls, once: a malformed datagram and a
// kick are counted in the span they happened in and not again.
func TestCounted(t *testing.T) {
	s := testServer(t, Config{})
	slot := join(t, s, 0, Peer(1))
	s.Outbox()
	if n := s.Counted(); n != (Counts{}) {
		t.Fatalf("after a join: %+v, want nothing counted", n)
	}
	if err := s.Step(0, Peer(1), []byte{byte(wire.MsgCommands), 0xff}); !errors.Is(err, ErrMalformed) {
		t.Fatalf("a malformed datagram: %v", err)
	}
	if err := s.Step(0, Peer(1), []byte{byte(wire.MsgCommands), 0xfe}); !errors.Is(err, ErrMalformed) {
		t.Fatalf("a malformed datagram: %v", err)
	}
	s.Kick(slot, "bye")
	if n := s.Counted(); n != (Counts{}) {
		t.Fatalf("before the next Outbox: %+v, want the last span's (nothing)", n)
	}
	s.Outbox()
	want := Counts{Malformed: 2}
	want.Kicked[wire.DisconnectKicked] = 1
	if n := s.Counted(); n != want {
		t.Fatalf("counted %+v, want %+v", n, want)
	}
	if st := s.Stats(); st.Malformed != 2 || st.Kicked[wire.DisconnectKicked] != 1 {
		t.Errorf("stats %+v disagree with what was counted", st)
	}
	s.Outbox()
	if n := s.Counted(); n != (Counts{}) {
		t.Errorf("a span with nothing refused: %+v", n)
	}
}
