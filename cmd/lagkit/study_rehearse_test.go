package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lagkit/lagkit/record"
	"github.com/lagkit/lagkit/store"
	"github.com/lagkit/lagkit/study"
)

// TestStudyRehearse: lagkit study rehearse brings five headless
// participants through the lobby's protocol into matches on two game
// server processes, each seat played with a bot through the page's
// endpoints and WebSocket and its questionnaires answered. The first
// match's game server is killed a second into its second round: its
// people go back to the queue (the schedule's on_server_lost default)
// and play a new match to its end, and the killed session keeps its
// committed records, the first round whole, the second marked cut. One
// participant of another match closes its seat's page in the first
// round: after the rejoin grace a bot plays the seat for the rest of
// the session (recorded as stood in from that match time, and from the
// start of the second round), the lobby records the dropout with the
// round, and the participant, back at the page, is told a bot has its
// seat. Every arrival is accounted for, every session one study's.
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
name = "first"
technique = "tlc"
map = "arena"
mode = "ffa"
duration = "3s"
interval = "1s"
[[round]]
name = "second"
technique = "tlc"
map = "arena"
mode = "ffa"
duration = "3s"
[[question]]
id = "fair"
text = "Was it fair?"
kind = "fairness"
[online]
max_wait = "2s"
rejoin = "1s"
`), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(tmp, "rehearsal.db")
	t.Setenv("LAGKIT_AS_COMMAND", "1") // the game servers are this binary as the command
	var out, errOut lockedWriter
	code := execute(context.Background(), []string{"study", "rehearse", sched, "--participants", "5", "--over", "3s",
		"--servers", "2", "--kill-in-round", "2", "--kill-after", "1s", "--leave-after", "1500ms", "--db", db, "--log-format", "json"}, &out, &errOut)
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
	for _, want := range []string{"accounted for: 5 of 5 participants (5 of 5 arrived completed, dropped or refused; 0 did not arrive)",
		"match 0's game server was killed mid-round", "1 dropped: left mid-match (round 1 of 2)",
		"left mid-match; back at its seat's page: a bot has taken the seat (left mid-match (round 1 of 2))",
		"match 0: the game server was lost (the session's process ended: signal: killed); 1 round cut short, its records kept; its people: requeue"} {
		if !strings.Contains(o, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	count := func(row string) int {
		m := regexp.MustCompile(`(?m)^\s*` + regexp.QuoteMeta(row) + `\s+(\d+)\s*$`).FindStringSubmatch(o)
		if m == nil {
			t.Fatalf("no %q row:\n%s", row, o)
		}
		n, _ := strconv.Atoi(m[1])
		return n
	}
	completed, dropped, fromMatch, requeued := count("completed"), count("dropped"), count("from a match"), count("requeued (game server lost)")
	if completed != 4 || dropped != 1 || fromMatch != 1 || requeued < 1 || requeued > 2 {
		t.Errorf("completed %d, dropped %d (%d from a match), requeued %d", completed, dropped, fromMatch, requeued)
	}

	ctx := context.Background()
	sdb, err := store.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer sdb.Close()
	rows, err := sdb.Studies(ctx)
	if err != nil || len(rows) < 3 {
		t.Fatalf("studies %d, %v", len(rows), err)
	}
	// The sessions started at once are one study's, which the rehearsal
	// started before its first match.
	if sets, err := sdb.StudySets(ctx); err != nil || len(sets) != 1 || len(sets[0].Sessions) != len(rows) {
		t.Errorf("%d sessions in %d studies (%v)", len(rows), len(sets), err)
	}
	cut, standIns, people := 0, 0, 0
	for _, row := range rows {
		rounds, err := store.All[record.Round](ctx, sdb, row.ID)
		if err != nil {
			t.Fatal(err)
		}
		parts, err := store.All[record.Participant](ctx, sdb, row.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range parts {
			if !p.Bot && p.Round == 0 {
				people++
			}
		}
		if len(rounds) == 2 && rounds[1].Cut {
			// The killed session: its first round whole, with its
			// answers and shots; the second cut.
			cut++
			answers, _ := store.All[record.Answer](ctx, sdb, row.ID)
			paths, _ := store.All[record.Path](ctx, sdb, row.ID)
			first := 0
			for _, p := range paths {
				if p.Round == 0 {
					first++
				}
			}
			if rounds[0].Cut || rounds[0].Ended.IsZero() || len(answers) == 0 || first == 0 {
				t.Errorf("the killed session %d: rounds %+v, %d answers, %d positions in its first round", row.ID, rounds, len(answers), first)
			}
			continue
		}
		for _, p := range parts {
			if !p.StandIn {
				continue
			}
			standIns++
			// Stood in from a time into the first round, and from the
			// start of the second, under the person's code.
			switch {
			case p.Round == 0 && (p.Bot || p.StandInAt <= 0 || p.StandInAt >= 3*time.Second || p.Code == ""):
				t.Errorf("the first round's stand-in %+v", p)
			case p.Round == 1 && (!p.Bot || p.StandInAt != 0 || p.Code == ""):
				t.Errorf("the second round's stand-in %+v", p)
			}
		}
	}
	if cut != 1 || standIns != 2 {
		t.Errorf("%d sessions with a cut round, %d stand-in rows; want 1 and 2", cut, standIns)
	}
	// Each person's seat in every session's first round, the requeued
	// people's twice.
	if people != 5+requeued {
		t.Errorf("%d people's seats recorded in first rounds, want %d", people, 5+requeued)
	}

	// The study's report lists the cut round and the two stand-in rows
	// and leaves them out of its figures.
	var rout, rerr lockedWriter
	if code := execute(ctx, []string{"study", "report", "--db", db, "--json", "--out", filepath.Join(tmp, "report")}, &rout, &rerr); code != 0 {
		t.Fatalf("report: exit %d: %s", code, rerr.String())
	}
	var rep study.Report
	if err := json.Unmarshal([]byte(rout.String()), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.CutRounds) != 1 || len(rep.StandIns) != 2 || len(rep.Rounds) != 2*len(rows)-1 {
		t.Errorf("report: cut %+v, stand-ins %+v, %d rounds of %d sessions", rep.CutRounds, rep.StandIns, len(rep.Rounds), len(rows))
	}
}

// TestStudyRehearseFinish: with on_server_lost = "finish", the people of
// a match whose game server is killed mid-round complete the study at
// once, the loss as their status, and the round is marked cut.
func TestStudyRehearseFinish(t *testing.T) {
	tmp := t.TempDir()
	sched := filepath.Join(tmp, "finish.toml")
	err := os.WriteFile(sched, []byte(`name = "finish-test"
[[seat]]
count = 2
[[technique]]
name = "tlc"
[[round]]
name = "only"
map = "arena"
mode = "ffa"
duration = "20s"
[online]
max_wait = "1s"
on_server_lost = "finish"
`), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(tmp, "finish.db")
	t.Setenv("LAGKIT_AS_COMMAND", "1")
	var out, errOut lockedWriter
	code := execute(context.Background(), []string{"study", "rehearse", sched, "--participants", "2", "--over", "0s",
		"--servers", "1", "--kill-in-round", "1", "--kill-after", "500ms", "--db", db, "--log-format", "json"}, &out, &errOut)
	o := out.String()
	if code != 0 {
		t.Fatalf("exit %d:\n%s\n%s", code, o, errOut.String())
	}
	for _, want := range []string{"2 completed: the game server was lost mid-match (the session's process ended: signal: killed)",
		"1 round cut short, its records kept; its people: finish"} {
		if !strings.Contains(o, want) {
			t.Errorf("output lacks %q:\n%s", want, o)
		}
	}
	if m := regexp.MustCompile(`(?m)^\s*game server lost\s+2\s*$`).FindString(o); m == "" {
		t.Errorf("no \"game server lost 2\" row:\n%s", o)
	}
	ctx := context.Background()
	sdb, err := store.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer sdb.Close()
	rows, err := sdb.Studies(ctx)
	if err != nil || len(rows) != 1 {
		t.Fatalf("studies %d, %v", len(rows), err)
	}
	rounds, err := store.All[record.Round](ctx, sdb, rows[0].ID)
	if err != nil || len(rounds) != 1 || !rounds[0].Cut || !rounds[0].Ended.IsZero() {
		t.Errorf("rounds %+v, %v", rounds, err)
	}
}
