package store

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/lagkit/lagkit/record"
)

// TestMigrateStudySets: a database at schema version 12 holding two
// sessions of one study (groups 0 and 1 of one schedule file), a study
// of another name between them, a later session of the first name under
// another schedule and a simulated pilot of the first schedule is
// migrated: the two sessions form one study, numbered by its first
// session, and the others are studies of their own, in order; each
// session keeps its records, and a session written after joins its
// study by id.
func TestMigrateStudySets(t *testing.T) {
	eachDatabase(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		var raw *DB
		var err error
		if strings.HasPrefix(dsn, "postgres") {
			raw, err = openPostgres(dsn)
		} else {
			raw, err = openSQLite(dsn)
		}
		if err != nil {
			t.Fatal(err)
		}
		ms, err := migrations()
		if err != nil {
			t.Fatal(err)
		}
		if len(ms) < 13 || !strings.HasPrefix(ms[12].name, "0013_") {
			t.Fatalf("migrations %d, want 0013 among them", len(ms))
		}
		tx, err := raw.db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.ExecContext(ctx, `CREATE TABLE schema_migrations (version BIGINT PRIMARY KEY, name TEXT NOT NULL, applied_ns BIGINT NOT NULL)`); err != nil {
			t.Fatal(err)
		}
		for _, m := range ms[:12] {
			if err := raw.apply(ctx, tx, m); err != nil {
				t.Fatal(err)
			}
		}
		const cross, other = `name = "cross"` + "\n", `name = "cross" # 50 s rounds` + "\n"
		for _, q := range []struct {
			name, schedule string
			group          int
			simulated      bool
			started        int64
		}{
			{"cross", cross, 0, false, 1000}, // 1
			{"solo", `name = "solo"`, 0, false, 2000},
			{"cross", cross, 1, false, 3000}, // 3: joins 1
			{"cross", other, 0, false, 4000},
			{"cross", cross, 0, true, 5000}, // the pilot
		} {
			if _, err := tx.ExecContext(ctx, raw.dialect.rebind(`INSERT INTO studies (name, schedule, seed, simulated, started_ns, counterbalance_group) VALUES (?, ?, 1, ?, ?, ?)`),
				q.name, q.schedule, q.simulated, q.started, q.group); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO rounds (study_id, idx, seq, name, map, mode, technique, duration_ns) VALUES (3, 0, 0, 'r', 'arena', 'ffa', 'tlc', 1000)`); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		raw.Close()

		db := open(t, dsn)
		sets, err := db.StudySets(ctx)
		if err != nil {
			t.Fatal(err)
		}
		type want struct {
			name      string
			sessions  []int64
			simulated bool
			created   int64
		}
		wants := []want{{"cross", []int64{1, 3}, false, 1000}, {"solo", []int64{2}, false, 2000}, {"cross", []int64{4}, false, 4000}, {"cross", []int64{5}, true, 5000}}
		if len(sets) != len(wants) {
			t.Fatalf("%d studies, want %d: %+v", len(sets), len(wants), sets)
		}
		for i, w := range wants {
			s := sets[i]
			var ids []int64
			for _, r := range s.Sessions {
				ids = append(ids, r.ID)
				if r.Set != s.ID {
					t.Errorf("session %d: set %d, want %d", r.ID, r.Set, s.ID)
				}
			}
			if s.ID != int64(i+1) || s.Name != w.name || s.Simulated != w.simulated || s.Key != "" || s.Created.UnixNano() != w.created ||
				len(ids) != len(w.sessions) || ids[0] != w.sessions[0] || ids[len(ids)-1] != w.sessions[len(w.sessions)-1] {
				t.Errorf("study %d: %+v (sessions %v), want %+v", i+1, s, ids, w)
			}
		}
		if rounds, err := All[record.Round](ctx, db, 3); err != nil || len(rounds) != 1 {
			t.Errorf("session 3's rounds %+v (%v)", rounds, err)
		}
		if _, err := db.FindStudySet(ctx, "cross"); err == nil || !strings.Contains(err.Error(), `3 studies are named "cross": 1 "cross" (live, 2 sessions`) {
			t.Errorf("an ambiguous name: %v", err)
		}
		if s, err := db.FindStudySet(ctx, "solo"); err != nil || s.ID != 2 {
			t.Errorf("solo: %+v, %v", s, err)
		}

		// A third session joins study 1 by its id; a new study of the
		// same name is a study of its own.
		w := db.NewWriter(WriterOptions{Set: 1})
		w.Put(record.Study{Name: "cross", Schedule: cross, Group: 0, Started: time.Unix(0, 6000)})
		w.Put(record.Round{Index: 0, Technique: "tlc"})
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if w.SetID() != 1 || w.StudyID() != 6 {
			t.Errorf("joined: session %d of study %d, want 6 of 1", w.StudyID(), w.SetID())
		}
		w = db.NewWriter(WriterOptions{SetKey: "k"})
		w.Put(record.Study{Name: "cross", Schedule: cross})
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if w.SetID() != 5 {
			t.Errorf("a new study of the name has id %d, want 5", w.SetID())
		}
		sessions, err := db.Sessions(ctx, 1)
		if err != nil || len(sessions) != 3 || sessions[2].ID != 6 {
			t.Errorf("study 1's sessions %+v (%v)", sessions, err)
		}
		// A session joins only a study of its name.
		w = db.NewWriter(WriterOptions{Set: 2})
		w.Put(record.Study{Name: "cross", Schedule: cross})
		if err := w.Close(); err == nil || !strings.Contains(err.Error(), `study 2 is named "solo", not "cross"`) {
			t.Errorf("joining another name's study: %v", err)
		}
	})
}

// TestStudySetsApart: two studies of one name written by two writers
// stay two studies, each with its sessions; a resumed session stays in
// its study; dropping a session that never started a round drops the
// study it alone made.
func TestStudySetsApart(t *testing.T) {
	eachDatabase(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		db := open(t, dsn)
		session := func(opts WriterOptions, round bool) *Writer {
			t.Helper()
			w := db.NewWriter(opts)
			w.Put(record.Study{Name: "same", Schedule: `name = "same"`})
			if round {
				w.Put(record.Round{Index: 0, Technique: "tlc"})
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			return w
		}
		a := session(WriterOptions{SetKey: "a"}, true)
		b := session(WriterOptions{SetKey: "b"}, true)
		a2 := session(WriterOptions{Set: a.SetID()}, true)
		if a.SetID() == b.SetID() || a2.SetID() != a.SetID() {
			t.Fatalf("studies %d, %d, %d: want the first and third one study, the second another", a.SetID(), b.SetID(), a2.SetID())
		}
		sets, err := db.StudySets(ctx)
		if err != nil || len(sets) != 2 || len(sets[0].Sessions) != 2 || len(sets[1].Sessions) != 1 || sets[0].Key != "a" || sets[1].Key != "b" {
			t.Fatalf("studies %+v (%v)", sets, err)
		}
		r, err := db.ResumeWriter(ctx, a2.StudyID(), WriterOptions{})
		if err != nil {
			t.Fatal(err)
		}
		r.Put(record.Round{Index: 1, Technique: "alc"})
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
		if r.SetID() != a.SetID() || r.StudyID() != a2.StudyID() {
			t.Errorf("resumed: session %d of study %d, want %d of %d", r.StudyID(), r.SetID(), a2.StudyID(), a.SetID())
		}
		empty := session(WriterOptions{}, false)
		if err := db.DropEmptyStudy(ctx, empty.StudyID()); err != nil {
			t.Fatal(err)
		}
		joined := session(WriterOptions{Set: b.SetID()}, false)
		if err := db.DropEmptyStudy(ctx, joined.StudyID()); err != nil {
			t.Fatal(err)
		}
		sets, err = db.StudySets(ctx)
		if err != nil || len(sets) != 2 || len(sets[1].Sessions) != 1 {
			t.Fatalf("after dropping empty sessions: %+v (%v)", sets, err)
		}
	})
}

// TestCutRounds: the round a lost game server left started and not
// ended is marked cut in the session whose person had one of the codes,
// and only there; rounds that ended keep every record, unmarked.
func TestCutRounds(t *testing.T) {
	eachDatabase(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		db := open(t, dsn)
		at := time.Unix(1_800_000_000, 0)
		session := func(opts WriterOptions, code string) *Writer {
			t.Helper()
			w := db.NewWriter(opts)
			w.Put(record.Study{Name: "cut", Schedule: `name = "cut"`})
			w.Put(record.Round{Index: 0, Technique: "tlc", Started: at, Ended: at.Add(time.Minute)})
			w.Put(record.Participant{Seat: 0, Round: 0, Code: code})
			w.Put(record.Kill{Round: 0, At: time.Second, Killer: 0, Victim: 1})
			w.Put(record.Round{Index: 1, Technique: "alc", Started: at.Add(2 * time.Minute)})
			w.Put(record.Participant{Seat: 0, Round: 1, Code: code})
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			return w
		}
		a := session(WriterOptions{SetKey: "cut"}, "ABC234")
		b := session(WriterOptions{Set: a.SetID()}, "XYZ789")
		if n, err := db.CutRounds(ctx, a.SetID(), []string{"ABC234", "NOPE22"}); n != 1 || err != nil {
			t.Fatalf("marked %d, %v", n, err)
		}
		for _, c := range []struct {
			w   *Writer
			cut []bool
		}{{a, []bool{false, true}}, {b, []bool{false, false}}} {
			rounds, err := All[record.Round](ctx, db, c.w.StudyID())
			if err != nil || len(rounds) != 2 || rounds[0].Cut != c.cut[0] || rounds[1].Cut != c.cut[1] {
				t.Errorf("session %d: %+v %v, want cut %v", c.w.StudyID(), rounds, err, c.cut)
			}
			if kills, err := All[record.Kill](ctx, db, c.w.StudyID()); err != nil || len(kills) != 1 {
				t.Errorf("session %d's kills %+v %v", c.w.StudyID(), kills, err)
			}
		}
		if n, err := db.CutRounds(ctx, a.SetID()+100, []string{"XYZ789"}); n != 0 || err != nil {
			t.Errorf("another study: marked %d, %v", n, err)
		}
	})
}
