package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lagkit/lagkit/internal/walltest"
	"github.com/lagkit/lagkit/record"
	"github.com/lagkit/lagkit/store"
	"github.com/lagkit/lagkit/study"
	"github.com/lagkit/lagkit/web"
)

// latinSchedule is a two-round study of two people and four bots under
// a Latin square of tlc and alc, with a consent screen, an intake, a
// questionnaire after each round and final questions.
const latinSchedule = `name = "latinpages"

[[seat]]
code = "ann7"
[[seat]]
code = "bea3"
[[seat]]
bot = true
count = 4

[[technique]]
name = "tlc"
policy = { name = "tlc" }

[[technique]]
name = "alc"
policy = { name = "alc", low_ping_ms = 50 }

[counterbalance]
design = "latin"

[[latency]]
seats = [1]
latency_ms = 40

[[round]]
map = "arena"
mode = "ffa"
warmup = "2s"
duration = "10s"
interval = "1s"
technique = "tlc"

[[round]]
map = "arena"
mode = "ffa"
warmup = "1s"
duration = "10s"
technique = "alc"

[consent]
text = """
You will play two short rounds of a shooter against other players.
Your answers are kept under your participant code, not your name."""
agree = "I agree to take part"

[[intake]]
id = "age"
text = "Your age in years"
kind = "number"
min = 18
max = 99

[[intake]]
id = "hours"
text = "Hours a week you play first-person shooters"
kind = "choice"
choices = ["none", "1 to 5", "over 5"]

[[question]]
id = "lag"
text = "Did you notice lag?"
kind = "yesno"

[[question]]
id = "smooth"
text = "The game responded smoothly to my input."
kind = "likert7"

[[question]]
id = "calm"
text = "How calm were you?"
kind = "scale"
min = 0
max = 4
anchors = ["tense", "calm"]

[[final]]
id = "best"
text = "Which round felt best, and why?"
kind = "text"

[[final]]
id = "differed"
text = "Did the rounds feel different?"
kind = "yesno"
`

// resumeStep is one line testdata/study_resume.mjs prints.
type resumeStep struct {
	Step       string     `json:"step"`
	StopTitle  string     `json:"stopTitle"`
	Consented  []string   `json:"consented"`
	Intakes    [][]string `json:"intakes"`
	RefreshHz  float64    `json:"refreshHz"`
	Rounds     int        `json:"rounds"`
	Round      int        `json:"round"`
	Technique  string     `json:"technique"`
	Asked      [][]string `json:"asked"`
	Answered   []string   `json:"answered"`
	Shown      []string   `json:"shown"`
	Again      []string   `json:"again"`
	FirstAfter struct {
		Overlay string `json:"overlay"`
		Pending bool   `json:"pending"`
		Consent bool   `json:"consent"`
	} `json:"firstAfter"`
	Ended []string `json:"ended"`
}

// freePort returns a port of 127.0.0.1 free for TCP and UDP alike (the
// page over HTTPS, WebTransport over UDP): a resumed study listens where
// the stopped one did.
func freePort(t *testing.T) int {
	t.Helper()
	for range 20 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		u, err := net.ListenPacket("udp", fmt.Sprintf("127.0.0.1:%d", port))
		l.Close()
		if err == nil {
			u.Close()
			return port
		}
	}
	t.Fatal("no port free for TCP and UDP")
	return 0
}

// TestStudyResumeInBrowser runs `lagkit study run` live on a Latin-square
// schedule (group 1: alc, then tlc) with two participants' pages in
// headless Chromium and four bots: each page agrees to the consent text
// and answers the intake, plays both rounds and answers the
// questionnaire after the first. During the last questionnaire, which
// one page has answered and the other shows, the server is stopped with
// SIGINT (exit status 3) and the same command run again: it resumes the
// study, the returning page is asked the whole last questionnaire (the
// round's and the final questions) again and the other nothing, and the
// study ends. The database then holds one study with every answer once,
// each seat's order, the measured network of each seat in each round,
// the consents with the browsers' refresh rates, each page's frame times
// per round, the shots as the pages sent them, and the event log of
// the start, the stop, the resume and the end; the report's tables are
// the people's, with confidence intervals.
func TestStudyResumeInBrowser(t *testing.T) {
	node, playwright := studyBrowserEnv(t)
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
	sched := filepath.Join(tmp, "latin.toml")
	if err := os.WriteFile(sched, []byte(latinSchedule), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(tmp, "study.db")
	steps := map[string][]resumeStep{}
	t.Run("play", func(t *testing.T) {
		walltest.Lock(t)
		ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
		defer cancel()
		begun := time.Now()
		args := []string{"study", "run", sched, "--db", db, "--group", "1", "--listen", fmt.Sprintf("127.0.0.1:%d", freePort(t)), "--udp", "",
			"--answer-wait", "2m", "--log-format", "json"}
		admin := regexp.MustCompile(`study latinpages: admin (https://127\.0\.0\.1:\d+)/admin#token=([0-9a-f]{32})\n`)
		// serve runs study run and returns its admin URL and token once
		// it serves, its output, and its exit status when it ends.
		serve := func() ([]string, *lockedWriter, *lockedWriter, chan int) {
			var out, errOut lockedWriter
			done := make(chan int, 1)
			go func() { done <- execute(ctx, args, &out, &errOut) }()
			for {
				select {
				case code := <-done:
					t.Fatalf("study run ended (exit %d) before it served: %s\n%s", code, out.String(), errOut.String())
				case <-time.After(50 * time.Millisecond):
				}
				if m := admin.FindStringSubmatch(out.String()); m != nil && strings.Contains(out.String(), "seat 1: ") {
					return m, &out, &errOut, done
				}
			}
		}
		m, out, errOut, done := serve()
		cmd := exec.CommandContext(ctx, node, "testdata/study_resume.mjs", m[1], "ann7,bea3", m[2], images)
		cmd.Env = append(os.Environ(), "PLAYWRIGHT_CORE="+playwright)
		cmd.WaitDelay = 10 * time.Second
		var stderr strings.Builder
		cmd.Stderr = &stderr
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		fail := func(format string, a ...any) {
			cancel()
			t.Fatalf(format+"\nstudy_resume.mjs:\n%s\nstudy run:\n%s\n%s", append(a, stderr.String(), out.String(), errOut.String())...)
		}
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			var s resumeStep
			if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
				fail("study_resume.mjs printed %q: %v", sc.Text(), err)
			}
			t.Logf("%.1f s: study_resume.mjs: %s", time.Since(begun).Seconds(), sc.Text())
			steps[s.Step] = append(steps[s.Step], s)
			if s.Step != "stop" {
				continue
			}
			// A real SIGINT, caught by study run's handler as a person's
			// Ctrl-C would be.
			if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
				t.Fatal(err)
			}
			if code := <-done; code != exitStopped {
				fail("study run after SIGINT: exit %d, want %d", code, exitStopped)
			}
			if !strings.Contains(out.String(), "stopped; run the same command again to resume it") {
				fail("study run stopped without saying how to resume")
			}
			var m2 []string
			m2, out, errOut, done = serve()
			if m2[1] != m[1] {
				fail("resumed at %s, want %s", m2[1], m[1])
			}
			// The admin's link (and an open admin tab) works across
			// the stop: the same token.
			if m2[2] != m[2] {
				fail("resumed with admin token %s, want the stopped run's %s", m2[2], m[2])
			}
			if !strings.Contains(out.String(), "resum") {
				fail("the second run did not say it resumed:\n%s", out.String())
			}
			if _, err := stdin.Write([]byte("resumed\n")); err != nil {
				t.Fatal(err)
			}
		}
		if err := cmd.Wait(); err != nil {
			fail("study_resume.mjs: %v", err)
		}
		if code := <-done; code != 0 {
			fail("resumed study run: exit %d", code)
		}
		if !strings.Contains(out.String(), "study latinpages: over;") {
			t.Errorf("resumed study run's output:\n%s", out.String())
		}
	})
	if t.Failed() {
		return
	}
	checkResumeSteps(t, steps)
	checkResumedStudyDB(t, db)
	checkResumedReport(t, db, tmp)
}

// checkResumeSteps checks what the pages did and were asked.
func checkResumeSteps(t *testing.T, steps map[string][]resumeStep) {
	t.Helper()
	if len(steps["intake"]) != 1 || len(steps["round"]) != 1 || len(steps["stop"]) != 1 || len(steps["done"]) != 1 {
		t.Fatalf("steps %v: want the intake, a round, the stop and the end", steps)
	}
	// Stopped by SIGINT, the page asked its participant to wait.
	if got := steps["done"][0].StopTitle; got != "The study has stopped: please wait" {
		t.Errorf("while stopped the page said %q, want \"The study has stopped: please wait\"", got)
	}
	in := steps["intake"][0]
	for i, c := range in.Consented {
		if !strings.HasPrefix(c, "You will play two short rounds") {
			t.Errorf("page %d's consent text %q", i, c)
		}
	}
	if len(in.Intakes) != 2 || !slices.Equal(in.Intakes[0], []string{"age:number", "hours:choice"}) || in.RefreshHz <= 0 {
		t.Errorf("intake %+v, want age and hours asked of both, a refresh rate measured", in)
	}
	if r := steps["round"][0]; r.Technique != "alc" || len(r.Asked) != 2 || !slices.Equal(r.Asked[1], []string{"lag:round", "smooth:round", "calm:round"}) {
		t.Errorf("round 1 %+v: want alc (group 1) and the round's three questions", r)
	}
	last := []string{"lag:round", "smooth:round", "calm:round", "best:final", "differed:final"}
	if s := steps["stop"][0]; s.Technique != "tlc" || !slices.Equal(s.Answered, last) || !slices.Equal(s.Shown, last) {
		t.Errorf("stop %+v: want tlc and the last questionnaire with the final questions", s)
	}
	d := steps["done"][0]
	if !slices.Equal(d.Again, last) {
		t.Errorf("asked again %v, want %v", d.Again, last)
	}
	if d.FirstAfter.Pending || d.FirstAfter.Consent || d.FirstAfter.Overlay == "questions" {
		t.Errorf("the page that had answered, after the resume: %+v, want nothing asked", d.FirstAfter)
	}
	for _, e := range d.Ended {
		if !strings.Contains(e, "over") {
			t.Errorf("a page said %q at the end", e)
		}
	}
}

// checkResumedStudyDB checks what the stopped and resumed study stored.
func checkResumedStudyDB(t *testing.T, dsn string) {
	t.Helper()
	ctx := context.Background()
	d, err := store.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	all, err := d.Studies(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 1 || all[0].Design != "latin" || all[0].Group != 1 || !strings.HasPrefix(all[0].Consent, "You will play") {
		t.Fatalf("studies %+v, want one, Latin square group 1, with its consent text", all)
	}
	id := all[0].ID
	orders, err := store.All[record.SeatOrder](ctx, d, id)
	if err != nil {
		t.Fatal(err)
	}
	if len(orders) != 6 || orders[0].Order != "alc,tlc" || orders[5].Order != "alc,tlc" {
		t.Errorf("seat orders %+v, want alc,tlc for each of the 6 seats", orders)
	}
	nets, err := store.All[record.Network](ctx, d, id)
	if err != nil {
		t.Fatal(err)
	}
	measured := map[[2]int]record.Network{}
	for _, n := range nets {
		measured[[2]int{n.Round, n.Seat}] = n
	}
	for round := range 2 {
		for seat := range 2 {
			n, ok := measured[[2]int{round, seat}]
			if !ok || n.RTTSamples == 0 || n.RTTMeanMS <= 0 {
				t.Errorf("round %d seat %d: network %+v, want a measured round trip", round, seat, n)
			}
		}
		if n := measured[[2]int{round, 1}]; n.LatencyMS != 40 || n.RTTMeanMS < 80 {
			t.Errorf("round %d seat 1: %+v, want 40 ms injected each way and a round trip of at least 80 ms measured", round, n)
		}
	}
	// The participants' shots keep what their pages sent: the eye, the
	// aim and the view time, behind the shot by the interpolation delay
	// and, on a page given the CPU, less than a second.
	shots, err := store.All[record.Shot](ctx, d, id)
	if err != nil {
		t.Fatal(err)
	}
	pageShots := 0
	for _, s := range shots {
		if s.Shooter > 1 {
			continue
		}
		pageShots++
		// At most a few seconds behind: a page starved of the CPU draws
		// a frame a second or less, and its view falls behind with it.
		if lag := s.At - s.ViewAt; s.EyeZ == 0 || lag <= 0 || lag > 3*time.Second {
			t.Errorf("page's shot %+v: want its eye and a view time behind it", s)
			break
		}
	}
	if pageShots == 0 {
		t.Error("no shot stored from the pages")
	}
	events, err := store.All[record.Event](ctx, d, id)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, e := range events {
		if !slices.Contains(kinds, e.Kind) {
			kinds = append(kinds, e.Kind)
		}
	}
	if !slices.Equal(kinds, []string{record.EventStart, record.EventStop, record.EventResumed, record.EventOver}) {
		t.Errorf("event log %v, want start, stop, resumed and over in order", kinds)
	}
	answers, err := store.All[record.Answer](ctx, d, id)
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, a := range answers {
		count[fmt.Sprintf("%d/%d/%s/%s", a.Round, a.Seat, a.Question, a.Stage)]++
	}
	want := map[string]int{}
	for seat := range 2 {
		want[fmt.Sprintf("-1/%d/age/intake", seat)] = 1
		want[fmt.Sprintf("-1/%d/hours/intake", seat)] = 1
		for round := range 2 {
			for _, q := range []string{"lag", "smooth", "calm"} {
				want[fmt.Sprintf("%d/%d/%s/round", round, seat, q)] = 1
			}
		}
		want[fmt.Sprintf("1/%d/best/final", seat)] = 1
		want[fmt.Sprintf("1/%d/differed/final", seat)] = 1
	}
	for k, n := range want {
		if count[k] != n {
			t.Errorf("answer %s stored %d times, want once", k, count[k])
		}
	}
	if len(answers) != len(want) {
		t.Errorf("%d answers stored, want %d: %v", len(answers), len(want), count)
	}
	clients, err := store.All[record.Client](ctx, d, id)
	if err != nil {
		t.Fatal(err)
	}
	agreed := map[int]bool{}
	for _, c := range clients {
		if c.Consented && c.RefreshHz > 0 && c.Sensitivity > 0 && c.UserAgent != "" {
			agreed[c.Seat] = true
		}
	}
	if !agreed[0] || !agreed[1] {
		t.Errorf("clients %+v, want both participants' consents with their refresh rate and sensitivity", clients)
	}
	frames, err := store.All[record.Frames](ctx, d, id)
	if err != nil {
		t.Fatal(err)
	}
	drawn := map[[2]int]record.Frames{}
	for _, f := range frames {
		drawn[[2]int{f.Round, f.Seat}] = f
	}
	for round := range 2 {
		for seat := range 2 {
			if f := drawn[[2]int{round, seat}]; f.Frames < 3 || !(f.P50MS > 0 && f.P50MS <= f.P95MS && f.P99MS <= f.MaxMS) {
				t.Errorf("round %d seat %d: frames %+v, want the page's frame times", round, seat, f)
			} else if f.RTTSamples == 0 || !(f.RTTMeanMS > 0) {
				t.Errorf("round %d seat %d: frames %+v, want the page's own round-trip samples", round, seat, f)
			}
		}
	}
	qs, err := store.All[record.Question](ctx, d, id)
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 7 {
		t.Errorf("%d questions stored, want 7", len(qs))
	}
}

// checkResumedReport checks the report of the resumed study: its
// tables hold the people alone, each per-technique figure with its
// interval, the seat orders, the network, the intake and final
// questions and the browsers.
func checkResumedReport(t *testing.T, db, tmp string) {
	t.Helper()
	dir := filepath.Join(tmp, "report")
	if code, out, errOut := lagkit("study", "report", "--db", db, "--out", dir); code != 0 {
		t.Fatalf("study report: exit %d: %s %s", code, out, errOut)
	}
	for name, rows := range map[string]int{"study_seat_orders": 2, "study_network": 4, "study_clients": 2, "study_conditions": 2} {
		got := readCSV(t, filepath.Join(dir, name+".csv"))
		if len(got)-1 != rows {
			t.Errorf("%s.csv: %d rows, want %d (people only)", name, len(got)-1, rows)
		}
	}
	conds := readCSV(t, filepath.Join(dir, "study_conditions.csv"))
	if !slices.Contains(conds[0], "hit_accuracy_ci95_lo") {
		t.Errorf("study_conditions.csv header %v, want the intervals", conds[0])
	}
	// Each technique's own row is the people's (the bots have rows of
	// their own, by round trip).
	techs := readCSV(t, filepath.Join(dir, "study_techniques.csv"))
	rtt, players, seats := slices.Index(techs[0], "rtt_ms"), slices.Index(techs[0], "players"), slices.Index(techs[0], "seats")
	own := 0
	for _, row := range techs[1:] {
		if row[rtt] == "" {
			own++
			if row[players] != "people" || row[seats] != "2" {
				t.Errorf("study_techniques.csv row %v: want the technique's own figures of the 2 people", row)
			}
		}
	}
	if own != 2 {
		t.Errorf("study_techniques.csv: %d rows of a technique's own figures, want 2", own)
	}
	inst := readCSV(t, filepath.Join(dir, "study_instruments.csv"))
	var stages []string
	for _, row := range inst[1:] {
		stages = append(stages, row[0]+":"+row[1])
	}
	if !slices.Contains(stages, "intake:hours") || !slices.Contains(stages, "final:differed") {
		t.Errorf("study_instruments.csv rows %v, want the intake and final questions", stages)
	}
	md, err := os.ReadFile(filepath.Join(dir, study.MarkdownFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## Order of techniques", "## Network: injected and measured", "## Participants", "> You will play two short rounds"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
}
