package main

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/lagkit/lagkit/internal/pgtest"
	"github.com/lagkit/lagkit/store"
	"github.com/lagkit/lagkit/study"
	"github.com/lagkit/lagkit/study/online"
)

// restartSchedule is lobbySchedule with a completion URL and a
// prescreen that refuses a low frame rate.
const restartSchedule = lobbySchedule + `completion_url = "https://platform.example/done?cc={code}"

[online.admission]
min_fps = 50
`

// runningLobby is a lagkit study lobby running in the test.
type runningLobby struct {
	base        string
	out, errOut *lockedWriter
	cancel      context.CancelFunc
	done        chan int
}

// runLobby runs lagkit study lobby on sched and dsn, its matches run
// by this test binary as the command, and waits for its link.
func runLobby(t *testing.T, sched, dsn, secret string) *runningLobby {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	l := &runningLobby{out: &lockedWriter{}, errOut: &lockedWriter{}, cancel: cancel, done: make(chan int, 1)}
	t.Cleanup(cancel)
	go func() {
		l.done <- execute(ctx, []string{"study", "lobby", sched, "--listen", "127.0.0.1:0", "--db", dsn,
			"--secret-file", secret, "--servers", "1", "--tick", "50ms", "--log-format", "json"}, l.out, l.errOut)
	}()
	link := regexp.MustCompile(`lobby (http://[^/]+)/\?`)
	for {
		if m := link.FindStringSubmatch(l.out.String()); m != nil {
			l.base = m[1]
			return l
		}
		select {
		case code := <-l.done:
			t.Fatalf("exit %d before the lobby listened: %s%s", code, l.out.String(), l.errOut.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// stop stops the lobby as a SIGINT would and returns its output.
func (l *runningLobby) stop(t *testing.T) string {
	t.Helper()
	l.cancel()
	if c := <-l.done; c != 0 {
		t.Fatalf("exit %d: %s%s", c, l.out.String(), l.errOut.String())
	}
	return l.out.String()
}

// playThrough takes participant id through the lobby's steps to a
// match and its end, and returns the completion code.
func playThrough(ctx context.Context, t *testing.T, l *runningLobby, id string) string {
	t.Helper()
	p := &online.Participant{Base: l.base, ID: id}
	if _, err := p.Arrive(ctx); err != nil {
		t.Fatalf("%s: %v", id, err)
	}
	if _, err := p.Measure(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Consent(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Prescreen(ctx, online.Screen{FPS: 120, RefreshHz: 60, PointerLock: true}); err != nil {
		t.Fatal(err)
	}
	st, err := p.Until(ctx, 100*time.Millisecond, func(s online.Status) bool {
		return s.State != "arrived" && s.State != "waiting" && s.State != "matched"
	})
	if err != nil || st.State != "completed" || st.Code == "" {
		t.Fatalf("%s after the match: %+v, %v\n%s%s", id, st, err, l.out.String(), l.errOut.String())
	}
	return st.Code
}

// TestStudyLobbyRestart: a lobby stopped and started again on the same
// study and database remembers who took part, in SQLite and in
// PostgreSQL. A participant who completed before the restart is not
// seated again: arriving, they are answered with their completion code
// and the platform's completion URL again; one refused at the prescreen
// gets the refusal and its reason; one who left gets the dropout's
// answer; one who had only arrived starts afresh and plays. Each
// match's events name the study session its game server recorded: the
// two lobbies' matches are both match 0, of two sessions; and the
// report's participant flow counts everyone once across both lobbies.
func TestStudyLobbyRestart(t *testing.T) {
	for _, db := range []struct {
		name string
		dsn  func(t *testing.T) string
	}{
		{"sqlite", func(t *testing.T) string { return filepath.Join(t.TempDir(), "study.db") }},
		{"postgres", func(t *testing.T) string { return pgtest.URL(t) }},
	} {
		t.Run(db.name, func(t *testing.T) {
			tmp := t.TempDir()
			sched := filepath.Join(tmp, "lobby.toml")
			if err := os.WriteFile(sched, []byte(restartSchedule), 0o644); err != nil {
				t.Fatal(err)
			}
			dsn, secret := db.dsn(t), filepath.Join(tmp, "secret")
			t.Setenv("LAGKIT_AS_COMMAND", "1")
			ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
			defer cancel()

			first := runLobby(t, sched, dsn, secret)
			code1 := playThrough(ctx, t, first, "p-1")
			slow := &online.Participant{Base: first.base, ID: "p-2"}
			if _, err := slow.Arrive(ctx); err != nil {
				t.Fatal(err)
			}
			if _, err := slow.Measure(ctx); err != nil {
				t.Fatal(err)
			}
			if _, err := slow.Consent(ctx); err != nil {
				t.Fatal(err)
			}
			if st, err := slow.Prescreen(ctx, online.Screen{FPS: 20, RefreshHz: 60, PointerLock: true}); err != nil || st.State != "refused" {
				t.Fatalf("p-2 at 20 fps: %+v, %v", st, err)
			}
			quit := &online.Participant{Base: first.base, ID: "p-3"}
			if _, err := quit.Arrive(ctx); err != nil {
				t.Fatal(err)
			}
			if err := quit.Leave(ctx, "pressed leave"); err != nil {
				t.Fatal(err)
			}
			for _, id := range []string{"p-4", "p-5"} {
				p := &online.Participant{Base: first.base, ID: id}
				if _, err := p.Arrive(ctx); err != nil {
					t.Fatal(err)
				}
				if _, err := p.Consent(ctx); err != nil {
					t.Fatal(err)
				}
			}
			out := first.stop(t)
			if !strings.Contains(out, "flow: arrived 5, consented 4, admitted 1, refused 1") {
				t.Fatalf("the first lobby's output:\n%s", out)
			}

			second := runLobby(t, sched, dsn, secret)
			if out := second.out.String(); !strings.Contains(out, "study lobby-test: 3 participants of 1 earlier lobbies remembered") {
				t.Errorf("the second lobby's output:\n%s", out)
			}
			for _, c := range []struct {
				id, state, reason, code string
			}{
				{"p-1", "completed", "", code1},
				{"p-2", "refused", "frame rate 20 fps under the 50 the study needs", ""},
				{"p-3", "dropped", "left: pressed leave", ""},
			} {
				st, err := (&online.Participant{Base: second.base, ID: c.id}).Arrive(ctx)
				var refused *online.AnswerError
				if !errors.As(err, &refused) || refused.Status != http.StatusConflict || !strings.Contains(refused.Msg, "already taken part") {
					t.Errorf("%s arriving at the second lobby: %v, want 409: taken part", c.id, err)
				}
				redirect := ""
				if c.code != "" {
					redirect = "https://platform.example/done?cc=" + c.code
				}
				if st.State != c.state || st.Reason != c.reason || st.Code != c.code || st.Redirect != redirect || st.Join != "" {
					t.Errorf("%s's answer at the second lobby: %+v; want %s %q, code %q", c.id, st, c.state, c.reason, c.code)
				}
			}
			if st, err := (&online.Participant{Base: second.base, ID: "p-4"}).Arrive(ctx); err != nil || st.State != "arrived" || st.Consented {
				t.Errorf("p-4, who had only arrived: %+v, %v; want a fresh arrival", st, err)
			}
			code4 := playThrough(ctx, t, second, "p-4")
			if ok, err := (&online.Participant{Base: second.base, ID: "p-1"}).Verify(ctx, code1); !ok || err != nil {
				t.Errorf("p-1's code at the second lobby: valid %v, %v", ok, err)
			}
			out = second.stop(t)
			if !strings.Contains(out, "match 0: group 0, 1 people") || !strings.Contains(out, "flow: arrived 1, consented 1, admitted 1, refused 0 (0 timed out at the prescreen), matched 1, requeued 0 after a lost game server, completed 1") {
				t.Errorf("the second lobby's output:\n%s", out)
			}
			if code4 == code1 {
				t.Errorf("p-4 and p-1 share code %s", code1)
			}

			sdb, err := store.Open(context.Background(), dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer sdb.Close()
			sets, err := sdb.StudySets(context.Background())
			if err != nil || len(sets) != 1 || len(sets[0].Sessions) != 2 {
				t.Fatalf("studies %+v, %v: want one of two sessions", sets, err)
			}
			s1, s2 := sets[0].Sessions[0].ID, sets[0].Sessions[1].ID
			evs, err := sdb.LobbyEvents(context.Background(), sets[0].ID)
			if err != nil {
				t.Fatal(err)
			}
			lobbies := map[time.Time]bool{}
			matchEvents := 0
			for _, e := range evs {
				lobbies[e.Lobby] = true
				want := int64(0)
				switch {
				case e.Kind != "matched" && e.Kind != "completed":
				case e.Participant == "p-1":
					want = s1
				case e.Participant == "p-4":
					want = s2
				}
				if want != 0 {
					matchEvents++
					if e.Match != 0 {
						t.Errorf("%s %s: match %d, want the lobby's match 0", e.Participant, e.Kind, e.Match)
					}
				}
				if e.Session != want {
					t.Errorf("%s %s (match %d): session %d, want %d", e.Participant, e.Kind, e.Match, e.Session, want)
				}
			}
			if len(lobbies) != 2 || matchEvents != 4 {
				t.Errorf("%d lobbies, %d events of matches: want 2 and 4 (%+v)", len(lobbies), matchEvents, evs)
			}

			dir := filepath.Join(tmp, "report")
			if code, out, errOut := lagkit("study", "report", "--db", dsn, "--out", dir); code != 0 {
				t.Fatalf("report: exit %d: %s%s", code, out, errOut)
			}
			rep, _ := readStudyReport(t, dir)
			if rep.Flow == nil || rep.Flow.Lobbies != 2 {
				t.Fatalf("flow %+v (%q)", rep.Flow, rep.FlowNote)
			}
			for _, c := range []struct {
				stage string
				n     int
			}{
				{study.FlowArrived, 5}, {study.FlowConsented, 4}, {study.FlowRefused, 1}, {study.FlowDroppedPrescreen, 1}, {study.FlowAdmitted, 2},
				{study.FlowMatched, 2}, {study.FlowCompleted, 2}, {study.FlowInLobby, 1},
			} {
				if n := rep.Flow.Count(c.stage); n != c.n {
					t.Errorf("flow %s: %d, want %d", c.stage, n, c.n)
				}
			}
		})
	}
}
