package web

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lagkit/lagkit/realtime"
	"github.com/lagkit/lagkit/transport"
)

// helperAddr names the address TestServeHelper serves on, when the test
// binary runs as TestReconnectInBrowser's server.
const helperAddr = "LAGKIT_WEB_SERVE_HELPER"

// TestServeHelper is TestReconnectInBrowser's server, run in a process
// of its own so that the test can kill it: it serves the page and a
// match of metro on the address in $LAGKIT_WEB_SERVE_HELPER (without
// bots, whose arrival would decide the seat a newcomer takes), prints
// "serving BASE_URL" and serves until killed. Without the variable it
// is skipped.
func TestServeHelper(t *testing.T) {
	addr := os.Getenv(helperAddr)
	if addr == "" {
		t.Skip("runs only as TestReconnectInBrowser's server")
	}
	w, err := transport.NewWeb(transport.WebOptions{Addr: addr, Handler: Handler()})
	if err != nil {
		t.Fatal(err)
	}
	h := newHost()
	if _, err := h.Start(realtime.MatchConfig{Map: "metro", Mode: "tdm", Seats: 4}); err != nil {
		t.Fatal(err)
	}
	prepare(t)
	fmt.Printf("serving https://%s\n", w.Addr())
	_ = h.Serve(t.Context(), w)
}

// startHelper starts TestServeHelper on addr and returns it with its
// base URL once it serves.
func startHelper(t *testing.T, ctx context.Context, addr string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestServeHelper$", "-test.count=1", "-test.timeout=10m")
	cmd.Env = append(os.Environ(), helperAddr+"="+addr)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if base, ok := strings.CutPrefix(sc.Text(), "serving "); ok {
			go func() { _, _ = io.Copy(io.Discard, out) }()
			return cmd, base
		}
	}
	t.Fatalf("the server helper on %s ended before serving", addr)
	return nil, ""
}

// reconnectStep is one line browser/reconnect.mjs prints.
type reconnectStep struct {
	Step      string `json:"step"`
	Query     string `json:"query"`
	ID        int    `json:"id"`
	Team      int    `json:"team"`
	Name      string `json:"name"`
	Transport string `json:"transport"`
	LostMs    int    `json:"lostMs"`
	BackMs    int    `json:"backMs"`
	Status    string `json:"status"`
	Net       string `json:"net"`
}

// TestReconnectInBrowser kills the server under a playing page (kill -9,
// a process of its own: TestServeHelper) and starts a new one on the
// same address: within 3 s the page says the connection is lost and
// state().connected is false, and within 10 s of the restart it plays
// again, by itself, in the same seat and team under the same name (a new
// server seats a player by arrival: the page comes back as it came). It
// runs once over WebTransport with the client core in its Web Worker
// and once over WebSocket with the core on the page's thread.
func TestReconnectInBrowser(t *testing.T) {
	node, playwright := browserEnv(t)
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	srv, base := startHelper(t, ctx, "127.0.0.1:0")
	addr := strings.TrimPrefix(base, "https://")
	cmd := nodeScript(ctx, node, playwright, "browser/reconnect.mjs", base, "?name=alice", "?name=bob&transport=ws&worker=0")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var first reconnectStep
	runs := 0
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		var s reconnectStep
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatalf("reconnect.mjs printed %q: %v", sc.Text(), err)
		}
		t.Logf("reconnect.mjs: %s", sc.Text())
		switch s.Step {
		case "connected":
			first = s
			if err := srv.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			_ = srv.Wait()
			fmt.Fprintln(stdin, "killed")
		case "lost":
			if s.LostMs < 0 || s.LostMs > 3000 || !strings.Contains(s.Status, "connection lost") || !strings.Contains(s.Net, "connection lost") {
				t.Errorf("%s: after the kill, connected went false after %d ms, status %q, net graph %q; want within 3 s, saying the connection is lost", s.Query, s.LostMs, s.Status, s.Net)
			}
			time.Sleep(time.Second)
			srv, _ = startHelper(t, ctx, addr)
			fmt.Fprintln(stdin, "restarted")
		case "next":
			_ = srv.Process.Signal(syscall.SIGKILL)
			_ = srv.Wait()
			srv, _ = startHelper(t, ctx, addr)
			fmt.Fprintln(stdin, "fresh")
		case "back":
			runs++
			if s.BackMs < 0 || s.BackMs > 10000 {
				t.Errorf("%s: playing again %d ms after the restart, want within 10 s", s.Query, s.BackMs)
			}
			if s.ID != first.ID || s.Team != first.Team || s.Name != first.Name || s.Transport != first.Transport {
				t.Errorf("%s: back as #%d of team %d named %q over %s, was #%d of team %d named %q over %s", s.Query, s.ID, s.Team, s.Name, s.Transport, first.ID, first.Team, first.Name, first.Transport)
			}
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("reconnect.mjs: %v\n%s", err, stderr.String())
	}
	if stderr.Len() > 0 {
		t.Logf("reconnect.mjs: %s", stderr.String())
	}
	if runs != 2 {
		t.Errorf("%d runs came back, want 2", runs)
	}
}
