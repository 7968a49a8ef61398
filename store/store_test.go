package store

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/lagkit/lagkit/record"
)

func open(t testing.TB, dsn string) *DB {
	t.Helper()
	db, err := Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

var t0 = time.Date(2026, 11, 23, 20, 0, 0, 123456789, time.UTC)

// aStudy returns one study's records: every kind, a round started and
// then ended (one row), and a participant updated for the same round.
func aStudy(name string) []record.Record {
	return []record.Record{
		record.Study{Name: name, Schedule: "name = \"" + name + "\"\n", Seed: math.MaxUint64 - 7, Simulated: true, Started: t0,
			Consent: "I agree to take part.\nMy data are kept anonymous."},
		record.Question{ID: "age", Stage: record.StageIntake, Seq: 0, Kind: record.Number, Text: "Your age", Min: 18, Max: 99},
		record.Question{ID: "platform", Stage: record.StageIntake, Seq: 1, Kind: record.Choice, Text: "You play most on", Max: 2,
			Choices: "PC\nconsole\nphone"},
		record.Question{ID: "fair", Stage: record.StageRound, Kind: record.Fairness, Text: "Was it fair?", Min: -5, Max: 5,
			LowAnchor: "very unfair", HighAnchor: "very fair"},
		record.Client{Seat: 0, Round: -1, Consented: true, At: t0, RefreshHz: 143.9, Sensitivity: 2.2, UserAgent: "Chromium/131",
			ScreenW: 1920, ScreenH: 1080, PixelRatio: 1.25},
		record.Answer{Round: -1, Seat: 0, Question: "platform", Kind: record.Choice, Stage: record.StageIntake, Value: 1, Text: "console",
			At: t0.Add(time.Second / 2)},
		record.Round{Index: 0, Name: "tlc-1", Map: "metro", Mode: "ctf", Technique: "policy=tlc", Duration: 10 * time.Minute, Started: t0.Add(time.Second)},
		record.Participant{Seat: 0, Code: "K7QX", Team: 1, Round: 0, LatencyMS: 125},
		record.Participant{Seat: 1, Team: 0, Bot: true, Round: 0, LatencyMS: 0},
		record.Session{Round: 0, Seat: 0, Kind: record.Connect, Transport: "webtransport", At: t0.Add(2 * time.Second)},
		record.Shot{Round: 0, At: 1500 * time.Millisecond, Shooter: 0, ShotTick: 4000000000, Victim: 1, Weapon: 2, Part: "head", Policy: "tlc",
			Hit: true, Registered: true, Damage: 50, RewindMS: 187.5, RollbackM: 0.75, ObjectiveSBC: true, Appeal: "confirmed", Kill: true,
			EyeX: 1.5, EyeY: -2.25, EyeZ: 1.625, AimYawDeg: 359.5, AimPitchDeg: -12.25, ViewAt: 1312500 * time.Microsecond,
			ClientVerdict: record.VerdictMiss, SBCKnown: true},
		record.Shot{Round: 0, At: 1550 * time.Millisecond, Shooter: 1, ShotTick: 7, Victim: 0, Part: "torso", Policy: "tlc",
			Hit: true, Registered: true, Damage: 25, SBCKnown: true, ServerSBC: true},
		record.Shot{Round: 0, At: 1600 * time.Millisecond, Shooter: 1, Victim: -1, Policy: "tlc"},
		record.Shot{Round: 0, At: 1600 * time.Millisecond, Shooter: 0, Victim: -1, Policy: "tlc", ClientVerdict: record.VerdictHit},
		record.Kill{Round: 0, At: 1500 * time.Millisecond, Killer: 0, Victim: 1, Weapon: 2},
		record.Objective{Round: 0, At: 3 * time.Second, Seat: 0, Team: 1, Kind: "flag_taken"},
		record.SBCReport{Round: 0, At: 2 * time.Second, Reporter: 1, Shooter: 0, ShotTick: 4000000000, RewindMS: 187.5, RollbackM: 0.75, ObjectiveSBC: true, Appeal: "confirmed"},
		record.SBCReport{Round: 0, At: 2 * time.Second, Reporter: 0, Shooter: -1},
		record.Path{Round: 0, At: 100 * time.Millisecond, Seat: 0, Team: 1, X: -3.25, Y: 12.5, Z: 0.01, YawDeg: 90.5, PitchDeg: -3},
		record.Session{Round: 0, Seat: 0, Kind: record.Disconnect, Reason: "timeout", Transport: "webtransport", At: t0.Add(5 * time.Second)},
		record.Round{Index: 0, Name: "tlc-1", Map: "metro", Mode: "ctf", Technique: "policy=tlc", Duration: 10 * time.Minute, Ended: t0.Add(601 * time.Second), Cut: true},
		record.Participant{Seat: 0, Code: "K7QX", Team: 1, Round: 0, LatencyMS: 150, StandIn: true, StandInAt: 2500 * time.Millisecond, Person: true},
		record.Client{Seat: 0, Round: 0, At: t0.Add(time.Second), RefreshHz: 60, Sensitivity: 3.5, UserAgent: "Chromium/131",
			ScreenW: 1920, ScreenH: 1080, PixelRatio: 1},
		record.Answer{Round: 0, Seat: 0, Question: "fair", Kind: record.Fairness, Stage: record.StageRound, Value: -3, At: t0.Add(602 * time.Second)},
		record.Answer{Round: 0, Seat: 0, Question: "notes", Kind: record.Text, Stage: record.StageRound, Text: "lagged, \"a lot\"\nhonestly", At: t0.Add(603 * time.Second)},
		record.Frames{Seat: 0, Round: 0, Frames: 3600, MeanMS: 16.7, P50MS: 16.6, P95MS: 17.5, P99MS: 33.3, MaxMS: 50.25, At: t0.Add(601 * time.Second)},
		record.Answer{Round: 0, Seat: 0, Question: "overall", Kind: record.Likert7, Stage: record.StageFinal, Value: 6, At: t0.Add(604 * time.Second)},
	}
}

func put(w *Writer, rs []record.Record) {
	for _, r := range rs {
		w.Put(r)
	}
}

// readAll reads every table of study back, as records in the order each
// table keeps them.
func readAll(t *testing.T, db *DB, study int64) map[string][]record.Record {
	t.Helper()
	ctx := context.Background()
	out := map[string][]record.Record{}
	add := func(name string, err error, rs ...record.Record) {
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out[name] = append(out[name], rs...)
	}
	add("rounds", Each(ctx, db, study, func(r record.Round) error { out["rounds"] = append(out["rounds"], r); return nil }))
	add("participants", Each(ctx, db, study, func(r record.Participant) error { out["participants"] = append(out["participants"], r); return nil }))
	add("sessions", Each(ctx, db, study, func(r record.Session) error { out["sessions"] = append(out["sessions"], r); return nil }))
	add("shots", Each(ctx, db, study, func(r record.Shot) error { out["shots"] = append(out["shots"], r); return nil }))
	add("kills", Each(ctx, db, study, func(r record.Kill) error { out["kills"] = append(out["kills"], r); return nil }))
	add("objectives", Each(ctx, db, study, func(r record.Objective) error { out["objectives"] = append(out["objectives"], r); return nil }))
	add("sbc_reports", Each(ctx, db, study, func(r record.SBCReport) error { out["sbc_reports"] = append(out["sbc_reports"], r); return nil }))
	add("answers", Each(ctx, db, study, func(r record.Answer) error { out["answers"] = append(out["answers"], r); return nil }))
	add("paths", Each(ctx, db, study, func(r record.Path) error { out["paths"] = append(out["paths"], r); return nil }))
	add("questions", Each(ctx, db, study, func(r record.Question) error { out["questions"] = append(out["questions"], r); return nil }))
	add("clients", Each(ctx, db, study, func(r record.Client) error { out["clients"] = append(out["clients"], r); return nil }))
	add("frames", Each(ctx, db, study, func(r record.Frames) error { out["frames"] = append(out["frames"], r); return nil }))
	return out
}

// expected is what readAll should return for rs: per table, in order,
// rounds and participants merged by key (a later record replaces an
// earlier one, keeping a start time the later one leaves out).
func expected(rs []record.Record) map[string][]record.Record {
	out := map[string][]record.Record{}
	for _, r := range rs {
		switch r := r.(type) {
		case record.Study:
		case record.Round:
			merged := false
			for i, o := range out["rounds"] {
				if o := o.(record.Round); o.Index == r.Index {
					if r.Started.IsZero() {
						r.Started = o.Started
					}
					if r.Ended.IsZero() {
						r.Ended = o.Ended
					}
					out["rounds"][i], merged = r, true
				}
			}
			if !merged {
				out["rounds"] = append(out["rounds"], r)
			}
		case record.Participant:
			merged := false
			for i, o := range out["participants"] {
				if o := o.(record.Participant); o.Seat == r.Seat && o.Round == r.Round {
					out["participants"][i], merged = r, true
				}
			}
			if !merged {
				out["participants"] = append(out["participants"], r)
			}
		default:
			t, _ := tableOf(r)
			out[t.name] = append(out[t.name], r)
		}
	}
	return out
}

// TestRoundTrip stores a study of every record kind and reads it back
// equal, on SQLite and PostgreSQL.
func TestRoundTrip(t *testing.T) {
	eachDatabase(t, func(t *testing.T, dsn string) {
		db := open(t, dsn)
		w := db.NewWriter(WriterOptions{})
		rs := aStudy("alc pilot")
		put(w, rs)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if st := w.Stats(); st.Committed != int64(len(rs)) || st.Refused != 0 || st.Dropped != 0 {
			t.Fatalf("stats %+v, want %d committed", st, len(rs))
		}
		studies, err := db.Studies(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if len(studies) != 1 || studies[0].ID != w.StudyID() {
			t.Fatalf("studies %+v, want one with id %d", studies, w.StudyID())
		}
		if got, want := studies[0].Study, rs[0].(record.Study); !reflect.DeepEqual(got, want) {
			t.Fatalf("study read back as %+v, want %+v", got, want)
		}
		got, want := readAll(t, db, studies[0].ID), expected(rs)
		for name, w := range want {
			if !reflect.DeepEqual(got[name], w) {
				t.Errorf("%s read back as\n%+v\nwant\n%+v", name, got[name], w)
			}
		}
		if s, err := db.FindStudy(context.Background(), "alc pilot"); err != nil || s.ID != studies[0].ID {
			t.Fatalf("FindStudy by name: %+v, %v", s, err)
		}
		if _, err := db.FindStudy(context.Background(), "nope"); err == nil || !strings.Contains(err.Error(), `known: 1 "alc pilot"`) {
			t.Fatalf("FindStudy of an unknown study: %v", err)
		}
	})
}

// TestWritersShareADatabase: several writers (as several server
// processes would) write studies into one database at once; each study
// gets its own id from the database and keeps exactly its own records.
func TestWritersShareADatabase(t *testing.T) {
	eachDatabase(t, func(t *testing.T, dsn string) {
		const writers, paths = 4, 600
		var wg sync.WaitGroup
		ids := make([]int64, writers)
		errs := make([]error, writers)
		for i := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				db, err := Open(context.Background(), dsn) // its own connections, as another process
				if err != nil {
					errs[i] = err
					return
				}
				defer db.Close()
				w := db.NewWriter(WriterOptions{Batch: 64, Every: 5 * time.Millisecond})
				w.Put(record.Study{Name: fmt.Sprintf("server %d", i)})
				for k := range paths {
					w.Put(record.Path{Seat: i, At: time.Duration(k) * time.Millisecond, X: float64(k)})
				}
				errs[i] = w.Close()
				ids[i] = w.StudyID()
			}()
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		db := open(t, dsn)
		seen := map[int64]bool{}
		for i, id := range ids {
			if seen[id] || id == 0 {
				t.Fatalf("study ids %v: want distinct", ids)
			}
			seen[id] = true
			ps, err := All[record.Path](context.Background(), db, id)
			if err != nil {
				t.Fatal(err)
			}
			if len(ps) != paths {
				t.Fatalf("study of server %d holds %d paths, want %d", i, len(ps), paths)
			}
			for k, p := range ps {
				if p.Seat != i || p.X != float64(k) {
					t.Fatalf("study of server %d: path %d is %+v", i, k, p)
				}
			}
		}
	})
}

// TestMigrations: reopening applies nothing twice, and a database from a
// newer lagkit is refused with a clear error.
func TestMigrations(t *testing.T) {
	eachDatabase(t, func(t *testing.T, dsn string) {
		db := open(t, dsn)
		db.Close()
		db = open(t, dsn) // the schema is there: nothing to apply
		var n int
		if err := db.db.QueryRow("SELECT COUNT(*) FROM schema_migrations").Scan(&n); err != nil || n != SchemaVersion() {
			t.Fatalf("%d migrations recorded (%v), want %d", n, err, SchemaVersion())
		}
		if _, err := db.db.Exec(db.dialect.rebind("INSERT INTO schema_migrations (version, name, applied_ns) VALUES (?, ?, ?)"), 999, "9999_future.sql", 0); err != nil {
			t.Fatal(err)
		}
		db.Close()
		_, err := Open(context.Background(), dsn)
		if err == nil || !strings.Contains(err.Error(), "schema version 999 is newer") {
			t.Fatalf("opening a newer database: %v", err)
		}
	})
}

// TestRefusedRecords: a value the database cannot keep, and a record
// before any study, are refused and reported; the records around them
// are stored.
func TestRefusedRecords(t *testing.T) {
	eachDatabase(t, func(t *testing.T, dsn string) {
		db := open(t, dsn)
		w := db.NewWriter(WriterOptions{})
		w.Put(record.Kill{Killer: 1})
		w.Put(record.Study{Name: "s"})
		w.Put(record.Path{X: math.NaN()})
		w.Put(record.Answer{Question: "q", Text: "bad \xff utf-8"})
		w.Put(record.Shot{Victim: -1, ClientVerdict: "maybe"})
		w.Put(record.Path{X: 1})
		err := w.Close()
		if err == nil || !strings.Contains(err.Error(), "before any study") {
			t.Fatalf("Close: %v, want the first refusal", err)
		}
		if st := w.Stats(); st.Refused != 4 || st.Committed != 2 {
			t.Fatalf("stats %+v, want 4 refused and 2 committed", st)
		}
		ps, err := All[record.Path](context.Background(), db, w.StudyID())
		if err != nil || len(ps) != 1 || ps[0].X != 1 {
			t.Fatalf("paths %+v (%v), want the good one", ps, err)
		}
	})
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ dsn, want string }{
		{"", "no database given"},
		{"mysql://x/y", `unknown scheme "mysql"`},
		{dir, "is a folder"},
		{filepath.Join(dir, "missing", "x.db"), "does not exist"},
		{"postgres://127.0.0.1/", "no database name"},
		{"postgres://:pw@/db", "no host"},
		{"postgres://lagkit:secret@127.0.0.1:1/db?connect_timeout=2", "cannot connect"},
	} {
		start := time.Now()
		_, err := Open(context.Background(), tc.dsn)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Open(%q): %v, want %q", tc.dsn, err, tc.want)
			continue
		}
		if strings.Contains(err.Error(), "secret") {
			t.Errorf("Open(%q): the error shows the password: %v", tc.dsn, err)
		}
		if d := time.Since(start); d > ConnectTimeout+2*time.Second {
			t.Errorf("Open(%q) took %v", tc.dsn, d)
		}
	}
}

// crashChild names the environment variable that makes the test binary
// the crash test's child: it writes to the SQLite file named there until
// killed, printing each committed total.
const crashChild = "LAGKIT_STORE_CRASH_CHILD"

func crashChildMain() {
	db, err := Open(context.Background(), os.Getenv(crashChild))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	out := bufio.NewWriter(os.Stdout)
	w := db.NewWriter(WriterOptions{Batch: 200, Every: 2 * time.Millisecond, OnCommit: func(c Commit) {
		fmt.Fprintf(out, "committed %d\n", c.Total)
		out.Flush()
	}})
	w.Put(record.Study{Name: "crash"})
	for k := 0; ; k++ {
		w.Put(record.Path{Seat: k % 12, At: time.Duration(k) * time.Millisecond, X: float64(k)})
		if k%50 == 0 {
			time.Sleep(time.Millisecond)
		}
	}
}

// TestKilledWriterLosesNothingCommitted kills a process writing a study
// with SIGKILL mid-stream: the database opens intact, every record the
// process saw committed is there, and the paths form one unbroken run
// (a batch is stored whole or not at all).
func TestKilledWriterLosesNothingCommitted(t *testing.T) {
	path := filepath.Join(t.TempDir(), "crash.db")
	cmd := exec.Command(os.Args[0], "-test.run", "^$")
	cmd.Env = append(os.Environ(), crashChild+"="+path)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var last int64
	sc := bufio.NewScanner(stdout)
	for commits := 0; commits < 20 && sc.Scan(); commits++ {
		n, err := strconv.ParseInt(strings.TrimPrefix(sc.Text(), "committed "), 10, 64)
		if err != nil {
			t.Fatalf("child printed %q", sc.Text())
		}
		last = n
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if last == 0 {
		t.Fatal("the child committed nothing")
	}
	db := open(t, path)
	var check string
	if err := db.db.QueryRow("PRAGMA integrity_check").Scan(&check); err != nil || check != "ok" {
		t.Fatalf("integrity_check: %q, %v", check, err)
	}
	studies, err := db.Studies(context.Background())
	if err != nil || len(studies) != 1 {
		t.Fatalf("studies %+v, %v", studies, err)
	}
	ps, err := All[record.Path](context.Background(), db, studies[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(ps))+1 < last {
		t.Fatalf("%d records stored, but the child saw %d committed", len(ps)+1, last)
	}
	for k, p := range ps {
		if p.X != float64(k) {
			t.Fatalf("path %d is %+v: the run is broken", k, p)
		}
	}
	t.Logf("child saw %d committed; %d stored after SIGKILL", last, len(ps)+1)
}

// BenchmarkWriter puts movement paths as a study server does (12
// players at 20 Hz is 240 a second; this puts them as fast as it can)
// and reports how far behind the writer fell: the deepest queue, the
// longest a record waited for its commit, and the time Put blocked.
func BenchmarkWriter(b *testing.B) {
	for _, kind := range []string{"sqlite", "postgres"} {
		b.Run(kind, func(b *testing.B) {
			dsn := filepath.Join(b.TempDir(), "bench.db")
			if kind == "postgres" {
				dsn = postgresURL(b)
			}
			db := open(b, dsn)
			w := db.NewWriter(WriterOptions{})
			w.Put(record.Study{Name: "bench"})
			b.ReportAllocs()
			b.ResetTimer()
			for k := range b.N {
				w.Put(record.Path{Seat: k % 12, At: time.Duration(k) * time.Millisecond, X: float64(k)})
			}
			if err := w.Close(); err != nil && !errors.Is(err, context.Canceled) {
				b.Fatal(err)
			}
			b.StopTimer()
			st := w.Stats()
			b.ReportMetric(float64(st.MaxDepth), "max-queue")
			b.ReportMetric(float64(st.MaxLag)/float64(time.Millisecond), "max-lag-ms")
			b.ReportMetric(float64(st.Blocked)/float64(time.Millisecond), "blocked-ms")
		})
	}
}

// TestMigrateFromVersion1: a database of schema version 1, its rounds
// holding their technique's settings as their technique and its studies
// no schedule key, is brought up to date when opened: the settings are
// copied to the rounds' setting, the keys are empty, and the study reads
// back whole.
func TestMigrateFromVersion1(t *testing.T) {
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
		tx, err := raw.db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.ExecContext(ctx, `CREATE TABLE schema_migrations (version BIGINT PRIMARY KEY, name TEXT NOT NULL, applied_ns BIGINT NOT NULL)`); err != nil {
			t.Fatal(err)
		}
		if err := raw.apply(ctx, tx, ms[0]); err != nil {
			t.Fatal(err)
		}
		for _, q := range []string{
			`INSERT INTO studies (name, schedule, seed, simulated, started_ns) VALUES ('old', 'name = "old"', 1, false, NULL)`,
			`INSERT INTO rounds (study_id, idx, seq, name, map, mode, technique, duration_ns, started_ns, ended_ns) VALUES (1, 0, 0, 'r', 'arena', 'ffa', 'policy=tlc', 1000, NULL, NULL)`,
		} {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		raw.Close()

		db := open(t, dsn)
		all, err := db.Studies(ctx)
		if err != nil || len(all) != 1 || all[0].Name != "old" || all[0].ScheduleKey != "" {
			t.Fatalf("studies %+v (%v)", all, err)
		}
		rounds, err := All[record.Round](ctx, db, 1)
		if err != nil || len(rounds) != 1 || rounds[0].Technique != "policy=tlc" || rounds[0].Setting != "policy=tlc" {
			t.Fatalf("rounds %+v (%v)", rounds, err)
		}
		w := db.NewWriter(WriterOptions{})
		w.Put(record.Study{Name: "new", ScheduleKey: "k"})
		w.Put(record.Round{Index: 0, Technique: "placebo", Setting: "policy=tlc"})
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		rounds, err = All[record.Round](ctx, db, w.StudyID())
		if err != nil || len(rounds) != 1 || rounds[0].Technique != "placebo" || rounds[0].Setting != "policy=tlc" {
			t.Fatalf("new rounds %+v (%v)", rounds, err)
		}
	})
}

// TestMigrateShotsSBC: a shot stored before migration 14 keeps its
// objective_sbc and reads back with sbc_known and server_sbc false; one
// stored after keeps all three, on SQLite and PostgreSQL.
func TestMigrateShotsSBC(t *testing.T) {
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
		i := slices.IndexFunc(ms, func(m migration) bool { return strings.HasSuffix(m.name, "_sbc_known.sql") })
		if i < 0 {
			t.Fatal("no sbc_known migration")
		}
		tx, err := raw.db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.ExecContext(ctx, `CREATE TABLE schema_migrations (version BIGINT PRIMARY KEY, name TEXT NOT NULL, applied_ns BIGINT NOT NULL)`); err != nil {
			t.Fatal(err)
		}
		for _, m := range ms[:i] {
			if err := raw.apply(ctx, tx, m); err != nil {
				t.Fatal(err)
			}
		}
		for _, q := range []string{
			`INSERT INTO studies (name, schedule, seed, simulated, started_ns) VALUES ('old', 'name = "old"', 1, false, NULL)`,
			`INSERT INTO shots (study_id, seq, round, t_ns, shooter, shot_tick, victim, weapon, part, policy, hit, registered, damage, rewind_ms, rollback_m, objective_sbc, appeal, kill)
			 VALUES (1, 0, 0, 1000, 0, 5, 1, 0, 'head', 'tlc', true, true, 50, 0, 0, true, '', false)`,
		} {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		raw.Close()

		db := open(t, dsn)
		shots, err := All[record.Shot](ctx, db, 1)
		if err != nil || len(shots) != 1 {
			t.Fatalf("old shots %+v (%v)", shots, err)
		}
		if s := shots[0]; !s.ObjectiveSBC || s.SBCKnown || s.ServerSBC {
			t.Errorf("old shot read back as objective %v, known %v, server %v; want true, false, false", s.ObjectiveSBC, s.SBCKnown, s.ServerSBC)
		}
		w := db.NewWriter(WriterOptions{})
		w.Put(record.Study{Name: "new"})
		w.Put(record.Shot{Victim: 1, Part: "legs", Hit: true, Registered: true, SBCKnown: true, ServerSBC: true})
		w.Put(record.Shot{Victim: 1, Part: "legs", Hit: true, Registered: true, ObjectiveSBC: true, SBCKnown: true})
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		shots, err = All[record.Shot](ctx, db, w.StudyID())
		if err != nil || len(shots) != 2 {
			t.Fatalf("new shots %+v (%v)", shots, err)
		}
		if a, b := shots[0], shots[1]; a.ObjectiveSBC || !a.SBCKnown || !a.ServerSBC || !b.ObjectiveSBC || !b.SBCKnown || b.ServerSBC {
			t.Errorf("new shots read back as %+v and %+v", a, b)
		}
	})
}
