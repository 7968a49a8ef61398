package online

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lagkit/lagkit/study/lobby"
)

// TestLocalStartsAgain: a match's process that exits before printing
// its links (its port taken between the allocator's check and its own
// listen) is started again on another port, and the session is the
// second process's; one that keeps failing is given up after
// startTries, the slot freed for the next match.
func TestLocalStartsAgain(t *testing.T) {
	dir := t.TempDir()
	tries := filepath.Join(dir, "tries")
	// failFirst fails the first n starts, then prints the seat's link
	// and exits 0.
	failFirst := func(n int) func(context.Context, lobby.Match, map[int]string, []int, int) *exec.Cmd {
		return func(ctx context.Context, m lobby.Match, codes map[int]string, absent []int, port int) *exec.Cmd {
			script := fmt.Sprintf(`echo x >> %s; if [ $(wc -l < %s) -le %d ]; then echo "listen: address in use" >&2; exit 1; fi; echo 'seat 0: https://127.0.0.1:%d/?code=%s'; sleep 0.2`,
				tries, tries, n, port, codes[0])
			return exec.CommandContext(ctx, "sh", "-c", script)
		}
	}
	count := func() int {
		b, _ := os.ReadFile(tries)
		return strings.Count(string(b), "x")
	}
	l := &Local{Seats: []int{0}, Max: 1, Command: failFirst(2), NewCode: func() string { return "ABC234" }, Log: slog.New(slog.DiscardHandler)}
	ctx := context.Background()
	sess, err := l.Start(ctx, lobby.Match{ID: 0, People: []string{"p"}})
	if err != nil {
		t.Fatalf("after two failed starts: %v", err)
	}
	if n := count(); n != 3 || !strings.HasSuffix(sess.Links["p"], "/?code=ABC234") {
		t.Errorf("%d starts, links %v", n, sess.Links)
	}
	<-sess.Done
	if err := sess.Err(); err != nil {
		t.Errorf("the session ended: %v", err)
	}

	os.Remove(tries)
	l.Command = failFirst(startTries)
	if _, err := l.Start(ctx, lobby.Match{ID: 1, People: []string{"q"}}); err == nil || !strings.Contains(err.Error(), "printed 0 of its 1 links") || count() != startTries {
		t.Fatalf("always failing: %v after %d starts", err, count())
	}
	// The slot is free again: the next match starts (Max 1).
	os.Remove(tries)
	l.Command = failFirst(0)
	start := make(chan error, 1)
	go func() {
		_, err := l.Start(ctx, lobby.Match{ID: 2, People: []string{"r"}})
		start <- err
	}()
	select {
	case err := <-start:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the slot of a match that never started was not freed")
	}
}
