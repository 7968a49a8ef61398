package store

import (
	"context"
	"testing"
	"time"

	"github.com/lagkit/lagkit/record"
)

// TestResumeWriterCarriesOn: a writer resuming a study adds to it after
// its last record, in order, and Rounds tells how far each round got.
func TestResumeWriterCarriesOn(t *testing.T) {
	eachDatabase(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		db := open(t, dsn)
		w := db.NewWriter(WriterOptions{})
		rs := aStudy("resumed")
		cut := 13 // through the kill: the round has started, not ended
		put(w, rs[:cut])
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		id := w.StudyID()
		rounds, err := db.Rounds(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if len(rounds) != 1 || !rounds[0].Ended.IsZero() || rounds[0].Elapsed != 1600*time.Millisecond {
			t.Fatalf("rounds after the cut: %+v, want one unended, 1.6 s played", rounds)
		}
		w, err = db.ResumeWriter(ctx, id, WriterOptions{})
		if err != nil {
			t.Fatal(err)
		}
		put(w, rs[cut:])
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		got, want := readAll(t, db, id), expected(rs)
		for name, recs := range want {
			if len(got[name]) != len(recs) {
				t.Fatalf("%s: %d records after the resume, want %d", name, len(got[name]), len(recs))
			}
			for i := range recs {
				if got[name][i] != recs[i] {
					t.Fatalf("%s[%d]: %+v, want %+v", name, i, got[name][i], recs[i])
				}
			}
		}
		if studies, _ := db.Studies(ctx); len(studies) != 1 {
			t.Fatalf("%d studies after the resume, want 1", len(studies))
		}
		if _, err := db.ResumeWriter(ctx, id+5, WriterOptions{}); err == nil {
			t.Fatal("resumed a study that does not exist")
		}
		if rounds, _ := db.Rounds(ctx, id); rounds[0].Ended.IsZero() {
			t.Fatal("the round did not end after the resume")
		}
	})
}

// TestDropEmptyStudy: a study without a round is dropped with its
// records; one with a round stays.
func TestDropEmptyStudy(t *testing.T) {
	eachDatabase(t, func(t *testing.T, dsn string) {
		db := open(t, dsn)
		ctx := context.Background()
		w := db.NewWriter(WriterOptions{})
		w.Put(record.Study{Name: "empty"})
		w.Put(record.Session{Seat: 0, Kind: record.Connect})
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		empty := w.StudyID()
		w = db.NewWriter(WriterOptions{})
		put(w, aStudy("full"))
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		full := w.StudyID()
		for _, id := range []int64{empty, full} {
			if err := db.DropEmptyStudy(ctx, id); err != nil {
				t.Fatal(err)
			}
		}
		all, err := db.Studies(ctx)
		if err != nil || len(all) != 1 || all[0].ID != full {
			t.Fatalf("studies left %+v (%v), want only %d", all, err, full)
		}
		var n int
		if err := db.db.QueryRow(db.dialect.rebind("SELECT COUNT(*) FROM sessions WHERE study_id = ?"), empty).Scan(&n); err != nil || n != 0 {
			t.Fatalf("%d sessions of the dropped study left (%v)", n, err)
		}
	})
}
