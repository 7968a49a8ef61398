package main

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/lagkit/lagkit/record"
	"github.com/lagkit/lagkit/store"
	"github.com/lagkit/lagkit/study"
)

// TestStudyRehearse: lagkit study rehearse brings five headless
// participants through the lobby's protocol into matches on two game
// server processes, each seat played with a bot through the page's
// endpoints and WebSocket and its questionnaire answered; the first
// match's game server is killed a second into its round. Every arrival
// is accounted for (completed, or dropped with the killed server), the
// killed session's committed records stay in the database, and the
// other sessions' people played their round and answered, every session
// one study's.
func TestStudyRehearse(t *testing.T) {
	tmp := t.TempDir()
	sched := filepath.Join(tmp, "rehearse.toml")
	err := os.WriteFile(sched, []byte(`name = "rehearse-test"
[[seat]]
count = 2
[[seat]]
bot = true
[[technique]]
name = "tlc"
[[round]]
name = "only"
map = "arena"
mode = "ffa"
duration = "4s"
[[question]]
id = "fair"
text = "Was it fair?"
kind = "fairness"
[consent]
text = "You will play a short game."
[online]
max_wait = "2s"
`), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(tmp, "rehearsal.db")
	t.Setenv("LAGKIT_AS_COMMAND", "1") // the game servers are this binary as the command
	var out, errOut lockedWriter
	code := execute(context.Background(), []string{"study", "rehearse", sched, "--participants", "5", "--over", "3s",
		"--servers", "2", "--kill-after", "1s", "--db", db, "--log-format", "json"}, &out, &errOut)
	if code != 0 {
		t.Fatalf("exit %d:\n%s\n%s", code, out.String(), errOut.String())
	}
	o := out.String()
	t.Log(o)
	defer func() {
		if t.Failed() {
			t.Logf("the lobby's and the game servers' logs:\n%s", errOut.String())
		}
	}()
	if !strings.Contains(o, "accounted for: 5 of 5 participants (5 of 5 arrived completed, dropped or refused; 0 did not arrive)") || !strings.Contains(o, "match 0's game server was killed mid-round") {
		t.Fatalf("output:\n%s", o)
	}
	count := func(row string) int {
		m := regexp.MustCompile(`(?m)^\s*` + row + `\s+(\d+)\s*$`).FindStringSubmatch(o)
		if m == nil {
			t.Fatalf("no %q row:\n%s", row, o)
		}
		n, _ := strconv.Atoi(m[1])
		return n
	}
	completed, dropped, fromMatch := count("completed"), count("dropped"), count("from a match")
	if completed+dropped != 5 || fromMatch < 1 || fromMatch != dropped || completed < 1 {
		t.Errorf("completed %d, dropped %d (%d from a match)", completed, dropped, fromMatch)
	}

	sdb, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer sdb.Close()
	rows, err := sdb.Studies(context.Background())
	if err != nil || len(rows) < 2 {
		t.Fatalf("studies %d, %v", len(rows), err)
	}
	// The sessions started at once are one study's, which the rehearsal
	// started before its first match.
	if sets, err := sdb.StudySets(context.Background()); err != nil || len(sets) != 1 || len(sets[0].Sessions) != len(rows) {
		t.Errorf("%d sessions in %d studies (%v)", len(rows), len(sets), err)
	}
	people, answered := 0, 0
	for i, row := range rows {
		n := 0
		if err := store.Each(context.Background(), sdb, row.ID, func(p record.Participant) error {
			if !p.Bot {
				n++
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			t.Errorf("session %d (study %d) recorded no person's seat", i, row.ID)
		}
		people += n
		if err := store.Each(context.Background(), sdb, row.ID, func(a record.Answer) error { answered++; return nil }); err != nil {
			t.Fatal(err)
		}
	}
	if people != 5 || answered != completed {
		t.Errorf("%d people's seats recorded across %d sessions, %d answers from %d who completed", people, len(rows), answered, completed)
	}

	// The lobby stored its events as they happened: the report's
	// participant flow is the one the rehearsal printed.
	dir := filepath.Join(tmp, "report")
	if code, rout, rerr := lagkit("study", "report", "--db", db, "--out", dir); code != 0 {
		t.Fatalf("report: exit %d: %s%s", code, rout, rerr)
	}
	rep, _ := readStudyReport(t, dir)
	if rep.Flow == nil {
		t.Fatalf("the report has no participant flow: %q", rep.FlowNote)
	}
	for _, c := range []struct{ printed, stage string }{
		{"arrived", study.FlowArrived}, {"consented", study.FlowConsented}, {"admitted", study.FlowAdmitted}, {"refused", study.FlowRefused},
		{"matched", study.FlowMatched}, {"completed", study.FlowCompleted},
		{"at the prescreen", study.FlowDroppedPrescreen}, {"waiting", study.FlowDroppedWaiting}, {"from a match", study.FlowDroppedMatch},
	} {
		if got, want := rep.Flow.Count(c.stage), count(c.printed); got != want {
			t.Errorf("report's %q: %d, the rehearsal printed %s %d", c.stage, got, c.printed, want)
		}
	}
	if count("consented") != 5 {
		t.Errorf("%d of 5 consented", count("consented"))
	}
	if rep.Flow.Count(study.FlowAnalysed)+rep.Flow.Count(study.FlowExcluded) != people {
		t.Errorf("analysed %d and excluded %d of %d people's seats", rep.Flow.Count(study.FlowAnalysed), rep.Flow.Count(study.FlowExcluded), people)
	}
}
