package server

import (
	"testing"
	"time"

	"github.com/lagkit/lagkit/lagcomp"
	"github.com/lagkit/lagkit/wire"
)

// TestAppealCopiesAreCounted: a victim sends its answer to a provisional
// hit again until the verdict arrives, so that a lost answer does not
// time out as a confirmation. The first answer to arrive settles the
// appeal; its copies (the appeal id names the shot) are counted as
// copies, change nothing and are not taken for bogus answers, while a
// different answer to the settled appeal still is.
func TestAppealCopiesAreCounted(t *testing.T) {
	d := newDuel(t, Config{Policy: lagcomp.Config{Name: "alc"}})
	d.shoot(nil)
	if len(d.hits[2]) != 1 || d.hits[2][0].Appeal == 0 {
		t.Fatalf("victim received %+v, want one provisional hit", d.hits[2])
	}
	slot, _ := d.s.ClientByPeer(2)
	before, _ := d.s.Client(slot)
	answer, err := wire.AppendAppeal(nil, &wire.Appeal{ID: d.hits[2][0].Appeal, State: before.State})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 { // the answer and two copies
		if err := d.s.Step(d.s.Time(), 2, answer); err != nil {
			t.Fatal(err)
		}
	}
	if err := d.appeal(d.s.Time(), 2, d.hits[2][0].Appeal, true); err != nil { // a change of mind
		t.Fatal(err)
	}
	d.run(200 * time.Millisecond)
	after, _ := d.s.Client(slot)
	if len(d.records) != 1 || d.records[0].Outcome != wire.OutcomeConfirmed {
		t.Fatalf("records %+v, want the hit confirmed once", d.records)
	}
	if st := d.s.Stats(); st.AppealCopies != 2 || after.AppealsIgnored != 1 {
		t.Fatalf("copies %d, ignored %d; want 2 and 1", st.AppealCopies, after.AppealsIgnored)
	}
}
