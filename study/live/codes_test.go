package live

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lagkit/lagkit/realtime"
	"github.com/lagkit/lagkit/record"
	"github.com/lagkit/lagkit/store"
	"github.com/lagkit/lagkit/study"
)

// TestCodesUniqueAcrossSessions: a new live session of a study whose
// schedule fixes a code an earlier live session gave to someone is
// refused before it stores anything, naming both seats; other codes, or
// an earlier session that was a pilot, pass.
func TestCodesUniqueAcrossSessions(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "s.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	w := db.NewWriter(store.WriterOptions{})
	w.Put(record.Study{Name: "two", Started: time.Now()})
	w.Put(record.Participant{Seat: 1, Code: "ann7", Round: 0})
	w.Put(record.Study{Name: "two", Simulated: true, Started: time.Now()})
	w.Put(record.Participant{Seat: 0, Code: "bea3", Round: 0, Bot: true})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	sched := func(code string) *study.Schedule {
		s, err := study.Parse("two.toml", []byte(`name = "two"
[[seat]]
code = "`+code+`"
[[seat]]
bot = true
[[technique]]
name = "tlc"
[[round]]
name = "a"
map = "arena"
mode = "ffa"
duration = "10s"
`))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	if err := codesUnused(ctx, db, sched("ANN7")); err == nil || !strings.Contains(err.Error(), "seat 0's code ann7 was seat 1's in an earlier session of study two (study 1)") {
		t.Errorf("a code of session 1 again: %v", err)
	}
	for _, code := range []string{"cid9", "bea3"} {
		if err := codesUnused(ctx, db, sched(code)); err != nil {
			t.Errorf("code %s: %v", code, err)
		}
	}
}

// TestOnlineBeforeStart: a participant whose page polls the study before
// the admin's start (consented, waiting) is online on the admin's page;
// one whose page never came, or stopped polling, is not.
func TestOnlineBeforeStart(t *testing.T) {
	s, err := study.Load("../../presets/timewarp.toml")
	if err != nil {
		t.Fatal(err)
	}
	d, err := New(Config{Schedule: s, Host: realtime.NewHost(quiet, nil), Codes: map[int]string{0: "A1", 1: "B2"}})
	if err != nil {
		t.Fatal(err)
	}
	if st := d.State(); st.Phase != study.PhaseWaiting || st.Seats[0].Connected || st.Seats[1].Connected {
		t.Fatalf("before any page: %+v", st.Seats[:2])
	}
	d.Pending("A1") // the page's status poll
	st := d.State()
	if !st.Seats[0].Connected || st.Seats[1].Connected {
		t.Errorf("after A1's page polled: online %v and %v, want A1's alone", st.Seats[0].Connected, st.Seats[1].Connected)
	}
	d.mu.Lock()
	d.seen[0] = time.Now().Add(-pageOnline)
	d.mu.Unlock()
	if d.State().Seats[0].Connected {
		t.Error("a page silent for 2 s still online")
	}
}
