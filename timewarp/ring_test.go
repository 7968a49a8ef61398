package timewarp

import (
	"testing"

	"github.com/lagkit/lagkit/game"
)

// TestRing: a ring of a window of 3 holds the last 4 ticks; a tick
// begun anew forgets its commands and marks, and holds CmdsPerTick
// commands a slot.
func TestRing(t *testing.T) {
	r := NewRing[*int, []int](3, 2)
	if r.Len() != 4 {
		t.Fatalf("len %d, want 4", r.Len())
	}
	for tick := uint32(1); tick <= 6; tick++ {
		e := r.Begin(tick)
		e.Add(1, game.UserCmd{Tick: tick})
	}
	for tick := uint32(1); tick <= 6; tick++ {
		e, ok := r.Entry(tick)
		if want := tick >= 3; ok != want {
			t.Fatalf("tick %d held %v, want %v", tick, ok, want)
		}
		if ok && (len(e.Cmds(0)) != 0 || len(e.Cmds(1)) != 1 || e.Cmds(1)[0].Tick != tick) {
			t.Fatalf("tick %d holds %+v and %+v", tick, e.Cmds(0), e.Cmds(1))
		}
	}
	e, _ := r.Entry(6)
	e.Add(1, game.UserCmd{Tick: 9})
	if !e.Full(1) || e.Full(0) {
		t.Fatal("slot 1 holds two commands, slot 0 none")
	}
	e.Defer(1, 9)
	if e.Deferred(1, 0) || !e.Deferred(1, 1) {
		t.Fatal("only the command issued at 9 is deferred")
	}
	e.Cmds(1)[0].Yaw = 7
	if e.Cmds(1)[0].Yaw != 7 {
		t.Fatal("Cmds is not the record's own")
	}
	e = r.Begin(10)
	if len(e.Cmds(1)) != 0 || e.Full(1) {
		t.Fatal("a tick begun anew kept its commands")
	}
	e.Add(1, game.UserCmd{Tick: 10})
	if e.Deferred(1, 0) {
		t.Fatal("a command added is not deferred")
	}
	if _, ok := r.Entry(6); ok {
		t.Fatal("tick 6 is still held after tick 10 began in its place")
	}
}

// TestRingBefore: the tick before a player's run in a slot is the newest
// the ring holds with someone else there, or the oldest it holds less
// one.
func TestRingBefore(t *testing.T) {
	a, b := new(int), new(int)
	r := NewRing[*int, struct{}](3, 1)
	for tick := uint32(1); tick <= 8; tick++ {
		e := r.Begin(tick)
		e.Owner[0] = a
		if tick == 6 {
			e.Owner[0] = b
		}
	}
	for _, c := range []struct {
		o    *int
		t    uint32
		want uint32
	}{{a, 8, 6}, {a, 7, 6}, {b, 8, 8}, {b, 6, 5}, {a, 5, 4}} {
		if got := r.Before(0, c.o, c.t); got != c.want {
			t.Errorf("before tick %d: %d, want %d", c.t, got, c.want)
		}
	}
	r = NewRing[*int, struct{}](3, 1)
	for tick := uint32(1); tick <= 2; tick++ {
		r.Begin(tick).Owner[0] = a
	}
	if got := r.Before(0, a, 2); got != 0 {
		t.Errorf("a player there from the first tick: %d, want 0", got)
	}
}
