package live

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lagkit/lagkit/record"
	"github.com/lagkit/lagkit/server"
	"github.com/lagkit/lagkit/shooter/mode"
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

// TestStudyWriterJoinsAndResumes: a live session of a new schedule
// creates its study and says its id; the session stopped in round 1 is
// resumed in the same study (the same session, the same study id);
// --new-study starts study 2 without resuming; with two unfinished
// sessions of one name, --study 1 resumes study 1's and not the newer
// one of study 2.
func TestStudyWriterJoinsAndResumes(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "study.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s, err := study.Parse("j.toml", []byte(`name = "j"
[[seat]]
code = "P1"
[[seat]]
bot = true
[[technique]]
name = "tlc"
[[round]]
map = "arena"
mode = "ffa"
duration = "30s"
technique = "tlc"
`))
	if err != nil {
		t.Fatal(err)
	}
	type opened struct {
		w       *store.Writer
		created int64
		cfg     Config
		out     string
	}
	open := func(fresh bool, join study.Join) opened {
		t.Helper()
		var o opened
		var out strings.Builder
		tok := "t"
		o.w, o.created, err = studyWriter(ctx, db, s, fresh, join, &o.cfg, &out, &tok)
		if err != nil {
			t.Fatal(err)
		}
		o.out = out.String()
		return o
	}
	// play stores a session that stops in round 1 and returns its ids.
	play := func(o opened) (int64, int64) {
		t.Helper()
		if o.cfg.Resume == nil {
			o.w.Put(record.Study{Name: s.Name, Schedule: s.Text(), ScheduleKey: s.Key(), Started: time.Now()})
		}
		o.w.Put(record.Round{Index: 0, Name: "round 1", Technique: "tlc", Started: time.Now()})
		if err := o.w.Close(); err != nil {
			t.Fatal(err)
		}
		return o.w.StudyID(), o.w.SetID()
	}

	first := open(false, study.Join{})
	if first.created != 1 || first.cfg.Resume != nil || !strings.Contains(first.out, "study j: new study 1; run its other sessions with --study 1") {
		t.Fatalf("first session: created %d, resume %+v, %q", first.created, first.cfg.Resume, first.out)
	}
	session1, set1 := play(first)
	if session1 != 1 || set1 != 1 {
		t.Fatalf("first session stored as session %d of study %d", session1, set1)
	}
	resumed := open(false, study.Join{})
	if resumed.created != 0 || resumed.cfg.Resume == nil || resumed.w.SetID() != 1 || !strings.Contains(resumed.out, "resuming session 1 of study 1 (j) at round 1") {
		t.Fatalf("resumed: created %d, resume %+v, study %d, %q", resumed.created, resumed.cfg.Resume, resumed.w.SetID(), resumed.out)
	}
	if id, set := play(resumed); id != 1 || set != 1 {
		t.Fatalf("resumed session stored as session %d of study %d, want 1 of 1", id, set)
	}

	second := open(false, study.Join{New: true})
	if second.created != 2 || second.cfg.Resume != nil {
		t.Fatalf("--new-study: created %d, resume %+v", second.created, second.cfg.Resume)
	}
	if id, set := play(second); id != 2 || set != 2 {
		t.Fatalf("--new-study stored as session %d of study %d, want 2 of 2", id, set)
	}
	if o := open(false, study.Join{Study: "1"}); o.cfg.Resume == nil || o.w.StudyID() != 1 || o.w.SetID() != 1 {
		t.Errorf("--study 1: resumes session %d of study %d, want 1 of 1", o.w.StudyID(), o.w.SetID())
	} else {
		o.w.Close()
	}
	if o := open(false, study.Join{}); o.cfg.Resume == nil || o.w.StudyID() != 2 || o.w.SetID() != 2 {
		t.Errorf("no --study: resumes session %d of study %d, want the newest, 2 of 2", o.w.StudyID(), o.w.SetID())
	} else {
		o.w.Close()
	}
	// A fresh session of a name two studies of the schedule share must
	// say which.
	var cfg Config
	tok := ""
	if _, _, err := studyWriter(ctx, db, s, true, study.Join{}, &cfg, io.Discard, &tok); err == nil ||
		!strings.Contains(err.Error(), `2 live studies named "j" ran this schedule`) {
		t.Errorf("a fresh session, two studies of the name: %v", err)
	}
}
