package web

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lagkit/lagkit/realtime"
	"github.com/lagkit/lagkit/shooter/scaling"
	"github.com/lagkit/lagkit/study"
)

// studyStep is one line browser/study.mjs prints.
type studyStep struct {
	Step       string `json:"step"`
	Match      string `json:"match"`
	Seat       int    `json:"seat"`
	Transport  string `json:"transport"`
	TokenInURL bool   `json:"tokenInUrl"`
	Rows       int    `json:"rows"`
	Players    int    `json:"players"`
	Bots       int    `json:"bots"`
	MapPixels  struct {
		Red, Blue, Yellow int
	} `json:"mapPixels"`
	Commands []struct {
		Action string `json:"action"`
		Status int    `json:"status"`
	} `json:"commands"`
	Message      string         `json:"message"`
	SubmitBefore bool           `json:"submitBefore"`
	Questions    int            `json:"questions"`
	Chosen       map[string]int `json:"chosen"`
	Thanks       string         `json:"thanks"`
	AnsweredCell string         `json:"answeredCell"`
	Joins        int            `json:"joins"`
	Spectated    string         `json:"spectated"`
	Armed        string         `json:"armed"`
	Over         string         `json:"over"`
	Feedback     string         `json:"feedback"`
	PingText     string         `json:"pingText"`
	GraphShown   bool           `json:"graphShown"`
}

// TestStudyInBrowser runs a study's pages in headless Chromium against a
// test study (fakeStudy) whose rounds are matches of a real host that
// admits only holders of a connect token: a participant joins by code
// and plays a bot's seat; the admin page lists the seats, spectates the
// four players of the round's match with a hit's rewind drawn on its
// map; the participant's link is cut for 7 s, and the page joins again
// by code; the admin's buttons send pause, resume, extend and skip; the
// participant answers the questionnaire with its buttons, presses
// ready, and joins the next round's match by code; the admin ends the
// study and the participant is told. With -images DIR it
// keeps admin.png and questionnaire.png in DIR.
func TestStudyInBrowser(t *testing.T) {
	node, playwright := browserEnv(t)
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()

	h := newTokenHost(t, "study")
	f := newFakeStudy("K7Q2")
	f.issue = func(seat int, name string) ([]byte, error) {
		return h.IssueToken(f.st.Match, name, 30*time.Second) // under f.mu, in Join
	}
	const admin = "admin-7c1e"
	handler := HandlerWith(Options{Study: f, AdminToken: admin, Host: h})
	// The round's technique adjusts the world (attribute scaling) and
	// mandates a placebo ping of 42 ms.
	cfg := realtime.MatchConfig{Map: "arena", Mode: "tdm", Seats: 4, Bots: 4,
		Scaling: scaling.Config{Name: scaling.AccuracyHold}, Feedback: "placebo", PlaceboMS: 42}
	m1, base := serveMatch(t, ctx, h, handler, cfg)
	f.mu.Lock()
	f.pause = func(on bool) error {
		if on {
			return m1.Pause()
		}
		return m1.Resume()
	}
	f.mu.Unlock()
	f.set(func(st *study.LiveState) {
		st.Match, st.Phase, st.Remaining = m1.ID(), study.PhasePlaying, study.Duration(time.Minute)
	})

	out := t.TempDir()
	if *imagesDir != "" {
		out = *imagesDir
	}
	cmd := nodeScript(ctx, node, playwright, "browser/study.mjs", base, "K7Q2", admin, out)
	stdin, stdout, stderr := startScript(t, cmd)
	steps := map[string]studyStep{}
	var m2 *realtime.Match
	var info1 realtime.MatchInfo
	var err error
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		var s studyStep
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatalf("study.mjs printed %q: %v", sc.Text(), err)
		}
		t.Logf("study.mjs: %s", sc.Text())
		steps[s.Step] = s
		switch s.Step {
		case "spectated":
			if info1, err = m1.Info(); err != nil {
				t.Fatal(err)
			}
			cut := realtime.LinkConfig{Loss: 1}
			if err := m1.SetLatency([]realtime.LinkRule{{Player: "pK7Q2", Up: cut, Down: cut}}); err != nil {
				t.Fatal(err)
			}
			time.Sleep(7 * time.Second)
			if err := m1.SetLatency(nil); err != nil {
				t.Fatal(err)
			}
			fmt.Fprintln(stdin, "restored")
		case "answered":
			f.set(func(st *study.LiveState) { st.Phase, st.Round = study.PhaseReady, 1 })
			fmt.Fprintln(stdin, "ready")
		case "ready":
			if m2, err = h.Start(cfg); err != nil {
				t.Fatal(err)
			}
			f.set(func(st *study.LiveState) { st.Match, st.Phase = m2.ID(), study.PhasePlaying })
			fmt.Fprintln(stdin, m2.ID())
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("study.mjs: %v\n%s", err, stderr.String())
	}
	if stderr.Len() > 0 {
		t.Logf("study.mjs: %s", stderr.String())
	}

	sp := steps["spectated"]
	if sp.Feedback != "placebo" || sp.PingText != "ping 42 ms" || sp.GraphShown {
		t.Errorf("the page showed feedback %q, ping %q, net graph %v: want the mandated placebo, ping 42 ms, no net graph", sp.Feedback, sp.PingText, sp.GraphShown)
	}
	if sp.Match != m1.ID() || sp.TokenInURL || sp.Rows != 2 || sp.Players != 4 || sp.Bots != 3 {
		t.Errorf("spectated %+v: want match %s, the token gone from the address, 2 seats listed, 4 players of whom 3 bots", sp, m1.ID())
	}
	if sp.MapPixels.Red < 20 || sp.MapPixels.Blue < 20 || sp.MapPixels.Yellow < 20 {
		t.Errorf("the map drew %+v pixels, want both teams and a rewind", sp.MapPixels)
	}
	human := false
	for _, p := range info1.Players {
		human = human || (!p.Bot && p.Name == "pK7Q2")
	}
	if !human {
		t.Errorf("match players %+v: want the participant, pK7Q2", info1.Players)
	}
	an := steps["answered"]
	var sent []string
	for _, c := range an.Commands {
		sent = append(sent, fmt.Sprintf("%s:%d", c.Action, c.Status))
	}
	if !slices.Equal(sent, []string{"pause:204", "resume:204", "extend:204", "skip:204"}) || !strings.Contains(an.Message, "skip: done") || !strings.Contains(an.Armed, "again") {
		t.Errorf("the admin's buttons sent %v (%q), end armed %q", sent, an.Message, an.Armed)
	}
	got := f.sent()
	if len(got) != 5 || got[4].Action != study.ActionEnd || got[2] != (study.Command{Action: study.ActionExtend, Extend: study.Duration(2 * time.Minute)}) {
		t.Errorf("the study got %+v", got)
	}
	if !an.SubmitBefore || an.Questions != 4 || an.AnsweredCell != "yes" || !strings.Contains(an.Thanks, "next round") {
		t.Errorf("questionnaire %+v: want submit disabled until answered, 4 questions, thanks, and the admin's table updated", an)
	}
	want := map[string]study.Response{
		"sbc": {Question: "sbc", Value: 1}, "smooth": {Question: "smooth", Value: 4}, "fair": {Question: "fair", Value: -2},
		"notes": {Question: "notes", Text: "the corner shots felt late"},
	}
	answers := f.answered("K7Q2")
	if len(answers) != len(want) {
		t.Errorf("answers %+v, want %+v", answers, want)
	}
	for _, a := range answers {
		if a != want[a.Question] {
			t.Errorf("answer %+v, want %+v", a, want[a.Question])
		}
	}
	if !slices.Equal(f.readies, []string{"K7Q2"}) {
		t.Errorf("ready pressed by %v, want K7Q2", f.readies)
	}
	done := steps["done"]
	if steps["rejoined"].Joins < 2 {
		t.Errorf("after losing its link the page joined %d times, want again", steps["rejoined"].Joins)
	}
	if m2 == nil || done.Match != m2.ID() || done.Joins < 3 || done.Spectated != m2.ID() || done.Over == "" {
		t.Fatalf("done %+v: want the next round's match joined by code and spectated, then the study over", done)
	}
	if *imagesDir != "" {
		for _, name := range []string{"admin.png", "questionnaire.png"} {
			if st, err := os.Stat(filepath.Join(out, name)); err != nil || st.Size() < 10000 {
				t.Errorf("screenshot %s: %v", name, err)
			}
		}
	}
}
