package main

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lagkit/lagkit/internal/walltest"
	"github.com/lagkit/lagkit/record"
	"github.com/lagkit/lagkit/store"
)

// lockedWriter is an output several goroutines write and a test reads.
type lockedWriter struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedWriter) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestStudyRunLive serves a one-round study with a person's seat (code
// zed) and two bots: run prints the admin URL with its token and the
// seat's join link, plays the round at once with --start (nobody joins
// zed's seat), and stores the round with its bots' shots and paths.
func TestStudyRunLive(t *testing.T) {
	walltest.Lock(t)
	tmp := t.TempDir()
	sched := filepath.Join(tmp, "one.toml")
	err := os.WriteFile(sched, []byte(`name = "one"
[[seat]]
code = "zed"
[[seat]]
bot = true
count = 2
[[technique]]
name = "tlc"
[[round]]
map = "arena"
mode = "ffa"
duration = "3s"
[[question]]
id = "fair"
text = "Fair?"
kind = "fairness"
`), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(tmp, "study.db")
	var out, errOut lockedWriter
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	code := execute(ctx, []string{"study", "run", sched, "--db", db, "--start", "--listen", "127.0.0.1:0", "--log-format", "json"}, &out, &errOut)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	o := out.String()
	if !regexp.MustCompile(`study one: admin https://127\.0\.0\.1:\d+/admin#token=[0-9a-f]{32}\n`).MatchString(o) ||
		!regexp.MustCompile(`seat 0: https://127\.0\.0\.1:\d+/\?code=zed\n`).MatchString(o) || !strings.Contains(o, "study one: over;") {
		t.Fatalf("output:\n%s", o)
	}
	d, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	st, err := d.FindStudy(context.Background(), "one")
	if err != nil {
		t.Fatal(err)
	}
	rounds, _ := store.All[record.Round](context.Background(), d, st.ID)
	paths, _ := store.All[record.Path](context.Background(), d, st.ID)
	if len(rounds) != 1 || rounds[0].Ended.IsZero() || len(paths) < 2*3*10 || st.Simulated {
		t.Fatalf("stored %d rounds (%+v), %d paths, simulated %v", len(rounds), rounds, len(paths), st.Simulated)
	}
}

// TestStudyRunLiveStopped: a live study stopped by a signal in the
// middle of a round exits with status 3, not 0; its log says the study
// stopped and never that the round is over; the database keeps the
// start and the stop in its event log and the seats' disconnects with
// the stop as their reason.
func TestStudyRunLiveStopped(t *testing.T) {
	walltest.Lock(t)
	tmp := t.TempDir()
	sched := filepath.Join(tmp, "stop.toml")
	err := os.WriteFile(sched, []byte(`name = "stop"
[[seat]]
bot = true
count = 2
[[technique]]
name = "tlc"
[[round]]
map = "arena"
mode = "ffa"
duration = "1m"
`), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(tmp, "study.db")
	var out, errOut lockedWriter
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	done := make(chan int, 1)
	go func() {
		done <- execute(ctx, []string{"study", "run", sched, "--db", db, "--start", "--listen", "127.0.0.1:0", "--udp", "", "--log-format", "json"}, &out, &errOut)
	}()
	for !strings.Contains(errOut.String(), `"phase":"playing"`) {
		select {
		case code := <-done:
			t.Fatalf("exit %d before the round: %s", code, errOut.String())
		case <-time.After(50 * time.Millisecond):
		}
	}
	time.Sleep(time.Second)
	cancel() // as a SIGINT would
	if code := <-done; code != exitStopped {
		t.Fatalf("exit %d, want %d: %s", code, exitStopped, errOut.String())
	}
	logs := errOut.String()
	if strings.Contains(logs, "round over") || !strings.Contains(logs, "study stopped") ||
		!strings.Contains(logs, "lagkit: study stop (session 1 of study 1 in "+db+") stopped before its end: run the same command again to resume it (exit status 3)") {
		t.Errorf("log:\n%s", logs)
	}
	if !strings.Contains(out.String(), "study stop stopped; run the same command again to resume it") {
		t.Errorf("output:\n%s", out.String())
	}
	d, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	events, _ := store.All[record.Event](context.Background(), d, 1)
	if len(events) != 2 || events[0].Kind != record.EventStart || events[1].Kind != record.EventStop {
		t.Errorf("events %+v, want the start and the stop", events)
	}
	sessions, _ := store.All[record.Session](context.Background(), d, 1)
	gone := 0
	for _, s := range sessions {
		if s.Kind == record.Disconnect {
			gone++
			if s.Reason != "study stopped" || s.Transport != "pipe" {
				t.Errorf("disconnect %+v", s)
			}
		}
	}
	if gone != 2 {
		t.Errorf("%d disconnects stored, want both seats'", gone)
	}
}
