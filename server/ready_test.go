package server

import (
	"errors"
	"testing"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/wire"
	"github.com/lagkit/lagkit/world/worldtest"
)

// TestReadyCounts checks that a Ready's Counts say what was refused or
// dropped since the previous handover, once: a malformed datagram and a
// kick are counted in the span they happened in and not again.
func TestReadyCounts(t *testing.T) {
	s := testServer(t, Config{})
	slot := join(t, s, 0, Peer(1))
	if n := s.Ready().Counts; n != (Counts{}) {
		t.Fatalf("after a join: %+v, want nothing counted", n)
	}
	if err := s.Step(0, Peer(1), []byte{byte(wire.MsgCommands), 0xff}); !errors.Is(err, ErrMalformed) {
		t.Fatalf("a malformed datagram: %v", err)
	}
	if err := s.Step(0, Peer(1), []byte{byte(wire.MsgCommands), 0xfe}); !errors.Is(err, ErrMalformed) {
		t.Fatalf("a malformed datagram: %v", err)
	}
	s.Kick(slot, "bye")
	r := s.Ready()
	want := Counts{Malformed: 2}
	want.Kicked[wire.DisconnectKicked] = 1
	if r.Counts != want {
		t.Fatalf("counted %+v, want %+v", r.Counts, want)
	}
	if len(r.Sessions) != 1 || r.Sessions[0].Opened || r.Sessions[0].Seat != slot || r.Sessions[0].Code != wire.DisconnectKicked {
		t.Errorf("sessions %+v, want the kick", r.Sessions)
	}
	if d, ok := disconnectTo(r.Messages, 1); !ok || d.Code != wire.DisconnectKicked {
		t.Errorf("messages %v hold no Disconnect for the kicked peer", r.Messages)
	}
	if st := s.Stats(); st.Malformed != 2 || st.Kicked[wire.DisconnectKicked] != 1 {
		t.Errorf("stats %+v disagree with what was counted", st)
	}
	if r := s.Advance(s.NextTick()); r.Counts != (Counts{}) || len(r.Sessions) != 0 || r.Ticks != 1 {
		t.Errorf("a tick with nothing refused: %+v", r)
	}
}

// TestReadyUnreadKeepsNothing: a driver that never looks at what
// Advance hands over keeps nothing: seconds of shots and a kill leaves the server's buffers the size of one tick's, and each
// handover holds only what happened since the one before.
func TestReadyUnreadKeepsNothing(t *testing.T) {
	r := newShootingRange(t, worldtest.Open(t), armed(Config{}, laser()), geom.V(0, 0, 0), geom.V(10, 0, 0))
	shots, kills := 0, 0
	for n := range 8 * 64 {
		r.cmd++
		now := r.s.NextTick()
		sendCmds(t, r.s, now, 0, []game.UserCmd{{Tick: r.cmd, Duration: r.s.TickDuration(), Buttons: game.BtnFire, Pitch: -60}})
		rd := r.s.Advance(now)
		if n%100 != 0 {
			continue // unread
		}
		if rd.Ticks != 1 || len(rd.Shots) > 1 || len(rd.Kills) > 1 {
			t.Fatalf("tick %d: %d ticks, %d shots, %d kills handed over, want one tick's", n, rd.Ticks, len(rd.Shots), len(rd.Kills))
		}
	}
	for _, rd := range []*Ready{r.s.ready.cur, r.s.ready.out} {
		shots, kills = max(shots, cap(rd.Shots)), max(kills, cap(rd.Kills))
		if cap(rd.Log) > 16 || cap(rd.Messages) > 16 || cap(rd.Sessions) > 16 {
			t.Errorf("buffers grew: log %d, messages %d, sessions %d", cap(rd.Log), cap(rd.Messages), cap(rd.Sessions))
		}
	}
	if st, _ := r.s.Client(0); st.Kills < 1 || st.Shots < 30 || shots > 16 || kills > 16 {
		t.Fatalf("%d shots, %d kills; buffers of %d shots and %d kills: want many shots, a kill and one tick's buffers", st.Shots, st.Kills, shots, kills)
	}
}

// TestReadyKillsNameTheKiller: a kill is handed over with its killer,
// victim, their teams and the killing weapon, as the server judged it.
func TestReadyKillsNameTheKiller(t *testing.T) {
	r := newShootingRange(t, worldtest.Open(t), armed(Config{}, laser()), geom.V(0, 0, 0), geom.V(10, 0, 0))
	var kills []Kill
	for range 64 {
		r.cmd++
		now := r.s.NextTick()
		sendCmds(t, r.s, now, 0, []game.UserCmd{{Tick: r.cmd, Duration: r.s.TickDuration(), Buttons: game.BtnFire, Pitch: -60}})
		kills = append(kills, r.s.Advance(now).Kills...)
	}
	v, _ := r.s.Client(1)
	if len(kills) == 0 || len(kills) != v.Deaths {
		t.Fatalf("%d kills handed over, victim died %d times", len(kills), v.Deaths)
	}
	k := kills[0]
	if k.Killer != 0 || k.Victim != 1 || k.Weapon != 0 || k.KillerTeam != r.s.clients[0].team || k.VictimTeam != v.Team {
		t.Errorf("kill %+v, want 0 killing 1 with weapon 0", k)
	}
}
