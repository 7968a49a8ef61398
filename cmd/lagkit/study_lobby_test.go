package main

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/lagkit/lagkit/record"
	"github.com/lagkit/lagkit/store"
	"github.com/lagkit/lagkit/study/online"
	"github.com/lagkit/lagkit/web"
)

const lobbySchedule = `name = "lobby-test"
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
duration = "3s"
[consent]
text = "I agree to play."
[online]
max_wait = "1s"
`

// TestStudyLobby: lagkit study lobby seats an arriving participant
// through arrival, the consent (refused a prescreen before it), the
// round trip's measurement by the probe on --game-host and the
// prescreen; after max_wait a match forms with one person and
// lagkit study run serves it as a process of its own, the person's seat
// given its code and the empty one played by a bot; the participant's
// link names that code (a reload while matched gets it again), the
// session's end completes them with a code the lobby verifies, the same
// id arriving after that is refused, and
// the flow printed at the stop counts them. The study database holds
// the match's session with the person's code and the absent seat as a
// bot's, and the person's consent given in the lobby: the seat's page
// on the game server does not ask it again.
func TestStudyLobby(t *testing.T) {
	tmp := t.TempDir()
	sched := filepath.Join(tmp, "lobby.toml")
	if err := os.WriteFile(sched, []byte(lobbySchedule), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(tmp, "study.db")
	// The match's process is this test binary run as the command.
	t.Setenv("LAGKIT_AS_COMMAND", "1")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errOut lockedWriter
	done := make(chan int, 1)
	go func() {
		done <- execute(ctx, []string{"study", "lobby", sched, "--listen", "127.0.0.1:0", "--db", db,
			"--secret-file", filepath.Join(tmp, "secret"), "--servers", "1", "--tick", "50ms", "--log-format", "json"}, &out, &errOut)
	}()
	link := regexp.MustCompile(`lobby (http://[^/]+)/\?PROLIFIC_PID=\{\{%PROLIFIC_PID%\}\}&STUDY_ID=\{\{%STUDY_ID%\}\}&SESSION_ID=\{\{%SESSION_ID%\}\}`)
	var base string
	for base == "" {
		if m := link.FindStringSubmatch(out.String()); m != nil {
			base = m[1]
			break
		}
		select {
		case code := <-done:
			t.Fatalf("exit %d before the lobby listened: %s%s", code, out.String(), errOut.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	wait, stop := context.WithTimeout(ctx, 3*time.Minute)
	defer stop()
	p := &online.Participant{Base: base, ID: "p-1", Study: "s1", Session: "x1"}
	if _, err := p.Arrive(wait); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Measure(wait); err != nil {
		t.Fatal(err)
	}
	var early *online.AnswerError
	if _, err := p.Prescreen(wait, online.Screen{FPS: 120, RefreshHz: 60, PointerLock: true}); !errors.As(err, &early) || !strings.Contains(early.Msg, "consent comes first") {
		t.Fatalf("a prescreen before the consent: %v", err)
	}
	if st, err := p.Consent(wait); err != nil || !st.Consented {
		t.Fatalf("consent: %+v, %v", st, err)
	}
	if _, err := p.Prescreen(wait, online.Screen{FPS: 120, RefreshHz: 60, PointerLock: true}); err != nil {
		t.Fatal(err)
	}
	st, err := p.Until(wait, 50*time.Millisecond, func(s online.Status) bool { return s.Join != "" || s.State == "dropped" })
	if err != nil || st.Join == "" {
		t.Fatalf("%+v, %v\n%s%s", st, err, out.String(), errOut.String())
	}
	code := regexp.MustCompile(`^https://127\.0\.0\.1:\d+/\?code=([A-Z0-9]{6})$`).FindStringSubmatch(st.Join)
	if code == nil {
		t.Fatalf("join link %q", st.Join)
	}
	// The seat's page on the game server asks no consent again.
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}, Timeout: 10 * time.Second}
	res, err := hc.Get(strings.Replace(st.Join, "/?code=", web.StudyStatusPath+"?code=", 1))
	if err != nil {
		t.Fatal(err)
	}
	var seat web.StudyStatus
	err = json.NewDecoder(res.Body).Decode(&seat)
	res.Body.Close()
	if err != nil || seat.Consent {
		t.Errorf("the seat's study status %+v, %v: want no consent asked", seat, err)
	}
	// A reload while matched brings the page back to its seat's link.
	if back, err := (&online.Participant{Base: base, ID: "p-1"}).Arrive(wait); err != nil || back.Join != st.Join {
		t.Errorf("p-1 arriving again while matched: %+v, %v", back, err)
	}
	st, err = p.Until(wait, 100*time.Millisecond, func(s online.Status) bool { return s.State != "matched" })
	if err != nil || st.State != "completed" || st.Code == "" {
		t.Fatalf("after the match: %+v, %v\n%s%s", st, err, out.String(), errOut.String())
	}
	if ok, err := p.Verify(wait, st.Code); !ok || err != nil {
		t.Errorf("its completion code %s: valid %v, %v", st.Code, ok, err)
	}
	if ok, _ := (&online.Participant{Base: base, ID: "p-2"}).Verify(wait, st.Code); ok {
		t.Errorf("another id's completion with p-1's code was valid")
	}
	var refused *online.AnswerError
	if _, err := p.Arrive(wait); !errors.As(err, &refused) || refused.Status != http.StatusConflict {
		t.Errorf("p-1 arriving again after completing: %v", err)
	}
	cancel() // as a SIGINT would
	if c := <-done; c != 0 {
		t.Fatalf("exit %d: %s%s", c, out.String(), errOut.String())
	}
	if !strings.Contains(out.String(), "match 0: group 0, 1 people, bots in 1 of the people's seats") ||
		!strings.Contains(out.String(), "flow: arrived 1, consented 1, admitted 1, refused 0 (0 timed out at the prescreen), matched 1, requeued 0 after a lost game server, completed 1 (0 with the game server lost), dropped 0") {
		t.Errorf("output:\n%s", out.String())
	}

	sdb, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer sdb.Close()
	rows, err := sdb.Studies(context.Background())
	if err != nil || len(rows) != 1 || rows[0].Name != "lobby-test" {
		t.Fatalf("studies %+v, %v", rows, err)
	}
	seats := map[int]record.Participant{}
	if err := store.Each(context.Background(), sdb, rows[0].ID, func(r record.Participant) error { seats[r.Seat] = r; return nil }); err != nil {
		t.Fatal(err)
	}
	if s := seats[0]; s.Bot || s.Code != code[1] {
		t.Errorf("seat 0 recorded %+v, the link's code %s", s, code[1])
	}
	if s := seats[1]; !s.Bot || s.Code != "" {
		t.Errorf("the absent seat recorded %+v", s)
	}
	var consents []int
	if err := store.Each(context.Background(), sdb, rows[0].ID, func(r record.Client) error {
		if r.Consented {
			consents = append(consents, r.Seat)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(consents) != 1 || consents[0] != 0 {
		t.Errorf("consents recorded for seats %v, want seat 0's from the lobby", consents)
	}
	// The arrival keeps the platform's study and session ids of the
	// link, beside its participant id.
	evs, err := sdb.LobbyEvents(context.Background(), rows[0].Set)
	if err != nil || len(evs) == 0 || evs[0].Kind != "arrived" || evs[0].Participant != "p-1" || evs[0].LinkStudy != "s1" || evs[0].LinkSession != "x1" {
		t.Errorf("lobby events %+v, %v: want p-1's arrival from study s1, session x1 first", evs, err)
	}
	for _, e := range evs[1:] {
		if e.LinkStudy != "" || e.LinkSession != "" {
			t.Errorf("event %+v names the link's ids: only the arrival does", e)
		}
	}
}

// TestStudyLobbySeatsNoOne: a lobby stopped before it seated anyone
// leaves no empty study behind in the database.
func TestStudyLobbySeatsNoOne(t *testing.T) {
	tmp := t.TempDir()
	sched := filepath.Join(tmp, "lobby.toml")
	if err := os.WriteFile(sched, []byte(lobbySchedule), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(tmp, "study.db")
	ctx, cancel := context.WithCancel(context.Background())
	var out, errOut lockedWriter
	done := make(chan int, 1)
	go func() {
		done <- execute(ctx, []string{"study", "lobby", sched, "--listen", "127.0.0.1:0", "--db", db,
			"--secret-file", filepath.Join(tmp, "secret"), "--log-format", "json"}, &out, &errOut)
	}()
	for !strings.Contains(out.String(), "lobby http://") {
		select {
		case code := <-done:
			t.Fatalf("exit %d: %s%s", code, out.String(), errOut.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	if !strings.Contains(out.String(), "new study 1") {
		t.Fatalf("output:\n%s", out.String())
	}
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	sdb, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer sdb.Close()
	if sets, err := sdb.StudySets(context.Background()); err != nil || len(sets) != 0 {
		t.Errorf("studies left: %d, %v", len(sets), err)
	}
}
