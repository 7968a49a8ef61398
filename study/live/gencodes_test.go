package live

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/lagkit/lagkit/internal/walltest"
	"github.com/lagkit/lagkit/record"
	"github.com/lagkit/lagkit/store"
	"github.com/lagkit/lagkit/study"
)

// TestGeneratedCodesKept plays a live study whose person's seat has no
// code in the schedule, stopped in its first round: the participant
// records carry the code the study generated; a resume hands out that
// code again (the participant's link still works); and a later session
// of the study draws another.
func TestGeneratedCodesKept(t *testing.T) {
	walltest.Lock(t)
	s, err := study.Parse("gen.toml", []byte(`name = "gen"
[[seat]]
[[seat]]
bot = true
[[technique]]
name = "tlc"
[[round]]
map = "arena"
mode = "ffa"
duration = "30s"
`))
	if err != nil {
		t.Fatal(err)
	}
	r := newRig(t)
	d, err := New(Config{Schedule: s, Host: r.host, Log: quiet})
	if err != nil {
		t.Fatal(err)
	}
	code := d.Codes()[0]
	if code == "" {
		t.Fatal("no code generated for seat 0")
	}
	bg := context.Background()
	db, err := store.Open(bg, filepath.Join(t.TempDir(), "study.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	w := db.NewWriter(store.WriterOptions{})
	ctx, cancel := context.WithTimeout(bg, 40*time.Second)
	defer cancel()
	stop, stopRun := context.WithCancelCause(ctx)
	defer stopRun(nil)
	go func() {
		for ctx.Err() == nil {
			a, err := d.Join(code)
			if err != nil || a.Token == nil {
				time.Sleep(50 * time.Millisecond)
				continue
			}
			_, _ = r.kit.play(stop, r.addr, 3, a.Token)
		}
	}()
	errc := make(chan error, 1)
	go func() { errc <- d.Run(stop, w, study.Options{Seed: 2}) }()
	if err := d.Command(study.Command{Action: study.ActionStart}); err != nil {
		t.Fatal(err)
	}
	waitFor(ctx, t, "the person playing round 1", func() bool {
		st := d.State()
		return st.Phase == study.PhasePlaying && st.Round == 0 && st.Seats[0].Connected
	})
	stopRun(errors.New("interrupt"))
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("Run: %v, want the stop", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	parts, err := store.All[record.Participant](bg, db, w.StudyID())
	if err != nil {
		t.Fatal(err)
	}
	var person []string
	for _, p := range parts {
		if p.Seat == 0 {
			person = append(person, p.Code)
		}
	}
	if len(person) != 1 || person[0] != code {
		t.Fatalf("seat 0's participant records carry codes %q, want the generated %s", person, code)
	}

	stored, err := ResumeFrom(bg, db, s)
	if err != nil {
		t.Fatal(err)
	}
	again, err := New(Config{Schedule: s, Host: r.host, Log: quiet, Resume: stored.Resume, Codes: stored.Codes})
	if err != nil {
		t.Fatal(err)
	}
	if c := again.Codes()[0]; c != code {
		t.Errorf("resumed, seat 0 has code %s, want %s as before the stop", c, code)
	}

	sets, err := db.StudySets(bg)
	if err != nil || len(sets) != 1 {
		t.Fatalf("studies %+v, %v", sets, err)
	}
	used, err := codesUnused(bg, db, s, sets[0])
	if err != nil || !used[study.CodeKey(code)] {
		t.Fatalf("the study's codes %v (%v), want %s among them", used, err, code)
	}
	defer func(f func() string) { newCode = f }(newCode)
	draws := []string{code, "NEXT7"}
	newCode = func() string { c := draws[0]; draws = draws[1:]; return c }
	next, err := New(Config{Schedule: s, Host: r.host, Log: quiet, Used: used})
	if err != nil {
		t.Fatal(err)
	}
	if c := next.Codes()[0]; c != "NEXT7" {
		t.Errorf("a later session's generated code %s, want NEXT7: %s is the study's", c, code)
	}
}
