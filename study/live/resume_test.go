package live

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/lagkit/lagkit/mode"
	"github.com/lagkit/lagkit/record"
	"github.com/lagkit/lagkit/server"
	"github.com/lagkit/lagkit/store"
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
