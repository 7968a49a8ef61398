package online

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
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

// TestTrustProxy: behind the proxy the lobby trusts, arrivals count by
// the address X-Forwarded-For names, so people behind one proxy are not
// one flood; from anywhere else the header is ignored and the
// connection's address counts.
func TestTrustProxy(t *testing.T) {
	for _, trust := range []bool{true, false} {
		cfg := Config{
			Lobby: lobby.Config{Study: "proxy", Seats: 2, Secret: []byte("0123456789abcdef"), Groups: []lobby.Group{{Name: "A"}},
				JoinBurst: 1, JoinEvery: time.Hour},
			Alloc: &Local{Seats: []int{0, 1}}, Log: slog.New(slog.DiscardHandler),
		}
		if trust {
			cfg.TrustProxy = netip.MustParseAddr("127.0.0.1")
		}
		s, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		hs := httptest.NewServer(s.Handler())
		arrive := func(id, from string) error {
			_, err := (&Participant{Base: hs.URL, ID: id, From: netip.MustParseAddr(from)}).Arrive(context.Background())
			return err
		}
		a, b, c := arrive("a", "10.0.0.1"), arrive("b", "10.0.0.2"), arrive("c", "10.0.0.1")
		hs.Close()
		var flood *AnswerError
		switch {
		case trust && (a != nil || b != nil || !errors.As(c, &flood) || flood.Status != http.StatusTooManyRequests):
			t.Errorf("trusted proxy: %v, %v, then the first address again: %v", a, b, c)
		case !trust && (a != nil || !errors.As(b, &flood) || flood.Status != http.StatusTooManyRequests):
			t.Errorf("no proxy trusted: %v, then another forwarded address: %v", a, b)
		}
	}
}
