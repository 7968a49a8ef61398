package live

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/lagkit/lagkit/realtime"
	"github.com/lagkit/lagkit/record"
	"github.com/lagkit/lagkit/store"
	"github.com/lagkit/lagkit/study"
)

// TestResumeKeepsStandIns: a session stopped after a bot took a
// participant's seat resumes with the bot in it: the seat keeps its
// person's code, a bot plays it (recorded as stood in), its page is
// told why, and its code joins no match.
func TestResumeKeepsStandIns(t *testing.T) {
	ctx := context.Background()
	s, err := study.Parse("online.toml", []byte(absentSchedule+`[[round]]
name = "b"
map = "arena"
mode = "ffa"
duration = "2s"
[online]
rejoin = "5s"
`))
	if err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "study.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	w := db.NewWriter(store.WriterOptions{})
	now := time.Now()
	w.Put(record.Study{Name: s.Name, Schedule: s.Text(), ScheduleKey: s.Key(), Started: now})
	w.Put(record.Round{Index: 0, Name: "a", Technique: "tlc", Started: now, Ended: now.Add(2 * time.Second)})
	w.Put(record.Participant{Seat: 0, Round: 0, Code: "ANN7"})
	w.Put(record.Participant{Seat: 1, Round: 0, Code: "BEA3", StandIn: true, StandInAt: time.Second})
	w.Put(record.Participant{Seat: 2, Round: 0, Bot: true})
	w.Put(record.Round{Index: 1, Name: "b", Technique: "tlc", Started: now.Add(3 * time.Second)})
	w.Put(record.Participant{Seat: 0, Round: 1, Code: "ANN7"})
	w.Put(record.Participant{Seat: 1, Round: 1, Code: "BEA3", Bot: true, StandIn: true})
	w.Put(record.Participant{Seat: 2, Round: 1, Bot: true})
	w.Put(record.Event{Round: 1, Kind: record.EventStop, At: now.Add(4 * time.Second)})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	stored, err := ResumeFrom(ctx, db, s)
	if err != nil {
		t.Fatal(err)
	}
	if why := stored.Resume.Left[1]; why != "left mid-match (round 1 of 2)" || len(stored.Resume.Left) != 1 {
		t.Fatalf("left %v", stored.Resume.Left)
	}
	d, err := New(Config{Schedule: s, Host: realtime.NewHost(quiet, nil), Resume: stored.Resume, Codes: stored.Codes})
	if err != nil {
		t.Fatal(err)
	}
	if codes := d.Codes(); codes[1] != "BEA3" || !d.BotPlays(1) || !d.StoodIn(1) || d.BotPlays(0) || d.StoodIn(0) {
		t.Errorf("codes %v, seat 1 bot %v stood in %v, seat 0 bot %v", codes, d.BotPlays(1), d.StoodIn(1), d.BotPlays(0))
	}
	if st := d.State().Seats[1]; st.Left != "left mid-match (round 1 of 2)" || !st.Bot || st.LeftCode {
		t.Errorf("seat 1's state %+v", st)
	}
	if _, err := d.Join("BEA3"); !errors.Is(err, study.ErrStoodIn) {
		t.Errorf("the stood-in code joins: %v", err)
	}
}
