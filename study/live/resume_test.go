package live

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lagkit/lagkit/mode"
	"github.com/lagkit/lagkit/record"
	"github.com/lagkit/lagkit/server"
	"github.com/lagkit/lagkit/store"
	"github.com/lagkit/lagkit/study"
)

// TestTalliesCountObjectives: a seat's score restored after a crash
// counts the flags it returned and captured and the points it helped
// capture, as the mode scored them, beside its kills; another round's
// records count for nothing.
func TestTalliesCountObjectives(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "study.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	w := db.NewWriter(store.WriterOptions{})
	w.Put(record.Study{Name: "ctf"})
	w.Put(record.Kill{Round: 1, Killer: 0, Victim: 1})
	w.Put(record.Objective{Round: 1, Seat: 0, Team: 0, Kind: mode.FlagTaken.String()})
	w.Put(record.Objective{Round: 1, Seat: 0, Team: 0, Kind: mode.FlagCaptured.String()})
	w.Put(record.Objective{Round: 1, Seat: 1, Team: 1, Kind: mode.FlagReturned.String()})
	w.Put(record.Objective{Round: 1, Seat: -1, Team: 1, Kind: mode.FlagReturned.String()})
	w.Put(record.Objective{Round: 1, Seat: 1, Team: 1, Kind: mode.PointCaptured.String()})
	w.Put(record.Objective{Round: 1, Seat: -1, Team: 1, Kind: mode.PointNeutral.String()})
	w.Put(record.Objective{Round: 0, Seat: 1, Team: 1, Kind: mode.FlagCaptured.String()})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := tallies(ctx, db, w.StudyID(), 1, map[int]int{0: 0, 1: 1})
	if err != nil {
		t.Fatal(err)
	}
	want := map[int]server.Tally{
		0: {Kills: 1, Score: 1 + mode.CaptureScore},
		1: {Deaths: 1, Score: mode.ReturnScore + mode.PointCaptureScore},
	}
	for seat, w := range want {
		if got[seat] != w {
			t.Errorf("seat %d: tally %+v, want %+v", seat, got[seat], w)
		}
	}
}

// TestResumeKeepsGroup: a counterbalanced session stopped in group 0 is
// resumed by the same schedule in group 0, and refused in group 1,
// naming the group; the same text does not hide the group's change.
func TestResumeKeepsGroup(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	sched := filepath.Join(dir, "cb.toml")
	text := `name = "cb"
[[seat]]
code = "P1"
[[seat]]
bot = true
[[technique]]
name = "tlc"
[[technique]]
name = "none"
policy = { name = "none" }
[counterbalance]
design = "latin"
[[round]]
map = "arena"
mode = "ffa"
duration = "30s"
technique = "tlc"
[[round]]
map = "arena"
mode = "ffa"
duration = "30s"
technique = "none"
`
	if err := os.WriteFile(sched, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := study.Load(sched)
	if err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(ctx, filepath.Join(dir, "study.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	w := db.NewWriter(store.WriterOptions{})
	w.Put(record.Study{Name: s.Name, Schedule: s.Text(), ScheduleKey: s.Key(), Design: s.Design(), Group: s.Group(), Started: time.Now()})
	w.Put(record.Round{Index: 0, Name: "round 1", Technique: "tlc", Started: time.Now()})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got, err := ResumeFrom(ctx, db, s); err != nil || got.ID != w.StudyID() || got.Resume.Round != 0 {
		t.Fatalf("group 0: %+v, %v", got, err)
	}
	if err := s.SetGroup(1); err != nil {
		t.Fatal(err)
	}
	_, err = ResumeFrom(ctx, db, s)
	var changed *ScheduleChangedError
	if !errors.As(err, &changed) || !strings.Contains(err.Error(), "counterbalance group: 0 stored, 1 now") ||
		!strings.Contains(err.Error(), "round 1 technique: tlc stored, none now") {
		t.Fatalf("group 1: %v", err)
	}
}
