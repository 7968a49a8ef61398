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

// TestCodesUniqueAcrossSessions: a new live session joining a study
// whose schedule fixes a code an earlier session of that study gave to
// someone is refused before it stores anything, naming both seats and
// the study's id; other codes, a bot's code, or the same code in another
// study of the same name, pass. The codes the study gave come back for
// the generated codes to avoid: a generated code that one of them is
// drawn again.
func TestCodesUniqueAcrossSessions(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "s.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	session := func(opts store.WriterOptions, simulated bool, p record.Participant) *store.Writer {
		w := db.NewWriter(opts)
		w.Put(record.Study{Name: "two", Simulated: simulated, Started: time.Now()})
		w.Put(p)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return w
	}
	first := session(store.WriterOptions{}, false, record.Participant{Seat: 1, Code: "ann7", Round: 0})
	session(store.WriterOptions{}, true, record.Participant{Seat: 0, Code: "bea3", Round: 0, Bot: true})
	other := session(store.WriterOptions{}, false, record.Participant{Seat: 0, Code: "dan5", Round: 0})
	sets, err := db.StudySets(ctx)
	if err != nil || len(sets) != 3 {
		t.Fatalf("studies %+v (%v)", sets, err)
	}
	byID := map[int64]store.StudySet{}
	for _, set := range sets {
		byID[set.ID] = set
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
	study1 := byID[first.SetID()]
	if _, err := codesUnused(ctx, db, sched("ANN7"), study1); err == nil ||
		!strings.Contains(err.Error(), "seat 0's code ann7 was seat 1's in an earlier session of study 1 (two; session 1)") {
		t.Errorf("a code of session 1 again: %v", err)
	}
	for _, code := range []string{"cid9", "bea3", "dan5"} {
		if _, err := codesUnused(ctx, db, sched(code), study1); err != nil {
			t.Errorf("code %s: %v", code, err)
		}
	}
	// The same name, another study: its codes are its own.
	used, err := codesUnused(ctx, db, sched("ANN7"), byID[other.SetID()])
	if err != nil || !used["DAN5"] || used["ANN7"] {
		t.Errorf("another study of the name: used %v, %v", used, err)
	}
	// A new study has used none.
	if used, err := codesUnused(ctx, db, sched("ANN7"), store.StudySet{}); err != nil || len(used) != 0 {
		t.Errorf("a new study: used %v, %v", used, err)
	}

	used, err = codesUnused(ctx, db, sched(""), study1)
	if err != nil || !used["ANN7"] {
		t.Fatalf("study 1's codes %v, %v", used, err)
	}
	draws := []string{"ANN7", "ann7", "EVA2"}
	defer func(f func() string) { newCode = f }(newCode)
	newCode = func() string { c := draws[0]; draws = draws[1:]; return c }
	d, err := New(Config{Schedule: sched(""), Host: realtime.NewHost(quiet, nil), Used: used})
	if err != nil {
		t.Fatal(err)
	}
	if c := d.Codes()[0]; c != "EVA2" {
		t.Errorf("generated code %s, want EVA2: ANN7 is study 1's", c)
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
