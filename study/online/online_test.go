package online

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/lagkit/lagkit/probe"
	"github.com/lagkit/lagkit/study/lobby"
	"github.com/lagkit/lagkit/transport"
)

// script is a game server for a match: it prints each person's seat
// link as lagkit study run does, and exits with status after hold.
func script(status int, hold time.Duration) func(ctx context.Context, m lobby.Match, codes map[int]string, absent []int, port int) *exec.Cmd {
	return func(ctx context.Context, m lobby.Match, codes map[int]string, absent []int, port int) *exec.Cmd {
		var b strings.Builder
		for seat, code := range codes {
			fmt.Fprintf(&b, "echo 'seat %d: https://127.0.0.1:%d/?code=%s'; ", seat, port, code)
		}
		fmt.Fprintf(&b, "echo 'absent %v'; sleep %.1f; exit %d", absent, hold.Seconds(), status)
		return exec.CommandContext(ctx, "sh", "-c", b.String())
	}
}

type page struct {
	t    *testing.T
	base string
	id   string
}

func (p page) post(path string, body any) (int, map[string]any) {
	p.t.Helper()
	b, _ := json.Marshal(body)
	r, err := http.Post(p.base+path, "application/json", bytes.NewReader(b))
	if err != nil {
		p.t.Fatal(err)
	}
	defer r.Body.Close()
	var v map[string]any
	_ = json.NewDecoder(r.Body).Decode(&v)
	return r.StatusCode, v
}

func (p page) status() map[string]any {
	p.t.Helper()
	r, err := http.Get(p.base + "/lobby/status?id=" + p.id)
	if err != nil {
		p.t.Fatal(err)
	}
	defer r.Body.Close()
	var v map[string]any
	_ = json.NewDecoder(r.Body).Decode(&v)
	return v
}

// measure has p's round trip measured by the lobby's probes as the page
// does, and returns it in milliseconds.
func (p page) measure(ctx context.Context) float64 {
	p.t.Helper()
	rtt, err := (&Participant{Base: p.base, ID: p.id}).Measure(ctx)
	if err != nil {
		p.t.Fatal(err)
	}
	return float64(rtt) / float64(time.Millisecond)
}

func newServer(t *testing.T, seats int, status int, adm lobby.Admission) (*Server, string) {
	t.Helper()
	n := 0
	s, err := New(Config{
		Lobby: lobby.Config{Study: "online-test", Seats: seats, MaxWait: time.Second, Secret: []byte("0123456789abcdef"),
			Groups: []lobby.Group{{Name: "A"}, {Name: "B"}}, Admission: adm},
		Alloc:   &Local{Seats: []int{0, 1, 2}[:seats], Command: script(status, 300*time.Millisecond), NewCode: func() string { n++; return fmt.Sprintf("C%d", n) }},
		IDParam: "PROLIFIC_PID", StudyParam: "STUDY_ID", SessionParam: "SESSION_ID",
		CompletionURL: "https://platform.example/complete?cc={code}", Log: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(hs.Close)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	if _, err := s.ListenProbe(ctx, "127.0.0.1:0", nil); err != nil {
		t.Fatal(err)
	}
	go func() { _ = s.Run(ctx, 50*time.Millisecond) }()
	return s, hs.URL
}

// until polls p's status until ok, or fails after a minute.
func until(t *testing.T, p page, what string, ok func(map[string]any) bool) map[string]any {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		st := p.status()
		if ok(st) {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: waited for %s, last %v", p.id, what, st)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestLobbyServiceFlow: two participants arrive through the join link,
// pass the prescreen with a round trip the game server host's probe
// measured, wait, are seated in one match of three seats with a bot
// once the wait runs out, get their game server's links, and once the
// session ends get a completion code that verifies and a redirect to
// the platform; a second arrival of the same id is refused.
func TestLobbyServiceFlow(t *testing.T) {
	s, base := newServer(t, 3, 0, lobby.Admission{PointerLock: true, MaxBaseRTT: time.Second})
	ctx := context.Background()
	var pages []page
	for _, id := range []string{"p1", "p2"} {
		p := page{t, base, id}
		if code, v := p.post("/lobby/arrive", map[string]string{"id": id, "study": "S1", "session": "X" + id}); code != 200 || v["state"] != "arrived" {
			t.Fatalf("arrive %s: %d %v", id, code, v)
		}
		if code, v := p.post("/lobby/prescreen", map[string]any{"id": id, "fps": 120, "refresh_hz": 60, "pointer_lock": true}); code != http.StatusConflict {
			t.Fatalf("a prescreen before the round trip was measured: %d %v", code, v)
		}
		if rtt := p.measure(ctx); rtt <= 0 || rtt > 1000 {
			t.Fatalf("round trip %v ms on loopback", rtt)
		}
		if code, v := p.post("/lobby/prescreen", map[string]any{"id": id, "fps": 120, "refresh_hz": 60, "pointer_lock": true}); code != 200 || v["state"] != "waiting" {
			t.Fatalf("prescreen %s: %d %v", id, code, v)
		}
		pages = append(pages, p)
	}
	if st, sess := s.Platform("p2"); st != "S1" || sess != "Xp2" {
		t.Errorf("platform ids %q %q", st, sess)
	}
	joins := map[string]bool{}
	for _, p := range pages {
		st := until(t, p, "a join link", func(v map[string]any) bool { return v["join"] != nil })
		joins[st["join"].(string)] = true
		if !strings.Contains(st["join"].(string), "/?code=C") {
			t.Errorf("%s: join %v", p.id, st["join"])
		}
	}
	if len(joins) != 2 {
		t.Fatalf("join links %v, want one each", joins)
	}
	for _, p := range pages {
		st := until(t, p, "completion", func(v map[string]any) bool { return v["state"] == "completed" })
		code := st["code"].(string)
		if st["redirect"] != "https://platform.example/complete?cc="+code {
			t.Errorf("redirect %v for code %s", st["redirect"], code)
		}
		if _, v := p.post("/lobby/verify", map[string]string{"id": p.id, "code": code}); v["valid"] != true {
			t.Errorf("%s's code does not verify", p.id)
		}
		if _, v := p.post("/lobby/verify", map[string]string{"id": p.id, "code": "AAAAAAAAAAAAAAAA"}); v["valid"] != false {
			t.Errorf("a forged code verifies")
		}
		if code, v := p.post("/lobby/arrive", map[string]string{"id": p.id}); code != http.StatusConflict {
			t.Errorf("a second participation: %d %v", code, v)
		}
	}
	f := s.Flow()
	if f.Arrived != 2 || f.Matched != 2 || f.Completed != 2 || f.Bots != 1 {
		t.Errorf("flow %+v", f)
	}
}

// TestLobbyServiceRefusals: a link without an id, a refused prescreen,
// a failed game server and junk get clear answers, and hold no seat.
func TestLobbyServiceRefusals(t *testing.T) {
	s, base := newServer(t, 1, 3, lobby.Admission{MinFPS: 60})
	p := page{t, base, "slow"}
	if code, v := p.post("/lobby/arrive", map[string]string{"id": ""}); code != http.StatusBadRequest || !strings.Contains(fmt.Sprint(v["error"]), "no participant id") {
		t.Errorf("no id: %d %v", code, v)
	}
	if code, v := p.post("/lobby/arrive", map[string]any{"id": "x", "extra": 1}); code != http.StatusBadRequest {
		t.Errorf("junk: %d %v", code, v)
	}
	p.post("/lobby/arrive", map[string]string{"id": "slow"})
	p.measure(context.Background())
	if _, v := p.post("/lobby/prescreen", map[string]any{"id": "slow", "fps": 20, "pointer_lock": true}); v["state"] != "refused" ||
		v["reason"] != "frame rate 20 fps under the 60 the study needs" {
		t.Errorf("a slow browser: %v", v)
	}
	// The game server fails: its participant goes back to the queue,
	// MaxRequeues times, then finishes with the reason.
	q := page{t, base, "unlucky"}
	q.post("/lobby/arrive", map[string]string{"id": "unlucky"})
	q.measure(context.Background())
	q.post("/lobby/prescreen", map[string]any{"id": "unlucky", "fps": 90})
	st := until(t, q, "the session's end", func(v map[string]any) bool { return v["state"] == "completed" })
	if !strings.Contains(fmt.Sprint(st["reason"]), "the game server was lost mid-match (the session exited with status 3)") || st["code"] == nil {
		t.Errorf("status %v", st)
	}
	if f := s.Flow(); f.Refused != 1 || f.Requeued != 1 || f.Matched != 1 || f.Completed != 1 || f.Lost != 1 {
		t.Errorf("flow %+v", f)
	}
	if n := len(s.Matches()); n != MaxRequeues+1 {
		t.Errorf("%d matches, want %d", n, MaxRequeues+1)
	}
}

// newLostServer is a lobby of two-seat matches whose game servers run
// cmd, and whose lost game servers' people go where lost says.
func newLostServer(t *testing.T, lost string, cmd func(context.Context, lobby.Match, map[int]string, []int, int) *exec.Cmd) (*Server, string, chan lobby.Match) {
	t.Helper()
	n := 0
	told := make(chan lobby.Match, 4)
	s, err := New(Config{
		Lobby:        lobby.Config{Study: "lost-test", Seats: 2, MaxWait: 500 * time.Millisecond, Secret: []byte("0123456789abcdef"), Groups: []lobby.Group{{Name: "A"}, {Name: "B"}}},
		Alloc:        &Local{Seats: []int{0, 1}, Command: cmd, NewCode: func() string { n++; return fmt.Sprintf("C%d", n) }, Log: slog.New(slog.DiscardHandler)},
		OnServerLost: lost, Log: slog.New(slog.DiscardHandler), IDParam: "PROLIFIC_PID", StudyParam: "STUDY_ID", SessionParam: "SESSION_ID",
		Lost: func(_ context.Context, m lobby.Match, sess *Session, err error) {
			if len(sess.Codes) != len(m.People) {
				t.Errorf("match %d's codes %v", m.ID, sess.Codes)
			}
			told <- m
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	listenProbe(t, s)
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(hs.Close)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go func() { _ = s.Run(ctx, 50*time.Millisecond) }()
	return s, hs.URL, told
}

// listenProbe serves s's prescreen probe on a loopback port for the
// test's length.
func listenProbe(t *testing.T, s *Server) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	if _, err := s.ListenProbe(ctx, "127.0.0.1:0", nil); err != nil {
		t.Fatal(err)
	}
}

// admit brings participant id through the prescreen.
func admit(t *testing.T, base, id string) page {
	p := page{t, base, id}
	p.post("/lobby/arrive", map[string]string{"id": id})
	p.measure(context.Background())
	if code, v := p.post("/lobby/prescreen", map[string]any{"id": id, "fps": 90}); code != 200 {
		t.Fatalf("prescreen %s: %d %v", id, code, v)
	}
	return p
}

// TestServerLost: a match's game server process killed mid-round tells
// its people so: with requeue they wait again, first in line and for
// their group, and play a new match to its end; with finish they get
// their completion code with the loss as its status. Lost hears of the
// killed match, once.
func TestServerLost(t *testing.T) {
	for _, how := range []string{LostRequeue, LostFinish} {
		t.Run(how, func(t *testing.T) {
			starts := 0
			s, base, told := newLostServer(t, how, func(ctx context.Context, m lobby.Match, codes map[int]string, absent []int, port int) *exec.Cmd {
				starts++
				hold := 30 * time.Second // the first is killed
				if starts > 1 {
					hold = 300 * time.Millisecond
				}
				return script(0, hold)(ctx, m, codes, absent, port)
			})
			a, b := admit(t, base, "a"), admit(t, base, "b")
			until(t, a, "a join link", func(v map[string]any) bool { return v["join"] != nil })
			var sess *Session
			for sess == nil {
				sess = s.Session(0)
				time.Sleep(20 * time.Millisecond)
			}
			if err := sess.Kill(); err != nil {
				t.Fatal(err)
			}
			if m := <-told; m.ID != 0 {
				t.Errorf("lost match %d", m.ID)
			}
			for _, p := range []page{a, b} {
				if how == LostFinish {
					st := until(t, p, "the finish", func(v map[string]any) bool { return v["state"] == "completed" })
					if !strings.HasPrefix(fmt.Sprint(st["reason"]), "the game server was lost mid-match (the session's process ended: signal: killed)") || st["code"] == nil {
						t.Errorf("%s: %v", p.id, st)
					}
					continue
				}
				st := until(t, p, "the new match's end", func(v map[string]any) bool { return v["state"] == "completed" })
				if st["reason"] != nil {
					t.Errorf("%s completed the new match: %v", p.id, st)
				}
			}
			requeued := 0
			for _, ev := range s.Events() {
				if ev.Kind == "requeued" && ev.Match == 0 && strings.HasPrefix(ev.Reason, "the game server was lost mid-match") {
					requeued++
				}
			}
			if want := map[string]int{LostRequeue: 2, LostFinish: 0}[how]; requeued != want {
				t.Errorf("%d requeued events, want %d: %+v", requeued, want, s.Events())
			}
			ms := s.Matches()
			f := s.Flow()
			switch how {
			case LostRequeue:
				if len(ms) != 2 || ms[1].Group != ms[0].Group || f.Requeued != 2 || f.Completed != 2 || f.Lost != 0 {
					t.Errorf("matches %+v, flow %+v", ms, f)
				}
			case LostFinish:
				if len(ms) != 1 || f.Requeued != 0 || f.Completed != 2 || f.Lost != 2 {
					t.Errorf("matches %+v, flow %+v", ms, f)
				}
			}
			select {
			case m := <-told:
				t.Errorf("match %d lost too", m.ID)
			default:
			}
		})
	}
}

// TestDropoutLine: a game server's "dropout seat N" line drops that
// seat's participant from the match with its reason, while the others
// play the match to its end; the dropout cannot join again.
func TestDropoutLine(t *testing.T) {
	s, base, _ := newLostServer(t, LostRequeue, func(ctx context.Context, m lobby.Match, codes map[int]string, absent []int, port int) *exec.Cmd {
		var b strings.Builder
		for seat, code := range codes {
			fmt.Fprintf(&b, "echo 'seat %d: https://127.0.0.1:%d/?code=%s'; ", seat, port, code)
		}
		b.WriteString("sleep 0.3; echo 'dropout seat 1: left mid-match (round 1 of 2)'; echo 'dropout seat 7: no such seat'; sleep 0.5")
		return exec.CommandContext(ctx, "sh", "-c", b.String())
	})
	a, b := admit(t, base, "a"), admit(t, base, "b")
	st := until(t, b, "the dropout", func(v map[string]any) bool { return v["state"] != "matched" && v["state"] != "waiting" })
	if st["state"] != "dropped" || st["reason"] != "left mid-match (round 1 of 2)" || st["code"] != nil {
		t.Errorf("the dropout: %v", st)
	}
	until(t, a, "completion", func(v map[string]any) bool { return v["state"] == "completed" })
	if code, v := b.post("/lobby/arrive", map[string]string{"id": "b"}); code != http.StatusConflict {
		t.Errorf("the dropout again: %d %v", code, v)
	}
	if f := s.Flow(); f.Completed != 1 || f.Dropped != 1 {
		t.Errorf("flow %+v", f)
	}
}

// TestPrescreenRoundTripFromTheHosts: the round trip the prescreen
// judges is the one the game server hosts' probes measured over the
// game's transport, the best of the hosts; a page cannot post one of its
// own, nor probe without its ticket, and the admission rules apply to
// it: a round trip over a condition's target is refused (over_target
// refuse) or kept to the groups without it (restrict).
func TestPrescreenRoundTripFromTheHosts(t *testing.T) {
	ctx := context.Background()
	for _, over := range []string{lobby.OverRefuse, lobby.OverRestrict} {
		n := 0
		s, err := New(Config{
			Lobby: lobby.Config{Study: "online-test", Seats: 2, MaxWait: time.Minute, Secret: []byte("0123456789abcdef"),
				// A target of 1 µs no loopback round trip meets.
				Groups: []lobby.Group{{Name: "near", TargetRTT: []time.Duration{time.Microsecond}}, {Name: "any"}}, Admission: lobby.Admission{OverTarget: over}},
			Alloc:   &Local{Seats: []int{0, 1}, Command: script(0, time.Second), NewCode: func() string { n++; return fmt.Sprintf("C%d", n) }},
			IDParam: "PROLIFIC_PID", Log: slog.New(slog.DiscardHandler),
		})
		if err != nil {
			t.Fatal(err)
		}
		hs := httptest.NewServer(s.Handler())
		defer hs.Close()
		pctx, cancel := context.WithCancel(ctx)
		defer cancel()
		for range 2 {
			if _, err := s.ListenProbe(pctx, "127.0.0.1:0", nil); err != nil {
				t.Fatal(err)
			}
		}
		p := page{t, hs.URL, "p-" + over}
		code, v := p.post("/lobby/arrive", map[string]string{"id": p.id})
		ticket, _ := v["probe"].(string)
		if code != 200 || ticket == "" {
			t.Fatalf("arrive: %d %v, want a probe ticket", code, v)
		}
		if code, v := p.post("/lobby/prescreen", map[string]any{"id": p.id, "fps": 120, "rtt_ms": 1}); code != http.StatusBadRequest {
			t.Errorf("a page's own round trip: %d %v, want it refused", code, v)
		}
		// Measured over each transport: the best of the hosts' kept.
		var best time.Duration
		for _, tr := range []string{"wt", "ws"} {
			rtt, err := (&Participant{Base: hs.URL, ID: p.id, Transport: tr}).Measure(ctx)
			if err != nil {
				t.Fatalf("%s: %v", tr, err)
			}
			if best == 0 || rtt < best {
				best = rtt
			}
		}
		s.mu.Lock()
		kept := s.rtt[p.id]
		s.mu.Unlock()
		if kept != best || len(s.Probes()) != 2 {
			t.Errorf("the lobby kept %v of %d hosts, the hosts told the participant %v at best", kept, len(s.Probes()), best)
		}
		_, v = p.post("/lobby/prescreen", map[string]any{"id": p.id, "fps": 120})
		st, _ := s.lobby.Status(s.now(), p.id)
		switch over {
		case lobby.OverRefuse:
			if v["state"] != "refused" || !strings.Contains(fmt.Sprint(v["reason"]), "over the 0 ms a condition targets") {
				t.Errorf("refuse: %v", v)
			}
		case lobby.OverRestrict:
			if v["state"] != "waiting" || len(st.Eligible) != 1 || st.Eligible[0] != 1 {
				t.Errorf("restrict: %v, eligible %v, want group 1 only", v, st.Eligible)
			}
		}
		// Past the prescreen the ticket measures nothing more.
		if _, err := (&Participant{Base: hs.URL, ID: p.id}).Measure(ctx); err == nil || !strings.Contains(err.Error(), "not at the prescreen") {
			t.Errorf("measuring past the prescreen: %v", err)
		}
		h := s.Probes()[0]
		c, err := transport.Dial(ctx, "wss://"+h.Host, transport.DialOptions{TLS: transport.ClientTLS{CertHash: h.CertHash}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := probe.Measure(ctx, c, ticket); err == nil || !strings.Contains(err.Error(), probe.ErrTicket.Error()) {
			t.Errorf("a probe with the ticket past the prescreen: %v", err)
		}
		c.Close("done")
	}
}
