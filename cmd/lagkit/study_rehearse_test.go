package main

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lagkit/lagkit/internal/walltest"
	"github.com/lagkit/lagkit/record"
	"github.com/lagkit/lagkit/store"
	"github.com/lagkit/lagkit/study"
	"github.com/lagkit/lagkit/study/online"
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
[consent]
text = "You will play a short game."
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
	if code := execute(ctx, []string{"study", "report", "--db", db, "--json", "--out", filepath.Join(tmp, "report-json")}, &rout, &rerr); code != 0 {
		t.Fatalf("report: exit %d: %s", code, rerr.String())
	}
	var rep study.Report
	if err := json.Unmarshal([]byte(rout.String()), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.CutRounds) != 1 || len(rep.StandIns) != 2 || len(rep.Rounds) != 2*len(rows)-1 {
		t.Errorf("report: cut %+v, stand-ins %+v, %d rounds of %d sessions", rep.CutRounds, rep.StandIns, len(rep.Rounds), len(rows))
	}

	// The lobby stored its events as they happened: the report's
	// participant flow is the one the rehearsal printed.
	dir := filepath.Join(tmp, "report")
	if code, rout, rerr := lagkit("study", "report", "--db", db, "--out", dir); code != 0 {
		t.Fatalf("report: exit %d: %s%s", code, rout, rerr)
	}
	frep, _ := readStudyReport(t, dir)
	if frep.Flow == nil {
		t.Fatalf("the report has no participant flow: %q", frep.FlowNote)
	}
	for _, c := range []struct{ printed, stage string }{
		{"arrived", study.FlowArrived}, {"consented", study.FlowConsented}, {"admitted", study.FlowAdmitted}, {"refused", study.FlowRefused},
		{"matched", study.FlowMatched}, {"requeued (game server lost)", study.FlowRequeued}, {"completed", study.FlowCompleted},
		{"at the prescreen", study.FlowDroppedPrescreen}, {"waiting", study.FlowDroppedWaiting}, {"from a match", study.FlowDroppedMatch},
	} {
		if got, want := frep.Flow.Count(c.stage), count(c.printed); got != want {
			t.Errorf("report's %q: %d, the rehearsal printed %s %d", c.stage, got, c.printed, want)
		}
	}
	if count("consented") != 5 {
		t.Errorf("%d of 5 consented", count("consented"))
	}
	// Analysed and excluded are the people's seats with rounds in the
	// report's figures: a seat whose only round the lost server cut has
	// none.
	seats := map[int]bool{}
	for _, p := range frep.Participants {
		if !p.Bot {
			seats[p.Seat] = true
		}
	}
	if len(seats) == 0 || len(seats) > people || frep.Flow.Count(study.FlowAnalysed)+frep.Flow.Count(study.FlowExcluded) != len(seats) {
		t.Errorf("analysed %d and excluded %d of %d people's seats in the figures (%d in first rounds)", frep.Flow.Count(study.FlowAnalysed), frep.Flow.Count(study.FlowExcluded), len(seats), people)
	}
}

// pagesSchedule is a one-round study with a consent text and the
// prescreen's rules (admission), for rehearsals with Chromium pages. Its
// round is long enough for a page on a loaded machine to load the
// shooter page and join it before the round ends.
func pagesSchedule(admission string) string {
	return `name = "pages-test"
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
duration = "15s"
[[question]]
id = "fair"
text = "Was it fair?"
kind = "fairness"
[consent]
text = "I agree to play."
[online]
max_wait = "1s"
[online.admission]
` + admission
}

// TestStudyRehearsePages: lagkit study rehearse --pages 1 makes one of
// its two participants a real page in headless Chromium: it agrees to
// the consent on the join page (and is not asked again on the shooter
// page), passes the prescreen (pointer lock, frame rate, the round trip
// the game server host's probe measured), waits, plays its seat by
// scripted keys, answers the questionnaire and reaches the completion
// page; with -images the screenshots of the waiting, refusal and
// completion pages go to docs/images. A page whose frame rate is under
// the floor is refused with the reason. A page sent on to the study's
// completion URL ends completed, even where that URL does not answer.
func TestStudyRehearsePages(t *testing.T) {
	if testing.Short() {
		t.Skip("a browser and a game server for seconds of wall time")
	}
	if _, err := online.FindBrowser(); err != nil {
		t.Skip(err)
	}
	walltest.Lock(t)
	tmp := t.TempDir()
	shots := *studyImages
	if shots == "" {
		shots = tmp
	}
	t.Setenv("LAGKIT_AS_COMMAND", "1")
	rehearse := func(name, schedule, shots string, participants int) (string, string) {
		sched := filepath.Join(tmp, name+".toml")
		if err := os.WriteFile(sched, []byte(schedule), 0o644); err != nil {
			t.Fatal(err)
		}
		db := filepath.Join(tmp, name+".db")
		var out, errOut lockedWriter
		code := execute(context.Background(), []string{"study", "rehearse", sched, "--participants", strconv.Itoa(participants), "--over", "1s",
			"--pages", "1", "--shots", shots, "--db", db, "--log-format", "json"}, &out, &errOut)
		if code != 0 {
			t.Fatalf("%s: exit %d:\n%s\n%s", name, code, out.String(), errOut.String())
		}
		return out.String(), db
	}
	o, db := rehearse("played", pagesSchedule("pointer_lock = true\nmin_fps = 5\n"), shots, 2)
	if !strings.Contains(o, "page rehearsal-0000 (Chromium): completed, 1 rounds joined, 1 questionnaires answered\n") ||
		!strings.Contains(o, "accounted for: 2 of 2 participants (2 of 2 arrived completed") {
		t.Fatalf("output:\n%s", o)
	}
	sdb, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer sdb.Close()
	rows, err := sdb.Studies(context.Background())
	if err != nil || len(rows) == 0 {
		t.Fatalf("studies %+v, %v", rows, err)
	}
	consents, people, moved := 0, 0, 0
	for _, row := range rows {
		person := map[int]bool{}
		if err := store.Each(context.Background(), sdb, row.ID, func(p record.Participant) error {
			person[p.Seat] = !p.Bot
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		// Consent is recorded once per person, from the lobby: a page
		// asked again would add its browser's report.
		if err := store.Each(context.Background(), sdb, row.ID, func(c record.Client) error {
			if c.Consented {
				consents++
				if c.UserAgent != "" {
					t.Errorf("seat %d consented on the shooter page (%s)", c.Seat, c.UserAgent)
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		first := map[int]record.Path{}
		far := map[int]bool{}
		if err := store.Each(context.Background(), sdb, row.ID, func(p record.Path) error {
			f, ok := first[p.Seat]
			if !ok {
				first[p.Seat] = p
			} else if math.Hypot(p.X-f.X, p.Y-f.Y) > 1 {
				far[p.Seat] = true
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		for seat, isPerson := range person {
			if isPerson {
				people++
				if far[seat] {
					moved++
				}
			}
		}
	}
	if people != 2 || consents != 2 || moved != 2 {
		t.Errorf("%d people, %d consents, %d people moved more than 1 m: want 2 of each", people, consents, moved)
	}
	o, _ = rehearse("refused", pagesSchedule("min_fps = 999\n"), shots, 1)
	if !strings.Contains(o, "page rehearsal-0000 (Chromium): refused, 0 rounds joined, 0 questionnaires answered\n") || !regexp.MustCompile(`1 refused: frame rate \d+ fps under the 999 the study needs`).MatchString(o) {
		t.Fatalf("output:\n%s", o)
	}
	for _, name := range []string{"lobby-waiting.png", "lobby-prescreen-refused.png", "lobby-complete.png"} {
		if fi, err := os.Stat(filepath.Join(shots, name)); err != nil || fi.Size() == 0 {
			t.Errorf("screenshot %s: %v", name, err)
		}
	}
	// A study with a completion URL: the page goes there from the lobby
	// as soon as it reads its completion (here to a port where nothing
	// listens, as a platform out of reach), and the rehearsal's page
	// still ends, completed, its status asked of the lobby; the
	// platform's page is not kept as the completion page.
	redirected := t.TempDir()
	o, _ = rehearse("redirected", strings.Replace(pagesSchedule("min_fps = 5\n"), "[online]\n", "[online]\ncompletion_url = \"http://127.0.0.1:9/done?cc={code}\"\n", 1), redirected, 1)
	if !strings.Contains(o, "page rehearsal-0000 (Chromium): completed, 1 rounds joined, 1 questionnaires answered\n") {
		t.Fatalf("output:\n%s", o)
	}
	if _, err := os.Stat(filepath.Join(redirected, "lobby-complete.png")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the platform's page was kept as the completion page: %v", err)
	}
}

// TestStudyRehearsePagesNeedABrowser: --pages without node, Chromium or
// playwright-core is refused, saying what is missing.
func TestStudyRehearsePagesNeedABrowser(t *testing.T) {
	sched := filepath.Join(t.TempDir(), "s.toml")
	if err := os.WriteFile(sched, []byte(pagesSchedule("")), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", t.TempDir())
	var out, errOut lockedWriter
	code := execute(context.Background(), []string{"study", "rehearse", sched, "--participants", "2", "--pages", "1", "--db", filepath.Join(t.TempDir(), "r.db")}, &out, &errOut)
	if code == 0 || !strings.Contains(errOut.String(), "--pages: online: no browser for the pages: node is not on PATH") {
		t.Errorf("exit %d: %s%s", code, out.String(), errOut.String())
	}
	code = execute(context.Background(), []string{"study", "rehearse", sched, "--participants", "2", "--pages", "3"}, &out, &errOut)
	if code == 0 || !strings.Contains(errOut.String(), "--pages 3: want 0 to the 2 participants") {
		t.Errorf("3 pages of 2: exit %d: %s", code, errOut.String())
	}
	code = execute(context.Background(), []string{"study", "rehearse", sched, "--participants", "2", "--inattentive", "1.5"}, &out, &errOut)
	if code == 0 || !strings.Contains(errOut.String(), "--inattentive 1.5: want a share from 0 to 1") {
		t.Errorf("--inattentive 1.5: exit %d: %s", code, errOut.String())
	}
}

// TestStudyRehearsePageFailed: a rehearsal whose page ends in an error
// (here playwright-core that cannot load) still accounts for everyone,
// says why the page failed, and exits non-zero.
func TestStudyRehearsePageFailed(t *testing.T) {
	if testing.Short() {
		t.Skip("a game server for seconds of wall time")
	}
	if _, err := online.FindBrowser(); err != nil {
		t.Skip(err)
	}
	walltest.Lock(t)
	tmp := t.TempDir()
	broken := filepath.Join(tmp, "index.mjs")
	if err := os.WriteFile(broken, []byte("throw new Error('this playwright-core is broken');\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PLAYWRIGHT_CORE", broken)
	t.Setenv("LAGKIT_AS_COMMAND", "1")
	sched := filepath.Join(tmp, "s.toml")
	if err := os.WriteFile(sched, []byte(pagesSchedule("")), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut lockedWriter
	code := execute(context.Background(), []string{"study", "rehearse", sched, "--participants", "2", "--over", "1s",
		"--pages", "1", "--db", filepath.Join(tmp, "r.db"), "--log-format", "json"}, &out, &errOut)
	o := out.String()
	if code == 0 || !strings.Contains(errOut.String(), "1 of the 1 pages failed") ||
		!strings.Contains(o, "page rehearsal-0000 (Chromium): ") || !strings.Contains(o, "this playwright-core is broken") ||
		!strings.Contains(o, "accounted for: 2 of 2 participants") {
		t.Errorf("exit %d:\n%s\n%s", code, o, errOut.String())
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
