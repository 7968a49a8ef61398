package online

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lagkit/lagkit/probe"
	"github.com/lagkit/lagkit/study/lobby"
	"github.com/lagkit/lagkit/testlock"
)

var shots = flag.String("shots", "", "keep TestJoinPageInBrowser's screenshots (waiting page, refusal, completion) here")

// browser returns node and playwright-core's URL, or skips.
func browser(t *testing.T) (string, string) {
	t.Helper()
	if testing.Short() {
		t.Skip("a browser for seconds of wall time")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed; run report/browser/install.sh to enable this test")
	}
	testlock.Lock(t)
	abs, _ := filepath.Abs("../../report/browser/node_modules/playwright-core/index.mjs")
	if _, err := os.Stat("/usr/bin/chromium"); err != nil {
		t.Skip("Debian's chromium is missing; run report/browser/install.sh to enable this test")
	}
	if _, err := os.Stat(abs); err != nil {
		t.Skip("playwright-core is not installed; run report/browser/install.sh to enable this test")
	}
	return node, (&url.URL{Scheme: "file", Path: abs}).String()
}

// TestJoinPageInBrowser: a participant's browser goes through the join
// page as a person would: consent, the prescreen (its frame rate
// measured, its round trip measured by the game server hosts' probes
// over the game's WebTransport, the best of two hosts kept), the wait
// (the page saying how long it can be), the match's link, and on to the
// platform's completion URL with a code that verifies. A second browser, its round trip measured over
// WebSocket, whose frame rate is under the floor is refused with the
// reason.
func TestJoinPageInBrowser(t *testing.T) {
	node, pw := browser(t)
	var done string
	mux := http.NewServeMux()
	n := 0
	s, err := New(Config{
		Lobby: lobby.Config{Study: "online-test", Seats: 2, MaxWait: 2 * time.Second, Secret: []byte("0123456789abcdef"),
			Groups: []lobby.Group{{Name: "A"}}, Admission: lobby.Admission{MinFPS: 5}},
		Alloc:   &Local{Seats: []int{0, 1}, Command: script(0, 3*time.Second), NewCode: func() string { n++; return fmt.Sprintf("C%d", n) }},
		Consent: "You will play a game.", Agree: "I agree",
		IDParam: "PROLIFIC_PID", StudyParam: "STUDY_ID", SessionParam: "SESSION_ID",
		Log: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	mux.Handle("/", s.Handler())
	mux.HandleFunc("GET /done", func(w http.ResponseWriter, r *http.Request) {
		done = r.URL.Query().Get("cc")
		_, _ = w.Write([]byte("done"))
	})
	hs := httptest.NewServer(mux)
	defer hs.Close()
	s.cfg.CompletionURL = hs.URL + "/done?cc={code}"
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	for range 2 {
		if _, err := s.ListenProbe(ctx, "127.0.0.1:0", nil); err != nil {
			t.Fatal(err)
		}
	}
	go func() { _ = s.Run(ctx, 100*time.Millisecond) }()

	type probed struct {
		Host  string
		Kind  string
		RTTms *float64 `json:"rtt_ms"`
		Error string
	}
	var probes []probed
	var texts map[string]string
	run := func(id, query string) (steps []string, final, text string) {
		args := []string{"testdata/join.mjs", hs.URL, id}
		if *shots != "" {
			args = append(args, *shots)
		}
		cmd := exec.CommandContext(ctx, node, args...)
		cmd.Env = append(os.Environ(), "PLAYWRIGHT_CORE="+pw, "JOIN_QUERY="+query)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("join.mjs %s: %v\n%s", id, err, stderr.String())
		}
		var v struct {
			Steps  []string
			Texts  map[string]string
			Final  string
			Text   string
			Probes []probed
		}
		if err := json.Unmarshal(out, &v); err != nil {
			t.Fatalf("join.mjs: %v: %s", err, out)
		}
		probes, texts = v.Probes, v.Texts
		return v.Steps, v.Final, v.Text
	}
	// checkProbes checks that the page measured both hosts over kind and
	// that the lobby kept the best round trip the hosts measured.
	checkProbes := func(id, kind string) {
		t.Helper()
		best := -1.0
		for _, p := range probes {
			if p.Kind != kind || p.RTTms == nil || p.Error != "" {
				t.Errorf("%s: probe of %s: %+v, want a round trip over %s", id, p.Host, p, kind)
				continue
			}
			if best < 0 || *p.RTTms < best {
				best = *p.RTTms
			}
		}
		s.mu.Lock()
		kept := s.rtt[id]
		s.mu.Unlock()
		if len(probes) != 2 || math.Abs(float64(kept)/float64(time.Millisecond)-best) > 0.001 {
			t.Errorf("%s: probes %+v, the lobby kept %v", id, probes, kept)
		}
	}
	steps, final, text := run("person1", "")
	checkProbes("person1", "webtransport")
	// The page's states as it met them, bar its first moment's
	// "loading"; a completed page goes to the platform at once (the
	// moment before the browser leaves may show "completed").
	if want := "arrived waiting matched"; strings.TrimSuffix(strings.Join(seen(steps), " "), " completed") != want || !strings.Contains(final, "/done?cc=") {
		t.Fatalf("steps %v, final %s (%s): want %s, then the completion URL", steps, final, text, want)
	}
	// The waiting page says how long the wait can be: the lobby's
	// 2 s at most, rounded up to the second, then bots.
	if w := texts["waiting"]; !regexp.MustCompile(`The match starts in at most 0:0[12], with bots in any empty seats\.`).MatchString(w) ||
		!strings.Contains(w, "Waiting for other participants to form a match.") {
		t.Errorf("the waiting page says %q: want the wait's 0:02 at most, then bots", w)
	}
	if !s.lobby.Verify("person1", done) {
		t.Errorf("the platform got code %q, which does not verify", done)
	}
	if f := s.Flow(); f.Consented != 1 {
		t.Errorf("the page's consent was not recorded: flow %+v", f)
	}
	// Back at the link after completing, the participant is not seated
	// again: the page hears how their part ended and goes to the
	// completion URL with the same code.
	first := done
	done = ""
	steps, final, text = run("person1", "")
	if st := strings.Join(seen(steps), " "); st != "" && st != "completed" || !strings.Contains(final, "/done?cc="+first) || done != first {
		t.Errorf("person1 back at the link: steps %v, final %s (%s), code %q; want the completion URL with %q", steps, final, text, done, first)
	}
	if f := s.Flow(); f.Arrived != 1 || f.Completed != 1 {
		t.Errorf("flow %+v after person1 came back: want one arrival, one completion", f)
	}
	// A browser refused at the prescreen: the floor is raised past any
	// headless frame rate.
	s.mu.Lock()
	s.lobby, _ = lobby.New(lobby.Config{Study: "online-test", Seats: 2, Secret: []byte("0123456789abcdef"), Groups: []lobby.Group{{}}, Admission: lobby.Admission{MinFPS: 999}})
	s.mu.Unlock()
	steps, _, text = run("person2", "transport=ws")
	checkProbes("person2", "websocket")
	if strings.Join(seen(steps), " ") != "arrived refused" || !strings.Contains(text, "fps under the 999 the study needs") {
		t.Fatalf("steps %v (%s), want a refusal naming the frame rate", steps, text)
	}
}

// TestJoinPageAfterLobbyRestart: a participant's page waiting for a
// match when the lobby stops and starts again (a new process, which
// remembers only who completed, was refused or dropped) arrives again on
// its own: it hears that the lobby no longer knows its participant, is
// asked for the consent again with the reason, passes the prescreen,
// waits, and completes in a match of the new lobby. Before, it kept
// showing a wait that could no longer end.
func TestJoinPageAfterLobbyRestart(t *testing.T) {
	node, pw := browser(t)
	var done string
	var cur atomic.Pointer[Server]
	mux := http.NewServeMux()
	mux.HandleFunc("GET /done", func(w http.ResponseWriter, r *http.Request) {
		done = r.URL.Query().Get("cc")
		_, _ = w.Write([]byte("done"))
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { cur.Load().Handler().ServeHTTP(w, r) })
	hs := httptest.NewServer(mux)
	defer hs.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	// start serves a lobby of matches of two, whose empty seats bots take
	// after wait.
	start := func(ctx context.Context, wait time.Duration) *Server {
		n := 0
		s, err := New(Config{
			Lobby: lobby.Config{Study: "online-test", Seats: 2, MaxWait: wait, Secret: []byte("0123456789abcdef"),
				Groups: []lobby.Group{{Name: "A"}}, Admission: lobby.Admission{MinFPS: 5}},
			Alloc:   &Local{Seats: []int{0, 1}, Command: script(0, 2*time.Second), NewCode: func() string { n++; return fmt.Sprintf("C%d", n) }},
			Consent: "You will play a game.", Agree: "I agree",
			IDParam: "PROLIFIC_PID", StudyParam: "STUDY_ID", SessionParam: "SESSION_ID",
			CompletionURL: hs.URL + "/done?cc={code}",
			Log:           slog.New(slog.DiscardHandler),
		})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.ListenProbe(ctx, "127.0.0.1:0", nil); err != nil {
			t.Fatal(err)
		}
		go func() { _ = s.Run(ctx, 100*time.Millisecond) }()
		return s
	}
	firstCtx, stopFirst := context.WithCancel(ctx)
	first := start(firstCtx, time.Hour)
	cur.Store(first)

	type result struct {
		Steps  []string
		Texts  map[string]string
		Agreed int
		Final  string
		Text   string
	}
	got := make(chan result, 1)
	go func() {
		cmd := exec.CommandContext(ctx, node, "testdata/join.mjs", hs.URL, "person1")
		cmd.Env = append(os.Environ(), "PLAYWRIGHT_CORE="+pw)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		var v result
		if err == nil {
			err = json.Unmarshal(out, &v)
		}
		if err != nil {
			v.Text = fmt.Sprintf("join.mjs: %v: %s\n%s", err, out, stderr.String())
		}
		got <- v
	}()
	// Once the participant waits in the first lobby, that lobby stops and
	// a new one takes its address, its wait for bots short.
	for {
		if st, err := first.statusOf("person1"); err == nil && st.State == "waiting" {
			break
		}
		select {
		case v := <-got:
			t.Fatalf("the page ended before waiting in the first lobby: %+v", v)
		case <-time.After(50 * time.Millisecond):
		}
	}
	stopFirst()
	second := start(ctx, 2*time.Second)
	cur.Store(second)

	v := <-got
	if v.Final == "" {
		t.Fatal(v.Text)
	}
	if st := strings.TrimSuffix(strings.Join(seen(v.Steps), " "), " completed"); st != "arrived waiting arrived waiting matched" || !strings.Contains(v.Final, "/done?cc=") {
		t.Fatalf("steps %v, final %s (%s): want arrived, waiting, arrived again, waiting, matched, then the completion URL", v.Steps, v.Final, v.Text)
	}
	if v.Agreed != 2 || !strings.Contains(v.Texts["arrived"], "lobby started again") {
		t.Errorf("agreed %d times, the page asked again with %q: want twice, the second saying the lobby started again", v.Agreed, v.Texts["arrived"])
	}
	if !second.lobby.Verify("person1", done) {
		t.Errorf("the platform got code %q, which the new lobby does not verify", done)
	}
	if f := second.Flow(); f.Arrived != 1 || f.Consented != 1 || f.Completed != 1 {
		t.Errorf("the new lobby's flow %+v: want one arrival, consent and completion", f)
	}
}

// seen drops the page's "loading" from its steps.
func seen(steps []string) []string {
	var out []string
	for _, s := range steps {
		if s != "loading" {
			out = append(out, s)
		}
	}
	return out
}

// TestServerLostInBrowser: a participant's join page, open while its
// match's game server process is killed, says the game server was lost:
// with requeue it offers a new match's link, with finish the completion
// code.
func TestServerLostInBrowser(t *testing.T) {
	node, pw := browser(t)
	for _, how := range []string{LostRequeue, LostFinish} {
		t.Run(how, func(t *testing.T) {
			starts := 0
			s, base, _ := newLostServer(t, how, func(ctx context.Context, m lobby.Match, codes map[int]string, absent []int, port int) *exec.Cmd {
				starts++
				hold := time.Minute // the first is killed
				if starts > 1 {
					hold = 5 * time.Second
				}
				return script(0, hold)(ctx, m, codes, absent, port)
			})
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, node, "testdata/lost.mjs", base, "lost-"+how)
			cmd.Env = append(os.Environ(), "PLAYWRIGHT_CORE="+pw)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			stdin, _ := cmd.StdinPipe()
			stdout, _ := cmd.StdoutPipe()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			var told struct {
				Step, State, Reason, Join, Code string
			}
			dec := json.NewDecoder(stdout)
			for dec.More() {
				var v struct{ Step string }
				var raw json.RawMessage
				if err := dec.Decode(&raw); err != nil {
					t.Fatalf("lost.mjs: %v", err)
				}
				_ = json.Unmarshal(raw, &v)
				t.Logf("lost.mjs: %s", raw)
				switch v.Step {
				case "matched":
					if err := s.Session(0).Kill(); err != nil {
						t.Fatal(err)
					}
					fmt.Fprintln(stdin, "killed")
				case "told":
					_ = json.Unmarshal(raw, &told)
				}
			}
			if err := cmd.Wait(); err != nil {
				t.Fatalf("lost.mjs: %v\n%s", err, stderr.String())
			}
			if !strings.HasPrefix(told.Reason, "the game server was lost mid-match (the session's process ended: signal: killed)") {
				t.Errorf("told %+v", told)
			}
			switch how {
			case LostRequeue:
				if told.State != "matched" || !strings.Contains(told.Join, "/?code=C") || told.Code != "" {
					t.Errorf("requeued: %+v", told)
				}
			case LostFinish:
				if told.State != "completed" || len(told.Code) != 16 {
					t.Errorf("finished: %+v", told)
				}
			}
		})
	}
}

// TestJoinPageSealedInBrowser: under Agones the join page measures its
// round trip to a Fleet's game server host, which the lobby does not
// run: the host's probe seals the result, the page hands the seal on
// (POST /lobby/probe), and the lobby keeps the host's figure, over
// WebTransport and over WebSocket. A host sealing with a key other than
// the lobby's has its result refused, and the page says so.
func TestJoinPageSealedInBrowser(t *testing.T) {
	node, pw := browser(t)
	secret := []byte("0123456789abcdef0123456789abcdef")
	for _, tc := range []struct {
		name, query, kind string
		key               []byte
	}{
		{"webtransport", "", "webtransport", probe.SealKey(secret)},
		{"websocket", "transport=ws", "websocket", probe.SealKey(secret)},
		{"another key", "", "webtransport", probe.SealKey([]byte("not the lobby's secret, no"))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := 0
			s, err := New(Config{
				Lobby:   lobby.Config{Study: "online-test", Seats: 1, MaxWait: time.Second, Secret: secret, Groups: []lobby.Group{{Name: "A"}}},
				Alloc:   &Local{Seats: []int{0}, Command: script(0, 2*time.Second), NewCode: func() string { n++; return fmt.Sprintf("C%d", n) }},
				SealKey: probe.SealKey(secret), IDParam: "PROLIFIC_PID", Log: slog.New(slog.DiscardHandler),
			})
			if err != nil {
				t.Fatal(err)
			}
			w := fleetProbe(t, tc.key)
			s.SetProbes([]ProbeHost{{Host: w.Addr(), CertHash: w.CertHash()}})
			base := newHTTP(t, s)
			// The page leaves for the completion URL at the end (a 404
			// here, and join.mjs stops there).
			s.cfg.CompletionURL = base + "/done?cc={code}"
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			go func() { _ = s.Run(ctx, 100*time.Millisecond) }()
			cmd := exec.CommandContext(ctx, node, "testdata/join.mjs", base, "person1")
			cmd.Env = append(os.Environ(), "PLAYWRIGHT_CORE="+pw, "JOIN_QUERY="+tc.query)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("join.mjs: %v\n%s", err, stderr.String())
			}
			var v struct {
				Steps  []string
				Text   string
				Probes []struct {
					Host, Kind, Seal string
					RTTus            int64 `json:"rtt_us"`
					Error            string
				}
			}
			if err := json.Unmarshal(out, &v); err != nil || len(v.Probes) != 1 {
				t.Fatalf("join.mjs: %v: %s", err, out)
			}
			p := v.Probes[0]
			s.mu.Lock()
			kept := s.rtt["person1"]
			s.mu.Unlock()
			if tc.name == "another key" {
				if !strings.Contains(p.Error, "the lobby refused the result: online: person1's round trip to "+w.Addr()+": probe: the seal does not match") ||
					kept != 0 || !strings.Contains(v.Text, "could not be measured") {
					t.Errorf("probe %+v, kept %v, page %q: want the result refused", p, kept, v.Text)
				}
				return
			}
			if p.Kind != tc.kind || p.Seal == "" || p.Error != "" || kept != time.Duration(p.RTTus)*time.Microsecond || kept <= 0 {
				t.Errorf("probe %+v, the lobby kept %v", p, kept)
			}
			if !strings.Contains(strings.Join(seen(v.Steps), " "), "arrived waiting") {
				t.Errorf("steps %v (%s)", v.Steps, v.Text)
			}
		})
	}
}
