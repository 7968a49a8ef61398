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
