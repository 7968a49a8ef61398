package main

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"flag"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/lagkit/lagkit/internal/walltest"
	"github.com/lagkit/lagkit/record"
	"github.com/lagkit/lagkit/report/browsertest"
	"github.com/lagkit/lagkit/store"
	"github.com/lagkit/lagkit/web"
)

var studyImages = flag.String("images", "", "keep TestStudyLiveInBrowser's screenshots (questionnaire, admin page, report, a participant's blind page) here")

// liveSchedule is a two-round study of two people and two bots: the
// rounds switch technique, the second waits for the ready button.
const liveSchedule = `name = "twopages"

[[seat]]
code = "ann7"
[[seat]]
code = "bea3"
[[seat]]
bot = true
count = 2

[[technique]]
name = "tlc"
policy = { name = "tlc" }

[[technique]]
name = "none"
policy = { name = "none" }

[[round]]
name = "tlc round"
map = "arena"
mode = "ffa"
warmup = "4s"
duration = "14s"
interval = "1s"
technique = "tlc"
latency = [{ seats = [1], latency_ms = 40 }]

[[round]]
name = "none round"
map = "arena"
mode = "ffa"
warmup = "1s"
ready = true
duration = "14s"
technique = "none"
latency = [{ seats = [1], latency_ms = 40 }]

[[question]]
id = "lag"
text = "Did you notice lag?"
kind = "yesno"

[[question]]
id = "fun"
text = "The round was fun."
kind = "likert"

[[question]]
id = "fair"
text = "How fair were the hits?"
kind = "fairness"

[[question]]
id = "note"
text = "Anything else?"
kind = "text"
`

// liveStep is one line testdata/study_live.mjs prints.
type liveStep struct {
	Step      string `json:"step"`
	Rounds    int    `json:"rounds"`
	Round     int    `json:"round"`
	Technique string `json:"technique"`
	Played    []struct {
		Code         string   `json:"code"`
		Match        string   `json:"match"`
		ReadyPressed bool     `json:"readyPressed"`
		Phases       []string `json:"phases"`
		AimedTicks   int      `json:"aimedTicks"`
		Hurt         int      `json:"hurt"`
		Reports      int      `json:"reports"`
		Blind        *struct {
			GraphShown bool     `json:"graphShown"`
			Leaks      []string `json:"leaks"`
		} `json:"blind"`
	} `json:"played"`
	Answered []struct {
		Code      string `json:"code"`
		Questions int    `json:"questions"`
	} `json:"answered"`
	Ended []string `json:"ended"`
}

// studyBrowserEnv returns node and the file: URL of playwright-core, or
// skips t where they or Debian's chromium are missing.
func studyBrowserEnv(t *testing.T) (node, playwright string) {
	t.Helper()
	if testing.Short() {
		t.Skip("plays a live study for about a minute of wall time")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed; run report/browser/install.sh to enable this test")
	}
	if _, err := os.Stat("/usr/bin/chromium"); err != nil {
		t.Skip("Debian's chromium is missing; run report/browser/install.sh to enable this test")
	}
	abs, err := filepath.Abs("../../report/browser/node_modules/playwright-core/index.mjs")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(abs); err != nil {
		t.Skip("playwright-core is not installed; run report/browser/install.sh to enable this test")
	}
	return node, (&url.URL{Scheme: "file", Path: abs}).String()
}

// TestStudyLiveInBrowser runs `lagkit study run` on a two-round schedule
// with two participants' pages and the admin page in headless Chromium
// and two bots in the other seats: the admin page starts the study; the
// rounds switch technique, the second after every page pressed ready;
// the pages fire at the other players, report the hits they take as
// behind cover (B) and answer each questionnaire with its buttons; mid-
// round each page presses the net graph's key (N) and must still show
// nothing of the condition (no net graph, policy, technique or injected
// latency: the schedule sets no feedback). The database then holds both rounds, their techniques, both participants'
// shots and answers and a report tied to a hit; `study export` and
// `study report` run on it and the report renders in Chromium.
func TestStudyLiveInBrowser(t *testing.T) {
	node, playwright := studyBrowserEnv(t)
	// The client core is built (or found in the cache) before the clock
	// matters.
	pctx, pcancel := context.WithTimeout(t.Context(), 8*time.Minute)
	defer pcancel()
	if err := web.Prepare(pctx); err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	images := tmp
	if *studyImages != "" {
		images = *studyImages
	}
	sched := filepath.Join(tmp, "twopages.toml")
	if err := os.WriteFile(sched, []byte(liveSchedule), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(tmp, "study.db")

	steps := map[string][]liveStep{}
	t.Run("play", func(t *testing.T) {
		walltest.Lock(t)
		// The study's clock starts once the lock is held.
		ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
		defer cancel()
		begun := time.Now()
		var out, errOut lockedWriter
		done := make(chan int, 1)
		go func() {
			done <- execute(ctx, []string{"study", "run", sched, "--db", db, "--listen", "127.0.0.1:0", "--udp", "",
				"--answer-wait", "1m", "--log-format", "json"}, &out, &errOut)
		}()
		admin := regexp.MustCompile(`study twopages: admin (https://127\.0\.0\.1:\d+)/admin#token=([0-9a-f]{32})\n`)
		var m []string
		for m == nil || !strings.Contains(out.String(), "seat 1: ") {
			select {
			case code := <-done:
				t.Fatalf("study run ended (exit %d) before it served: %s\n%s", code, out.String(), errOut.String())
			case <-time.After(50 * time.Millisecond):
			}
			m = admin.FindStringSubmatch(out.String())
		}
		for seat, code := range []string{"ann7", "bea3"} {
			if want := m[1] + "/?code=" + code; !strings.Contains(out.String(), want) {
				t.Fatalf("seat %d's link %s not printed:\n%s", seat, want, out.String())
			}
		}

		cmd := exec.CommandContext(ctx, node, "testdata/study_live.mjs", m[1], "ann7,bea3", m[2], images)
		cmd.Env = append(os.Environ(), "PLAYWRIGHT_CORE="+playwright)
		cmd.WaitDelay = 10 * time.Second
		var stderr strings.Builder
		cmd.Stderr = &stderr
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			var s liveStep
			if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
				t.Fatalf("study_live.mjs printed %q: %v", sc.Text(), err)
			}
			t.Logf("%.1f s: study_live.mjs: %s", time.Since(begun).Seconds(), sc.Text())
			steps[s.Step] = append(steps[s.Step], s)
		}
		if err := cmd.Wait(); err != nil {
			cancel()
			<-done
			t.Fatalf("study_live.mjs: %v\n%s\nstudy run:\n%s", err, stderr.String(), out.String())
		}
		if code := <-done; code != 0 {
			t.Fatalf("study run: exit %d: %s", code, errOut.String())
		}
		if !strings.Contains(out.String(), "study twopages: over;") {
			t.Errorf("study run's output:\n%s", out.String())
		}
	})
	if t.Failed() {
		return
	}

	rounds := steps["round"]
	if len(rounds) != 2 || len(steps["done"]) != 1 {
		t.Fatalf("steps %v: want two rounds and the end", steps)
	}
	for _, r := range rounds {
		for _, p := range r.Played {
			if p.Match == "" || p.AimedTicks < 5 {
				t.Errorf("round %d: %s played match %q, aimed %d times", r.Round, p.Code, p.Match, p.AimedTicks)
			}
			// The schedule sets no feedback: the page shows nothing of
			// the condition, the net graph's key (N) pressed or not.
			switch {
			case p.Blind == nil:
				t.Errorf("round %d: %s: the page was not looked at mid-round", r.Round, p.Code)
			case p.Blind.GraphShown || len(p.Blind.Leaks) > 0:
				t.Errorf("round %d: %s: after N the page shows the net graph %v and says %q", r.Round, p.Code, p.Blind.GraphShown, p.Blind.Leaks)
			}
			if ready := r.Round == 1; p.ReadyPressed != ready {
				t.Errorf("round %d: %s pressed ready %v, want %v", r.Round, p.Code, p.ReadyPressed, ready)
			}
		}
		if len(r.Played) == 2 && r.Played[0].Match != r.Played[1].Match {
			t.Errorf("round %d: the pages played matches %s and %s, want one", r.Round, r.Played[0].Match, r.Played[1].Match)
		}
		for _, a := range r.Answered {
			if a.Questions != 4 {
				t.Errorf("round %d: %s was asked %d questions, want 4", r.Round, a.Code, a.Questions)
			}
		}
	}
	if rounds[0].Played[0].Match == rounds[1].Played[0].Match {
		t.Errorf("both rounds in match %s, want a match each", rounds[0].Played[0].Match)
	}
	for _, e := range steps["done"][0].Ended {
		if !strings.Contains(e, "over") {
			t.Errorf("a page said %q at the end", e)
		}
	}

	checkLiveStudyDB(t, db)

	exp := filepath.Join(tmp, "export")
	if code, _, errOut := lagkit("study", "export", "--db", db, "--out", exp); code != 0 {
		t.Fatalf("study export: exit %d: %s", code, errOut)
	}
	for name, min := range map[string]int{"rounds": 2, "shots": 2, "answers": 16, "sbc_reports": 1} {
		rows := readCSV(t, filepath.Join(exp, name+".csv"))
		if len(rows)-1 < min {
			t.Errorf("%s.csv: %d rows, want at least %d", name, len(rows)-1, min)
		}
	}
	dir := filepath.Join(tmp, "report")
	code, out, errOut := lagkit("study", "report", "--db", db, "--out", dir)
	if code != 0 {
		t.Fatalf("study report: exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "2 rounds, 2 techniques") {
		t.Errorf("study report: %s", out)
	}
	page, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"tlc", "none"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	// Two participants are too few for the statistics policy's tests:
	// study.md says so rather than testing at n = 2.
	if md, _ := os.ReadFile(filepath.Join(dir, "study.md")); !strings.Contains(string(md), "not tested: 2 participant pairs") {
		t.Errorf("study.md does not say the two participants are too few to test:\n%s", md)
	}
	browsertest.Check(t, filepath.Join(dir, "report.html"), filepath.Join(images, "study-report.png"))
}

// checkLiveStudyDB checks what TestStudyLiveInBrowser's study stored:
// two rounds of different techniques, shots fired by both participants
// (seats 0 and 1), their answers to every question of both rounds, and
// a "shot behind cover" report tied to a hit.
func checkLiveStudyDB(t *testing.T, dsn string) {
	t.Helper()
	ctx := context.Background()
	d, err := store.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	st, err := d.FindStudy(ctx, "twopages")
	if err != nil {
		t.Fatal(err)
	}
	rounds, err := store.All[record.Round](ctx, d, st.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(rounds) != 2 || rounds[0].Technique == rounds[1].Technique || rounds[0].Ended.IsZero() || rounds[1].Ended.IsZero() {
		t.Errorf("rounds %+v: want two ended rounds of different techniques", rounds)
	}
	shots, err := store.All[record.Shot](ctx, d, st.ID)
	if err != nil {
		t.Fatal(err)
	}
	fired := map[[2]int]int{} // by round and seat
	onPages, judged := 0, 0   // registered hits on the pages' seats, and those judged
	for _, s := range shots {
		fired[[2]int{s.Round, s.Shooter}]++
		if s.Registered && s.Victim >= 0 && s.Victim < 2 {
			onPages++
			if s.SBCKnown {
				judged++
			}
		}
	}
	// The page's client core, WebAssembly, sends its judgment of every
	// hit on its player, which the study stores as objective_sbc: the
	// server ties a judgment only to a hit on its sender, so a judged hit
	// on a page's seat is that page's. The pages are hit (a report below
	// is tied to a hit); most hits keep a judgment (one in a round's last
	// moments may not).
	t.Logf("%d registered hits on the pages, %d with the page's judgment", onPages, judged)
	if onPages == 0 || 2*judged <= onPages {
		t.Errorf("%d of %d registered hits on the pages keep the page's judgment, want most", judged, onPages)
	}
	for seat := range 2 {
		if fired[[2]int{0, seat}]+fired[[2]int{1, seat}] == 0 {
			t.Errorf("no shot stored from participant seat %d (shots by round and seat: %v)", seat, fired)
		}
	}
	answers, err := store.All[record.Answer](ctx, d, st.ID)
	if err != nil {
		t.Fatal(err)
	}
	got := map[[2]int]map[string]bool{}
	for _, a := range answers {
		k := [2]int{a.Round, a.Seat}
		if got[k] == nil {
			got[k] = map[string]bool{}
		}
		got[k][a.Question] = true
		if a.Question == "note" && !strings.HasPrefix(a.Text, "round ") {
			t.Errorf("free text answer %+v", a)
		}
	}
	for round := range 2 {
		for seat := range 2 {
			if len(got[[2]int{round, seat}]) != 4 {
				t.Errorf("round %d seat %d answered %v, want the 4 questions", round, seat, got[[2]int{round, seat}])
			}
		}
	}
	reports, err := store.All[record.SBCReport](ctx, d, st.ID)
	if err != nil {
		t.Fatal(err)
	}
	tied := 0
	for _, r := range reports {
		if r.Shooter >= 0 && (r.Reporter == 0 || r.Reporter == 1) {
			tied++
		}
	}
	if tied == 0 {
		t.Errorf("reports %+v: want one from a participant tied to a hit", reports)
	}
}

// readCSV reads a CSV file whole.
func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return rows
}
