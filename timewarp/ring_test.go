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

// TestInsertLate: a late command goes into its tick's record and marks
// its slot late from there; one its tick cannot take (full, before the
// restart) waits for the next tick, counted too old; one still ahead
// stays where it is.
func TestInsertLate(t *testing.T) {
	a := new(int)
	rules := Rules{Window: 4, Slack: 1}
	ring := NewRing[*int, struct{}](rules.Window, 1)
	for tick := uint32(1); tick <= 6; tick++ {
		ring.Begin(tick).Owner[0] = a
	}
	e4, _ := ring.Entry(4)
	e4.Add(0, game.UserCmd{Tick: 100})
	sched := NewSchedule(8)
	sched.Start(0, rules.Slack)
	for k := range 3 {
		sched.Add(game.UserCmd{Tick: uint32(101 + k)}, 7, 3, 0, rules)
	}
	for k, want := range []uint32{4, 4, 5} {
		if p := sched.At(k); p.Tick != want {
			t.Fatalf("command %d scheduled at %d, want %d", k, p.Tick, want)
		}
	}
	sp, st := NewSpan(1), Stats{}
	cmd, tick, ok := ring.InsertLate(&sched, sp, &st, 0, a, 6, 0)
	if !ok || cmd.Tick != 101 || tick != 4 || sp.LateFrom(0) != 4 || st.Late != 1 {
		t.Fatalf("inserted %v %d at %d (late from %d, stats %+v)", ok, cmd.Tick, tick, sp.LateFrom(0), st)
	}
	if got := e4.Cmds(0); len(got) != 2 || got[1].Tick != 101 {
		t.Fatalf("tick 4 holds %+v", got)
	}
	// Tick 4 is full: the second command waits for tick 7.
	if _, _, ok := ring.InsertLate(&sched, sp, &st, 0, a, 6, 0); ok || st.TooOld != 1 || sched.At(0).Tick != 7 {
		t.Fatalf("full tick: inserted %v, stats %+v, now at %d", ok, st, sched.At(0).Tick)
	}
	if _, _, ok := ring.InsertLate(&sched, sp, &st, 0, a, 6, 0); ok || st.TooOld != 1 {
		t.Fatalf("a command due at tick 7 was taken at 6 (stats %+v)", st)
	}
	// After a restart at tick 5, the third command's tick is gone too.
	sched.Pop(7)
	if _, _, ok := ring.InsertLate(&sched, sp, &st, 0, a, 6, 5); ok || st.TooOld != 2 || sched.At(0).Tick != 7 {
		t.Fatalf("restart: inserted %v, stats %+v", ok, st)
	}
	// Another player's command finds no tick of its own to go into.
	b := new(int)
	other := NewSchedule(2)
	other.Start(0, rules.Slack)
	other.Add(game.UserCmd{Tick: 1}, 7, 3, 0, rules)
	if _, _, ok := ring.InsertLate(&other, sp, &st, 0, b, 6, 0); ok || st.TooOld != 3 {
		t.Fatalf("foreign slot: inserted %v, stats %+v", ok, st)
	}
}
