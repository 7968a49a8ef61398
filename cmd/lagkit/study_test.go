package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lagkit/lagkit/reckoning"
	"github.com/lagkit/lagkit/store"
	"github.com/lagkit/lagkit/study"
)

// lagkit runs the command line and returns its exit code, stdout and
// stderr.
func lagkit(args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	code := execute(context.Background(), args, &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestStudyCheck(t *testing.T) {
	code, out, errOut := lagkit("study", "check", "../../presets/alc.toml")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"study alc: 6 seats (6 for people, 0 for bots)", "2 rounds, 22:00 in all", "policy=alc low_ping_ms=50",
		"latency (one way) seats 0-2 135 ms, seats 3-5 10 ms", "shot_behind_cover"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	code, out, _ = lagkit("study", "check", "--json", "../../presets/atd.toml")
	var sum study.Summary
	if err := json.Unmarshal([]byte(out), &sum); code != 0 || err != nil {
		t.Fatalf("exit %d, %v: %s", code, err, out)
	}
	if len(sum.Rounds) != 5 || !sum.Rounds[0].Ready || sum.Rounds[0].DurationS != 50 || sum.Seats[1].Code != "P2" {
		t.Errorf("atd summary %+v", sum)
	}
}

func TestStudyCheckErrors(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.toml")
	if err := os.WriteFile(bad, []byte("name = \"x\"\n[[seat]]\n[[technique]]\nname = \"t\"\npolicy = { name = \"magic\" }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"study", "check", bad}, 1, "bad.toml:5:12: technique[0].policy.name: unknown policy \"magic\", want none, tlc, clc, alc or alc-predict"},
		{[]string{"study", "check", "missing.toml"}, 1, "missing.toml"},
		{[]string{"study", "check"}, 2, "accepts 1 arg"},
		{[]string{"study", "run", "../../presets/alc.toml", "--out", "x"}, 2, "--out: a live study writes its records to --db"},
		{[]string{"study", "run", "../../presets/alc.toml", "--simulate", "--listen", "127.0.0.1:0"}, 2, "--listen: only a live study (without --simulate) serves players"},
		{[]string{"study", "run", "../../presets/alc.toml", "--listen", ""}, 2, "--listen: a live study needs an address"},
		{[]string{"study", "grade"}, 2, "unknown command \"grade\" for lagkit study (commands: check, export, lobby, rehearse, report, run)"},
	}
	for _, c := range cases {
		code, _, errOut := lagkit(c.args...)
		if code != c.code || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, %q; want exit %d and %q", c.args, code, errOut, c.code, c.want)
		}
	}
}

// TestStudyRunSimulate: a quick simulated run of the atd preset writes
// its report and stores its records in the study database, which study
// export writes out as CSV and as path files lagkit trend reads; a
// second run into the same folder needs --force.
func TestStudyRunSimulate(t *testing.T) {
	tmp := t.TempDir()
	dir, db := filepath.Join(tmp, "out"), filepath.Join(tmp, "study.db")
	args := []string{"study", "run", "../../presets/atd.toml", "--simulate", "--quick", "--seed", "2", "--out", dir, "--db", db}
	code, out, errOut := lagkit(args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "study atd: 5 rounds simulated") || !strings.Contains(errOut, "round 5 of 5 (adaptive 2 s) played") {
		t.Errorf("output %q, progress %q", out, errOut)
	}
	data, err := os.ReadFile(filepath.Join(dir, study.JSONFile))
	if err != nil {
		t.Fatal(err)
	}
	var rep study.Report
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Seed != "2" || !rep.Simulated || len(rep.Rounds) != 5 || rep.Rounds[0].DurationS != 20 || rep.AnswersNote != study.NoAnswersFromBots {
		t.Errorf("report %+v", rep)
	}
	shots := 0
	for _, r := range rep.Rounds {
		shots += r.Shots
	}
	if shots == 0 {
		t.Error("no shots in five rounds")
	}
	if code, _, errOut := lagkit(args...); code != 2 || !strings.Contains(errOut, "is not empty: give --force") {
		t.Errorf("second run: exit %d, %q", code, errOut)
	}

	ex := filepath.Join(tmp, "export")
	code, out, errOut = lagkit("study", "export", "--db", db, "--out", ex, "--study", "atd")
	if code != 0 || !strings.Contains(out, "exported 1 study (1 session) from") || !strings.Contains(out, "5 path files") {
		t.Fatalf("export: exit %d, %q, %q", code, out, errOut)
	}
	rows := func(name string) [][]string {
		f, err := os.Open(filepath.Join(ex, name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		recs, err := csv.NewReader(f).ReadAll()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return recs
	}
	if got := len(rows("shots.csv")) - 1; got != shots {
		t.Errorf("shots.csv holds %d shots, the report %d", got, shots)
	}
	if r := rows("rounds.csv"); len(r) != 6 || r[1][4] != "arena" || r[1][6] != "none" || r[1][8] != "20" {
		t.Errorf("rounds.csv: %q", r)
	}
	// Rounds are numbered from 1 in the export as in the report's
	// tables; the seats the schedule gives codes keep them.
	reported := func(name string) [][]string {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		recs, err := csv.NewReader(f).ReadAll()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return recs
	}
	for _, c := range []struct {
		file, col string
		recs      [][]string
	}{{"rounds.csv", "round", rows("rounds.csv")}, {"shots.csv", "round", rows("shots.csv")}, {"participants.csv", "round", rows("participants.csv")},
		{"study_rounds.csv", "round", reported("study_rounds.csv")}} {
		i := slices.Index(c.recs[0], c.col)
		if i < 0 || c.recs[1][i] != "1" || c.recs[len(c.recs)-1][i] != "5" {
			t.Errorf("%s: %s column %d runs %q to %q, want 1 to 5", c.file, c.col, i, c.recs[1][i], c.recs[len(c.recs)-1][i])
		}
	}
	if p := rows("participants.csv"); p[0][4] != "code" || p[2][2] != "1" || p[2][4] != "P2" || p[2][6] != "true" {
		t.Errorf("participants.csv: seat 1 of round 1 is %q, want its schedule code P2 and bot true (header %q)", p[2], p[0])
	}
	f, err := os.Open(filepath.Join(ex, "paths-study1-round1.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	samples, err := reckoning.ReadPaths("paths-study1-round1.csv", f)
	if err != nil || len(samples) < 20*20 {
		t.Fatalf("the exported paths read as %d samples (%v), want at least 20 s at 20 Hz", len(samples), err)
	}
	if code, _, errOut := lagkit("study", "export", "--db", db, "--out", filepath.Join(tmp, "x"), "--study", "nope"); code != 1 || !strings.Contains(errOut, `no study "nope" (known: 1 "atd" (simulated, 1 session`) {
		t.Errorf("export of an unknown study: exit %d, %q", code, errOut)
	}
}

// TestStudyCheckAsRun: a schedule with jitter on some seats only, which
// a live run plays and the simulation driver cannot, passes study check
// with a note, fails study check --simulate with the reason study run
// --simulate gives, and that run stores no study and leaves no folder.
func TestStudyCheckAsRun(t *testing.T) {
	tmp := t.TempDir()
	sched := filepath.Join(tmp, "jitter.toml")
	err := os.WriteFile(sched, []byte(`name = "jitter"
[[seat]]
count = 2
[[technique]]
name = "tlc"
[[round]]
map = "arena"
mode = "ffa"
duration = "5s"
latency = [{ seats = [1], latency_ms = 40, jitter_ms = 10 }]
`), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	const why = "round 1 (round 1): the simulation driver gives every seat of a round one jitter and loss"
	code, out, errOut := lagkit("study", "check", sched)
	if code != 0 || !strings.Contains(out, "study jitter: 2 seats") || !strings.Contains(errOut, "note: ") || !strings.Contains(errOut, why) {
		t.Fatalf("check: exit %d, %q, %q", code, out, errOut)
	}
	code, _, checkErr := lagkit("study", "check", "--simulate", sched)
	if code != 1 || !strings.Contains(checkErr, "study run --simulate cannot play it: "+why) {
		t.Fatalf("check --simulate: exit %d, %q", code, checkErr)
	}
	dir, db := filepath.Join(tmp, "out"), filepath.Join(tmp, "study.db")
	code, _, runErr := lagkit("study", "run", sched, "--simulate", "--quick", "--out", dir, "--db", db)
	if code != 1 || runErr != checkErr {
		t.Fatalf("run --simulate: exit %d, %q; want check --simulate's %q", code, runErr, checkErr)
	}
	if _, err := os.Stat(dir); err == nil {
		t.Error("the failed run left its output folder")
	}
	if _, err := os.Stat(db); err == nil {
		d, err := store.Open(context.Background(), db)
		if err != nil {
			t.Fatal(err)
		}
		defer d.Close()
		if all, _ := d.Studies(context.Background()); len(all) != 0 {
			t.Errorf("the failed run stored %d studies", len(all))
		}
	}
}

// TestStudyExportPersonSeats: a simulated pilot's participants.csv says
// which seats the schedule gives to people (person), which the report
// analyses as the participants, though bots played every seat (bot):
// presets/online.toml's four people's seats and its two bots'.
func TestStudyExportPersonSeats(t *testing.T) {
	tmp := t.TempDir()
	db, ex := filepath.Join(tmp, "study.db"), filepath.Join(tmp, "csv")
	if code, _, errOut := lagkit("study", "run", "../../presets/online.toml", "--simulate", "--group", "0", "--quick", "--db", db, "--out", filepath.Join(tmp, "out")); code != 0 {
		t.Fatalf("study run: exit %d: %s", code, errOut)
	}
	if code, _, errOut := lagkit("study", "export", "--db", db, "--out", ex); code != 0 {
		t.Fatalf("study export: exit %d: %s", code, errOut)
	}
	recs := readCSV(t, filepath.Join(ex, "participants.csv"))
	col := func(name string) int { return slices.Index(recs[0], name) }
	seat, bot, person := col("seat"), col("bot"), col("person")
	if seat < 0 || bot < 0 || person < 0 || len(recs) != 1+6*4 {
		t.Fatalf("participants.csv: header %q, %d rows; want seat, bot and person, 6 seats in 4 rounds", recs[0], len(recs)-1)
	}
	for _, r := range recs[1:] {
		want := map[bool]string{true: "true", false: "false"}[r[seat] < "4"]
		if r[bot] != "true" || r[person] != want {
			t.Errorf("participants.csv row %q: bot %s, person %s; want bot true, person %s", r, r[bot], r[person], want)
		}
	}
}
