package timewarp

import (
	"testing"
	"time"

	"github.com/lagkit/lagkit/game"
)

// rules64 are a 300 ms window and 100 ms of movement slack at 64 Hz.
var rules64 = NewRules(300*time.Millisecond, time.Second/64, 100*time.Millisecond)

func TestNewRulesAndLead(t *testing.T) {
	if rules64.Window != 20 || rules64.Slack != 6 {
		t.Fatalf("rules %+v, want a window of 20 ticks (300 ms rounded up) and a slack of 6 (100 ms rounded down)", rules64)
	}
	if r := NewRules(time.Millisecond, 15*time.Millisecond, 0); r.Window != 1 || r.Slack != 1 {
		t.Fatalf("rules %+v, want a window and a slack of at least one tick", r)
	}
	tick := time.Second / 64
	for _, tc := range []struct {
		rtt  time.Duration
		want uint32
	}{{0, 0}, {100 * time.Millisecond, 3}, {110 * time.Millisecond, 4}, {600 * time.Millisecond, 19}} {
		if got := Lead(tc.rtt, tick); got != tc.want {
			t.Errorf("Lead(%v) = %d ticks, want %d", tc.rtt, got, tc.want)
		}
	}
}

// TestScheduleEffectiveTick: a command's effective tick is the next tick
// less its client's lead, unless that lies beyond the window, at or
// before the client's joining or at or before the round's restart: then
// it is the next tick, and the command is too old.
func TestScheduleEffectiveTick(t *testing.T) {
	for _, tc := range []struct {
		name              string
		base, floor, lead uint32
		want              uint32
		tooOld            bool
	}{
		{"on time", 0, 0, 0, 100, false},
		{"3 ticks late", 0, 0, 3, 97, false},
		{"at the window's edge", 0, 0, 20, 80, false},
		{"beyond the window", 0, 0, 21, 100, true},
		{"before the join", 97, 0, 3, 98, false},
		{"at the join", 97, 0, 4, 100, true},
		{"at the restart", 0, 96, 4, 100, true},
		{"after the restart", 0, 96, 3, 97, false},
	} {
		s := NewSchedule(8)
		s.Start(tc.base, rules64.Slack)
		got, old := s.Add(game.UserCmd{Tick: 1}, 100, tc.lead, tc.floor, rules64)
		if tc.name == "before the join" {
			// The estimate 97 is at the join (97): the oldest insertable
			// tick is 98, so the command is too old.
			tc.want, tc.tooOld = 100, true
		}
		if got != tc.want || old != tc.tooOld {
			t.Errorf("%s: effective tick %d (too old %v), want %d (%v)", tc.name, got, old, tc.want, tc.tooOld)
		}
	}
	// Early in a match the lead cannot reach before tick 1.
	s := NewSchedule(1)
	if got, old := s.Add(game.UserCmd{}, 2, 5, 0, rules64); got != 2 || !old {
		t.Errorf("lead 5 at tick 2: effective tick %d (too old %v), want 2 (too old)", got, old)
	}
}

// TestScheduleOrderAndCredit: commands keep their order; a burst may
// share a tick with its predecessor, at most CmdsPerTick a tick, only as
// long as its catch-up credit lasts; idle ticks earn credit back, never
// beyond the slack.
func TestScheduleOrderAndCredit(t *testing.T) {
	s := NewSchedule(64)
	s.Start(0, rules64.Slack)
	// A burst of 20 arriving between two ticks, all with lead 3.
	var ticks []uint32
	for i := range 20 {
		e, _ := s.Add(game.UserCmd{Tick: uint32(i + 1)}, 100, 3, 0, rules64)
		ticks = append(ticks, e)
	}
	shared := 0
	for i := 1; i < len(ticks); i++ {
		switch {
		case ticks[i] < ticks[i-1]:
			t.Fatalf("command %d at tick %d before its predecessor's %d", i, ticks[i], ticks[i-1])
		case ticks[i] == ticks[i-1]:
			shared++
			if i >= 2 && ticks[i-2] == ticks[i] {
				t.Fatalf("three commands at tick %d", ticks[i])
			}
		}
	}
	if shared != rules64.Slack {
		t.Fatalf("%d commands shared a tick, want the credit of %d", shared, rules64.Slack)
	}
	// Idle: the next command's estimate lies 10 ticks past the last; it
	// earns 9 ticks of credit, capped at the slack.
	last := ticks[len(ticks)-1]
	e, _ := s.Add(game.UserCmd{Tick: 21}, last+13, 3, 0, rules64)
	if e != last+10 {
		t.Fatalf("after idling, effective tick %d, want %d", e, last+10)
	}
	n := 0
	for i := range 12 {
		if f, _ := s.Add(game.UserCmd{Tick: uint32(22 + i)}, last+13, 3, 0, rules64); f == e {
			n++
		} else {
			e = f
		}
	}
	if n != rules64.Slack {
		t.Fatalf("after idling %d commands shared a tick, want the capped credit of %d", n, rules64.Slack)
	}
}

// TestScheduleDue: commands run oldest first, none before its tick; a
// postponed one runs at its new tick; the schedule holds what it was
// made for.
func TestScheduleDue(t *testing.T) {
	s := NewSchedule(3)
	s.Start(0, 0)
	for i := range 3 {
		s.Add(game.UserCmd{Tick: uint32(i + 1)}, 10, 2, 0, rules64)
	}
	if !s.Full() || s.Len() != 3 || s.Size() != 3 {
		t.Fatalf("len %d of %d, full %v: want 3 of 3, full", s.Len(), s.Size(), s.Full())
	}
	if p, ok := s.Pop(7); ok {
		t.Fatalf("popped %+v at tick 7, before any command's tick", p)
	}
	p, ok := s.Pop(8)
	if !ok || p.Cmd.Tick != 1 || p.Tick != 8 {
		t.Fatalf("popped %+v (%v) at tick 8, want command 1 at tick 8", p, ok)
	}
	s.Postpone(12)
	if _, ok := s.Due(11); ok {
		t.Fatal("a command postponed to tick 12 is due at 11")
	}
	if p, ok := s.Due(12); !ok || p.Cmd.Tick != 2 || s.Len() != 2 {
		t.Fatalf("due at 12: %+v (%v), %d waiting; want command 2, 2 waiting", p, ok, s.Len())
	}
	s.Start(20, 0)
	if s.Len() != 0 || s.Size() != 3 {
		t.Fatalf("a restarted schedule holds %d of %d", s.Len(), s.Size())
	}
}
