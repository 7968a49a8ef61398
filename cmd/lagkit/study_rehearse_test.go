package main

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/lagkit/lagkit/internal/walltest"
	"github.com/lagkit/lagkit/record"
	"github.com/lagkit/lagkit/store"
	"github.com/lagkit/lagkit/study/online"
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
}

// pagesSchedule is a one-round study with a consent text and the
// prescreen's rules (admission), for rehearsals with Chromium pages.
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
duration = "6s"
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
// the floor is refused with the reason.
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
	rehearse := func(name, admission string, participants int) (string, string) {
		sched := filepath.Join(tmp, name+".toml")
		if err := os.WriteFile(sched, []byte(pagesSchedule(admission)), 0o644); err != nil {
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
	o, db := rehearse("played", "pointer_lock = true\nmin_fps = 5\n", 2)
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
	o, _ = rehearse("refused", "min_fps = 999\n", 1)
	if !strings.Contains(o, "page rehearsal-0000 (Chromium): refused") || !regexp.MustCompile(`1 refused: frame rate \d+ fps under the 999 the study needs`).MatchString(o) {
		t.Fatalf("output:\n%s", o)
	}
	for _, name := range []string{"lobby-waiting.png", "lobby-prescreen-refused.png", "lobby-complete.png"} {
		if fi, err := os.Stat(filepath.Join(shots, name)); err != nil || fi.Size() == 0 {
			t.Errorf("screenshot %s: %v", name, err)
		}
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
}
