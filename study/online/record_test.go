package online

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lagkit/lagkit/study/lobby"
)

// lockedBuffer is a log's writer shared between goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestLobbyServiceRecords: the lobby hands every participant event to
// its Record once, in order, the events of a match that ends after the
// lobby stopped among them (Flush), an arrival with the study and
// session ids of its link; while Record fails (a database down) the
// events are logged, kept and handed again with the next, and the flow
// in memory counts them all the same.
func TestLobbyServiceRecords(t *testing.T) {
	var mu sync.Mutex
	var stored []lobby.Event
	failing := true
	calls := 0
	var log lockedBuffer
	n := 0
	s, err := New(Config{
		Lobby: lobby.Config{Study: "record-test", Seats: 1, Secret: []byte("0123456789abcdef"),
			Groups: []lobby.Group{{Name: "A"}}, Admission: lobby.Admission{MinFPS: 60}},
		// The session outlives the lobby: its end comes after the stop.
		Alloc:   &Local{Seats: []int{0}, Command: script(0, 1500*time.Millisecond), NewCode: func() string { n++; return fmt.Sprintf("C%d", n) }},
		IDParam: "PROLIFIC_PID", StudyParam: "STUDY_ID", SessionParam: "SESSION_ID",
		Log: slog.New(slog.NewTextHandler(&log, nil)),
		Record: func(ctx context.Context, start time.Time, evs []lobby.Event) error {
			mu.Lock()
			defer mu.Unlock()
			calls++
			if failing {
				return errors.New("database is down")
			}
			stored = append(stored, evs...)
			return nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	listenProbe(t, s)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx, ln, 20*time.Millisecond) }()
	base := "http://" + ln.Addr().String()

	slow := page{t, base, "slow"}
	slow.post("/lobby/arrive", map[string]string{"id": "slow"})
	slow.measure(context.Background())
	slow.post("/lobby/prescreen", map[string]any{"id": "slow", "fps": 20})
	until(t, slow, "refused", func(v map[string]any) bool { return v["state"] == "refused" })
	for !strings.Contains(log.String(), "participant event not stored yet") {
		time.Sleep(20 * time.Millisecond)
	}
	mu.Lock()
	failing = false
	mu.Unlock()

	p := page{t, base, "p1"}
	p.post("/lobby/arrive", map[string]string{"id": "p1", "study": "S1", "session": "X1"})
	p.measure(context.Background())
	p.post("/lobby/prescreen", map[string]any{"id": "p1", "fps": 120})
	until(t, p, "a join link", func(v map[string]any) bool { return v["join"] != nil })
	stop()
	if err := <-served; err != nil {
		t.Fatal(err)
	}
	// The stopped lobby's match is stopped with it: its session ends,
	// and the participant's drop is an event after the last Advance.
	if err := s.Drain(context.Background()); err != nil {
		t.Fatal(err)
	}
	if left := s.Flush(context.Background()); left != 0 {
		t.Fatalf("%d events not stored", left)
	}
	all := s.Events()
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(stored, all) {
		t.Errorf("stored %+v\nwant the lobby's %+v", stored, all)
	}
	kinds := make([]string, len(stored))
	for i, e := range stored {
		kinds[i] = e.Participant + " " + e.Kind
	}
	if want := []string{"slow arrived", "slow refused", "p1 arrived", "p1 admitted", "p1 matched"}; len(kinds) != 6 || !slices.Equal(kinds[:5], want) ||
		(kinds[5] != "p1 dropped" && kinds[5] != "p1 completed") {
		t.Errorf("events %q", kinds)
	}
	// p1's arrival names the platform's study and session ids its link
	// carried; slow's link carried none.
	for _, e := range stored {
		want := [2]string{}
		if e.Participant == "p1" && e.Kind == "arrived" {
			want = [2]string{"S1", "X1"}
		}
		if got := [2]string{e.LinkStudy, e.LinkSession}; got != want {
			t.Errorf("%s %s: link ids %q, want %q", e.Participant, e.Kind, got, want)
		}
	}
	if f := s.Flow(); f.Arrived != 2 || f.Refused != 1 || f.Completed+f.Dropped != 1 {
		t.Errorf("flow %+v", f)
	}
	if calls < 2 {
		t.Errorf("Record called %d times", calls)
	}
}

// TestLobbyServiceConsent: a lobby with a consent text admits no one to
// the prescreen before they agreed to it; the agreement is an event of
// the flow, and the status says it was given.
func TestLobbyServiceConsent(t *testing.T) {
	s, err := New(Config{
		Lobby:   lobby.Config{Study: "consent-test", Seats: 2, Secret: []byte("0123456789abcdef"), Groups: []lobby.Group{{Name: "A"}}},
		Alloc:   &Local{Seats: []int{0, 1}, Command: script(0, time.Second), NewCode: func() string { return "C" }},
		Consent: "You will play a game.", Agree: "I agree",
		IDParam: "PROLIFIC_PID", StudyParam: "STUDY_ID", SessionParam: "SESSION_ID", Log: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	listenProbe(t, s)
	hs := httptest.NewServer(s.Handler())
	defer hs.Close()
	p := page{t, hs.URL, "p1"}
	if code, v := p.post("/lobby/consent", map[string]string{"id": "p1"}); code != http.StatusNotFound {
		t.Errorf("consent before arriving: %d %v", code, v)
	}
	if _, v := p.post("/lobby/arrive", map[string]string{"id": "p1"}); v["consented"] != false {
		t.Errorf("arrived: %v", v)
	}
	p.measure(context.Background())
	if code, v := p.post("/lobby/prescreen", map[string]any{"id": "p1", "fps": 120}); code != http.StatusConflict || !strings.Contains(fmt.Sprint(v["error"]), "the consent comes first") {
		t.Errorf("a prescreen before the consent: %d %v", code, v)
	}
	if code, v := p.post("/lobby/consent", map[string]string{"id": "p1"}); code != 200 || v["consented"] != true || v["state"] != "arrived" {
		t.Errorf("consent: %d %v", code, v)
	}
	if code, v := p.post("/lobby/prescreen", map[string]any{"id": "p1", "fps": 120}); code != 200 || v["state"] != "waiting" {
		t.Errorf("the prescreen after the consent: %d %v", code, v)
	}
	if code, _ := p.post("/lobby/consent", map[string]string{"id": "p1"}); code != 200 {
		t.Errorf("agreeing again: %d", code)
	}
	evs := s.lobby.Pending()
	var kinds []string
	for _, e := range evs {
		kinds = append(kinds, e.Kind)
	}
	if f := s.Flow(); f.Consented != 1 || !slices.Equal(kinds, []string{"arrived", "consented", "admitted"}) {
		t.Errorf("flow %+v, events %q", f, kinds)
	}
}

// TestLobbyServiceRestores: a lobby told of an earlier lobby's events
// answers its participants as their part ended (409, with the status:
// the code and the completion URL again, the dropout's code when the
// study gives one) and records, with its first Advance, the drop of one
// who was in a match when the earlier lobby stopped; a match's session,
// found once it ended (Config.FindSession, told the match's codes), is in
// the match's events stored after.
func TestLobbyServiceRestores(t *testing.T) {
	var mu sync.Mutex
	var stored []lobby.Event
	var asked []map[string]string
	n := 0
	s, err := New(Config{
		Lobby: lobby.Config{Study: "restore-test", Seats: 1, Secret: []byte("0123456789abcdef"), DropoutCode: true,
			Groups: []lobby.Group{{Name: "A"}}},
		Alloc:   &Local{Seats: []int{0}, Command: script(0, 300*time.Millisecond), NewCode: func() string { n++; return fmt.Sprintf("C%d", n) }},
		IDParam: "PROLIFIC_PID", StudyParam: "STUDY_ID", SessionParam: "SESSION_ID",
		CompletionURL: "https://platform.example/complete?cc={code}", Log: slog.New(slog.DiscardHandler),
		Record: func(ctx context.Context, start time.Time, evs []lobby.Event) error {
			mu.Lock()
			defer mu.Unlock()
			stored = append(stored, evs...)
			return nil
		},
		FindSession: func(ctx context.Context, start time.Time, m lobby.Match, sess *Session) (int64, error) {
			mu.Lock()
			defer mu.Unlock()
			asked = append(asked, sess.Codes)
			return 77, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	restored, err := s.Restore([]lobby.Event{
		{Participant: "done", Kind: "arrived", Match: -1}, {Participant: "done", Kind: "admitted", Match: -1},
		{Participant: "in", Kind: "arrived", Match: -1}, {Participant: "in", Kind: "admitted", Match: -1},
		{Participant: "done", Kind: "matched", Match: 0, Session: 5}, {Participant: "in", Kind: "matched", Match: 1},
		{Participant: "done", Kind: "completed", Match: 0, Session: 5},
	})
	if restored != 2 || err != nil {
		t.Fatalf("restored %d, %v", restored, err)
	}
	listenProbe(t, s)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx, ln, 20*time.Millisecond) }()
	base := "http://" + ln.Addr().String()
	for _, c := range []struct{ id, state, reason string }{{"done", "completed", ""}, {"in", "dropped", lobby.StoppedInMatch}} {
		code, v := page{t, base, c.id}.post("/lobby/arrive", map[string]string{"id": c.id})
		s.mu.Lock()
		want, _ := s.lobby.Complete(c.id)
		s.mu.Unlock()
		reason, _ := v["reason"].(string)
		if code != http.StatusConflict || !strings.Contains(fmt.Sprint(v["error"]), "already taken part") || v["state"] != c.state ||
			reason != c.reason || v["code"] != want || v["redirect"] != "https://platform.example/complete?cc="+want {
			t.Errorf("%s arriving again: %d %v; want 409 %s, code %s", c.id, code, v, c.state, want)
		}
	}
	p := page{t, base, "p1"}
	p.post("/lobby/arrive", map[string]string{"id": "p1", "study": "S1", "session": "X1"})
	p.measure(ctx)
	p.post("/lobby/prescreen", map[string]any{"id": "p1", "fps": 120})
	until(t, p, "completion", func(v map[string]any) bool { return v["state"] == "completed" })
	stop()
	if err := <-served; err != nil {
		t.Fatal(err)
	}
	s.Flush(context.Background())
	mu.Lock()
	defer mu.Unlock()
	var got []string
	for _, e := range stored {
		got = append(got, fmt.Sprintf("%s %s m%d s%d", e.Participant, e.Kind, e.Match, e.Session))
	}
	want := []string{"in dropped m-1 s0", "p1 arrived m-1 s0", "p1 admitted m-1 s0", "p1 matched m0 s0", "p1 completed m0 s77"}
	if !slices.Equal(got, want) {
		t.Errorf("stored\n%q, want\n%q", got, want)
	}
	if len(asked) != 1 || len(asked[0]) != 1 || asked[0]["p1"] != "C1" {
		t.Errorf("FindSession asked with codes %v, want p1's C1 once", asked)
	}
}
