package timewarp

import (
	"math"
	"slices"
	"testing"

	"github.com/lagkit/lagkit/game"
)

// TestSpan: the affected set stays ascending and leaves the settled out;
// a slot's state is the record's, read in place, until the span takes
// it, and the span's own within the tick it took it; a slot stepped
// starts from the state it carried, else the recorded one; the late are
// noted from their oldest tick until End.
func TestSpan(t *testing.T) {
	moved := make([]game.PlayerState, 5)
	for i := range moved {
		moved[i].Health = int16(10 * (i + 1))
	}
	sp := NewSpan(5)
	sp.Late(3, 9)
	sp.Late(3, 7)
	sp.Late(1, 8)
	sp.Begin()
	if got := sp.LateSlots(); !slices.Equal(got, []int{1, 3}) || sp.LateFrom(3) != 7 || sp.LateFrom(0) != math.MaxUint32 {
		t.Fatalf("late %v from %d", got, sp.LateFrom(3))
	}
	sp.Settle(2)
	sp.Tick()
	for _, i := range []int{4, 0, 2, 3, 0} {
		sp.Join(i, moved)
	}
	if got := sp.AffectedSlots(); !slices.Equal(got, []int{0, 3, 4}) || sp.Affected(2) || !sp.Settled(2) {
		t.Fatalf("affected %v, settled slot 2 in: %v", got, sp.Affected(2))
	}
	if sp.State(1, moved) != &moved[1] {
		t.Fatal("an untouched slot's state is not read in place")
	}
	sp.Own(1, moved).Health = 1
	if moved[1].Health != 20 || sp.State(1, moved).Health != 1 {
		t.Fatal("a state taken changed the record, or was not kept")
	}
	sp.Tick()
	if sp.State(1, moved) != &moved[1] {
		t.Fatal("a state taken in the previous tick is still the span's")
	}
	prev := game.PlayerState{Health: 99}
	if st := sp.Step(1, prev); st.Health != 99 {
		t.Fatalf("a slot not carried starts from %d, want the recorded 99", st.Health)
	}
	sp.Step(1, prev).Health = 50
	sp.Carry(1)
	sp.Tick()
	if st := sp.Step(1, prev); st.Health != 50 {
		t.Fatalf("a carried slot starts from %d, want 50", st.Health)
	}
	if st, ok := sp.Final(1); !ok || st.Health != 50 {
		t.Fatalf("final %d %v", st.Health, ok)
	}
	if _, ok := sp.Final(0); ok {
		t.Fatal("slot 0 was never carried")
	}
	sp.End()
	sp.Begin()
	if len(sp.LateSlots()) != 0 || len(sp.AffectedSlots()) != 0 || sp.Settled(2) {
		t.Fatal("a new span kept the last one's late, affected or settled")
	}
}

// TestDeaths: a re-simulation settles the player whose newest announced
// death it reaches back to, not an older one's, nor another player's in
// the slot.
func TestDeaths(t *testing.T) {
	a, b := new(int), new(int)
	d := NewDeaths[*int](2)
	if d.Settles(0, a, 0) {
		t.Fatal("no death announced, yet settled")
	}
	d.Announce(0, a, 10)
	for _, c := range []struct {
		o    *int
		from uint32
		want bool
	}{{a, 9, true}, {a, 10, true}, {a, 11, false}, {b, 9, false}} {
		if got := d.Settles(0, c.o, c.from); got != c.want {
			t.Errorf("from %d: settled %v, want %v", c.from, got, c.want)
		}
	}
	d.Announce(0, b, 12)
	if d.Settles(0, a, 9) || !d.Settles(0, b, 12) || d.Settles(1, a, 0) {
		t.Fatal("the newest death in a slot is the one that counts")
	}
}
