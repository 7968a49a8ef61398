package main

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lagkit/lagkit/internal/walltest"
	"github.com/lagkit/lagkit/record"
	"github.com/lagkit/lagkit/store"
)

// placeboSchedule has two techniques of the same settings, tlc and a
// placebo of it, and alc.
const placeboSchedule = `name = "placebo"
[[seat]]
count = 4
[[technique]]
name = "tlc"
[[technique]]
name = "placebo"
policy = { name = "tlc" }
[[technique]]
name = "alc"
policy = { name = "alc" }
[[latency]]
seats = [2, 3]
latency_ms = 125
[[round]]
map = "arena"
mode = "ffa"
duration = "10s"
technique = "tlc"
[[round]]
map = "arena"
mode = "ffa"
duration = "10s"
technique = "placebo"
[[round]]
map = "arena"
mode = "ffa"
duration = "10s"
technique = "alc"
`

// column returns the cells of CSV rows under header col.
func column(t *testing.T, rows [][]string, col string) []string {
	t.Helper()
	i := slices.Index(rows[0], col)
	if i < 0 {
		t.Fatalf("no column %q in %q", col, rows[0])
	}
	var out []string
	for _, r := range rows[1:] {
		out = append(out, r[i])
	}
	return out
}

// TestStudyTechniquesByName: a placebo of the same settings as tlc stays
// a technique of its own in the records, the export and the report, and
// every table's technique column names techniques alike.
func TestStudyTechniquesByName(t *testing.T) {
	tmp := t.TempDir()
	sched := filepath.Join(tmp, "placebo.toml")
	if err := os.WriteFile(sched, []byte(placeboSchedule), 0o644); err != nil {
		t.Fatal(err)
	}
	out, db := filepath.Join(tmp, "out"), filepath.Join(tmp, "study.db")
	if code, _, errOut := lagkit("study", "run", sched, "--simulate", "--out", out, "--db", db); code != 0 {
		t.Fatalf("exit %d, %q", code, errOut)
	}
	rep, _ := readStudyReport(t, out)
	var names []string
	for _, tr := range rep.Techniques {
		names = append(names, tr.Name)
	}
	if !slices.Equal(names, []string{"tlc", "placebo", "alc"}) || rep.Techniques[0].Setting != rep.Techniques[1].Setting ||
		len(rep.Techniques[1].Rounds) != 1 {
		t.Fatalf("techniques %q (%+v), want tlc, placebo and alc, the first two of one setting", names, rep.Techniques)
	}
	byRound := column(t, readCSV(t, filepath.Join(out, "study_rounds.csv")), "technique")
	byTech := column(t, readCSV(t, filepath.Join(out, "study_techniques.csv")), "technique")
	for _, cells := range [][]string{byRound, byTech} {
		for _, c := range cells {
			if !slices.Contains(names, c) {
				t.Errorf("a technique cell holds %q, want a technique's name", c)
			}
		}
	}
	ex := filepath.Join(tmp, "export")
	if code, _, errOut := lagkit("study", "export", "--db", db, "--out", ex); code != 0 {
		t.Fatalf("export: exit %d, %q", code, errOut)
	}
	rounds := readCSV(t, filepath.Join(ex, "rounds.csv"))
	if got := column(t, rounds, "technique"); !slices.Equal(got, names) {
		t.Errorf("rounds.csv techniques %q, want %q", got, names)
	}
	if s := column(t, rounds, "setting"); s[0] != s[1] || !strings.HasPrefix(s[0], "policy=tlc ") || !strings.HasPrefix(s[2], "policy=alc ") {
		t.Errorf("rounds.csv settings %q", s)
	}
}

// TestStudyReportOfOldDatabase: a database of schema version 1, whose
// rounds kept the technique's settings as their technique, is migrated
// when opened: its rounds keep their settings in the setting column, the
// report names their techniques from the stored schedule, placebo
// included, and a live study stopped in it resumes.
func TestStudyReportOfOldDatabase(t *testing.T) {
	tmp := t.TempDir()
	db := filepath.Join(tmp, "old.db")
	schema, err := os.ReadFile("../../store/migrations/0001_init.sql")
	if err != nil {
		t.Fatal(err)
	}
	old, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	stmts := []string{strings.ReplaceAll(string(schema), "{{identity}}", "INTEGER PRIMARY KEY AUTOINCREMENT"),
		`CREATE TABLE schema_migrations (version BIGINT PRIMARY KEY, name TEXT NOT NULL, applied_ns BIGINT NOT NULL)`,
		`INSERT INTO schema_migrations VALUES (1, '0001_init.sql', 0)`}
	tlc := "policy=tlc delay=none time_warp=0s prediction=off replication=full display=interpolate"
	alc := "policy=alc delay=none time_warp=0s prediction=off replication=full display=interpolate"
	if _, err := old.Exec(stmts[0]); err != nil {
		t.Fatal(err)
	}
	for _, q := range stmts[1:] {
		if _, err := old.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := old.Exec(`INSERT INTO studies (name, schedule, seed, simulated, started_ns) VALUES ('placebo', ?, 1, false, 0)`, placeboSchedule); err != nil {
		t.Fatal(err)
	}
	// The third round was stopped before it ended.
	for i, tech := range []string{tlc, tlc, alc} {
		var ended any = int64(10000000000)
		if i == 2 {
			ended = nil
		}
		if _, err := old.Exec(`INSERT INTO rounds (study_id, idx, seq, name, map, mode, technique, duration_ns, started_ns, ended_ns)
			VALUES (1, ?, ?, ?, 'arena', 'ffa', ?, 10000000000, 0, ?)`, i, i, "round", tech, ended); err != nil {
			t.Fatal(err)
		}
		for seat := range 4 {
			if _, err := old.Exec(`INSERT INTO participants (study_id, seat, round, seq, code, team, bot, latency_ms) VALUES (1, ?, ?, 0, '', 0, false, 10)`, seat, i); err != nil {
				t.Fatal(err)
			}
		}
	}
	old.Close()

	dir := filepath.Join(tmp, "report")
	if code, _, errOut := lagkit("study", "report", "--db", db, "--out", dir); code != 0 {
		t.Fatalf("exit %d, %q", code, errOut)
	}
	rep, _ := readStudyReport(t, dir)
	var names []string
	for _, tr := range rep.Techniques {
		names = append(names, tr.Name)
	}
	if !slices.Equal(names, []string{"tlc", "placebo", "alc"}) || rep.Techniques[1].Setting != tlc || rep.Rounds[1].Technique != "placebo" {
		t.Fatalf("techniques %q, rounds %+v", names, rep.Rounds)
	}
	d, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	rounds, err := store.All[record.Round](context.Background(), d, 1)
	if err != nil || len(rounds) != 3 || rounds[2].Setting != alc || rounds[2].Technique != alc {
		t.Fatalf("migrated rounds %+v (%v)", rounds, err)
	}
	all, err := d.Studies(context.Background())
	if err != nil || len(all) != 1 || all[0].ScheduleKey != "" || all[0].Schedule != placeboSchedule {
		t.Fatalf("migrated studies %+v (%v)", all, err)
	}
	d.Close()

	// The schedule file as the study ran it resumes the stored study.
	walltest.Lock(t)
	sched := filepath.Join(tmp, "placebo.toml")
	if err := os.WriteFile(sched, []byte(placeboSchedule), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out, errOut lockedWriter
	done := make(chan int, 1)
	go func() {
		done <- execute(ctx, []string{"study", "run", sched, "--db", db, "--listen", "127.0.0.1:0", "--udp", "", "--log-format", "json"}, &out, &errOut)
	}()
	for !strings.Contains(out.String(), "seat 3: ") {
		select {
		case code := <-done:
			t.Fatalf("study run ended (exit %d) before it served: %s\n%s", code, out.String(), errOut.String())
		case <-time.After(50 * time.Millisecond):
		}
	}
	cancel() // as a SIGINT would: a stopped study exits with status 3
	if code := <-done; code != exitStopped || !strings.Contains(out.String(), "resuming session 1 of study 1 (placebo) at round 3") {
		t.Fatalf("exit %d:\n%s\n%s", code, out.String(), errOut.String())
	}
}
