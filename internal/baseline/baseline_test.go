package baseline

import "testing"

// put takes a slot for tick, stamps it and keeps it.
func put(r *Ring, tick uint32) int {
	i, s := r.Take(tick)
	s.Tick = tick
	r.Keep(i)
	return i
}

// TestRingKeepsWhatMayBeNamed: a snapshot is kept until its place comes
// round again or it falls before a tick forgotten, and a freed slot is
// the next handed out.
func TestRingKeepsWhatMayBeNamed(t *testing.T) {
	var r Ring
	if r.Get(0) != nil || r.Get(5) != nil {
		t.Fatal("the zero ring holds a snapshot")
	}
	for tick := uint32(1); tick <= 10; tick++ {
		put(&r, tick)
	}
	for tick := uint32(1); tick <= 10; tick++ {
		if s := r.Get(tick); s == nil || s.Tick != tick {
			t.Fatalf("tick %d: %v", tick, s)
		}
	}
	if r.Get(11) != nil || r.Get(10+Window) != nil {
		t.Fatal("a tick never kept is found")
	}
	r.Forget(7)
	for tick := uint32(1); tick <= 10; tick++ {
		if got := r.Get(tick) != nil; got != (tick >= 7) {
			t.Fatalf("after forgetting before 7, tick %d kept: %v", tick, got)
		}
	}
	r.Forget(3) // an earlier tick: nothing comes back, nothing goes
	if r.Get(3) != nil || r.Get(7) == nil {
		t.Fatal("a later Forget of an earlier tick changed what is kept")
	}
	// Ticks 1 to 6 were freed, 6 last: it is handed out first.
	if i, _ := r.Take(11); i != 5 {
		t.Fatalf("slot %d handed out, want 5, the last freed", i)
	}
	// A tick Window later takes the place of the one before.
	put(&r, 8+Window)
	if r.Get(8) != nil || r.Get(8+Window) == nil {
		t.Fatal("the place of tick 8 was not taken over")
	}
}

// TestRingNeverRunsOut: however the ticks come, skipping and never
// forgetting, a slot is always free and at most Window are in use.
func TestRingNeverRunsOut(t *testing.T) {
	var r Ring
	tick := uint32(1)
	for n := range 20 * Window {
		tick += uint32(1 + n%3)
		put(&r, tick)
		if n%50 == 49 {
			i, _ := r.Take(tick + 1)
			r.Drop(i)
		}
	}
	if r.used > Window {
		t.Fatalf("%d slots used", r.used)
	}
}
