package store

import (
	"context"
	"testing"
	"time"
)

// TestResumeWriterCarriesOn: a writer resuming a study adds to it after
// its last record, in order, and Rounds tells how far each round got.
func TestResumeWriterCarriesOn(t *testing.T) {
	eachDatabase(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		db := open(t, dsn)
		w := db.NewWriter(WriterOptions{})
		rs := aStudy("resumed")
		cut := 8 // through the kill: the round has started, not ended
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
