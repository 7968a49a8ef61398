package web

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lagkit/lagkit/realtime"
	"github.com/lagkit/lagkit/transport"
)

// helperAddr names the address TestServeHelper serves on, when the test
// binary runs as TestReconnectInBrowser's server; helperBots the number
// of bots its match keeps (default none).
const (
	helperAddr = "LAGKIT_WEB_SERVE_HELPER"
	helperBots = "LAGKIT_WEB_SERVE_BOTS"
)

// TestServeHelper is TestReconnectInBrowser's server, run in a process
// of its own so that the test can kill it: it serves the page and a
// match of metro on the address in $LAGKIT_WEB_SERVE_HELPER, with as
// many bots as $LAGKIT_WEB_SERVE_BOTS says (none without it), prints
// "serving BASE_URL" and serves until killed. Without the address it is
// skipped.
func TestServeHelper(t *testing.T) {
	addr := os.Getenv(helperAddr)
	if addr == "" {
		t.Skip("runs only as TestReconnectInBrowser's server")
	}
	w, err := transport.NewWeb(transport.WebOptions{Addr: addr, Handler: Handler()})
	if err != nil {
		t.Fatal(err)
	}
	bots, _ := strconv.Atoi(os.Getenv(helperBots))
	h := newHost()
	if _, err := h.Start(realtime.MatchConfig{Map: "metro", Mode: "tdm", Seats: 4, Bots: bots}); err != nil {
		t.Fatal(err)
	}
	prepare(t)
	fmt.Printf("serving https://%s\n", w.Addr())
	_ = h.Serve(t.Context(), w)
}

// startHelper starts TestServeHelper on addr and returns it with its
// base URL once it serves; bots is the number of bots its match keeps.
func startHelper(t *testing.T, ctx context.Context, addr string, bots ...int) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestServeHelper$", "-test.count=1", "-test.timeout=10m")
	cmd.Env = append(os.Environ(), helperAddr+"="+addr)
	if len(bots) > 0 {
		cmd.Env = append(cmd.Env, helperBots+"="+strconv.Itoa(bots[0]))
	}
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

// shotMark is a shot in the rewind view's history: the page's
// connection it came on, and its number there.
type shotMark struct {
	Conn     int `json:"conn"`
	ShotTick int `json:"shotTick"`
}

// reconnectStep is one line browser/reconnect.mjs prints.
type reconnectStep struct {
	Step      string     `json:"step"`
	Query     string     `json:"query"`
	ID        int        `json:"id"`
	Team      int        `json:"team"`
	Name      string     `json:"name"`
	Transport string     `json:"transport"`
	LostMs    int        `json:"lostMs"`
	BackMs    int        `json:"backMs"`
	Status    string     `json:"status"`
	Net       string     `json:"net"`
	OldShots  []shotMark `json:"oldShots"`
	Rewind    *struct {
		Conn  int        `json:"conn"`
		Back  int        `json:"back"`
		Shots []shotMark `json:"shots"`
		Last  *struct {
			ShotTick int `json:"shotTick"`
		} `json:"last"`
		Panel string `json:"panel"`
	} `json:"rewind"`
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
	if *imagesDir != "" {
		cmd.Env = append(cmd.Env, "REWIND_SHOT="+filepath.Join(*imagesDir, "browser-rewind-after-reconnect.png"))
	}
	stdin, stdout, stderr := startScript(t, cmd)
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
			checkRewindAfterRestart(t, s)
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

// checkRewindAfterRestart checks the rewind view of a page that fired
// before its server died and again after coming back to the restarted
// one. Shots are numbered by their commands, counted from each
// connection: the new shots must still be the newest (the one shown,
// back 0, is the last of them), every old shot before every new one,
// each connection's in order, and the panel tells the shown shot's
// number. Ordered by number alone, the new shots (numbered from 0 again)
// sorted before the old ones: the panel kept showing an old shot, and a
// full history dropped new shots.
func checkRewindAfterRestart(t *testing.T, s reconnectStep) {
	t.Helper()
	r := s.Rewind
	if r == nil || len(s.OldShots) == 0 || len(r.Shots) == 0 || r.Last == nil {
		t.Errorf("%s: rewind view %+v after %d shots before the restart; want shots on both servers", s.Query, r, len(s.OldShots))
		return
	}
	newShots, newMin, oldMax := 0, math.MaxInt, s.OldShots[len(s.OldShots)-1].ShotTick
	for i, x := range r.Shots {
		if x.Conn == r.Conn {
			newShots++
			newMin = min(newMin, x.ShotTick)
		}
		if i > 0 {
			p := r.Shots[i-1]
			if p.Conn > x.Conn || (p.Conn == x.Conn && p.ShotTick > x.ShotTick) {
				t.Errorf("%s: rewind history out of order at %d: %+v then %+v", s.Query, i, p, x)
			}
		}
	}
	if newMin > oldMax {
		t.Logf("%s: the new shots are numbered from %d, the old ones up to %d: the order by number alone would be right too", s.Query, newMin, oldMax)
	}
	last := r.Shots[len(r.Shots)-1]
	if newShots == 0 || last.Conn != r.Conn || r.Back != 0 || r.Last.ShotTick != last.ShotTick ||
		!strings.Contains(r.Panel, fmt.Sprintf("tick %d ", last.ShotTick)) || strings.Contains(r.Panel, "earlier connection") {
		t.Errorf("%s: rewind view shows tick %d (back %d, panel %q) of %+v, connection %d; want the newest shot of the new connection",
			s.Query, r.Last.ShotTick, r.Back, r.Panel, r.Shots, r.Conn)
	}
}

// TestRejoinWithBotsInBrowser kills the server under two playing pages
// (alice over WebTransport with the core in its Web Worker, bob over
// WebSocket with the core on the page's thread) on metro with three
// bots, two of whom gave them their seats, and starts a new one on the
// same address, whose bots take every seat but one first. Bob comes back
// while alice is off the network, then alice: each comes back to its own
// seat and team, since the page asks for them (wire.Rejoin) and the bot
// sitting in the seat asked for gives it up. By arrival alone each would
// take the seat of the newest bot, which the bots' race to connect
// decides (TestRejoinTakesTheBotSeatAsked in realtime shows the
// difference without the race). Bob's scoreboard names the bots by
// their names.
func TestRejoinWithBotsInBrowser(t *testing.T) {
	node, playwright := browserEnv(t)
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	srv, base := startHelper(t, ctx, "127.0.0.1:0", 3)
	addr := strings.TrimPrefix(base, "https://")
	cmd := nodeScript(ctx, node, playwright, "browser/rejoin.mjs", base, "?name=alice", "?name=bob&transport=ws&worker=0")
	stdin, stdout, stderr := startScript(t, cmd)
	type seat struct {
		ID, Team        int
		Name, Transport string
	}
	var before, after []seat
	var rows []struct {
		ID, Team int
		Name     string
	}
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		var s struct {
			Step  string
			Pages []seat
			Rows  json.RawMessage
		}
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatalf("rejoin.mjs printed %q: %v", sc.Text(), err)
		}
		t.Logf("rejoin.mjs: %s", sc.Text())
		switch s.Step {
		case "connected":
			before = s.Pages
			if err := srv.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			_ = srv.Wait()
			fmt.Fprintln(stdin, "killed")
		case "lost":
			srv, _ = startHelper(t, ctx, addr, 3)
			fmt.Fprintln(stdin, "restarted")
		case "back":
			after = s.Pages
			if err := json.Unmarshal(s.Rows, &rows); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("rejoin.mjs: %v\n%s", err, stderr.String())
	}
	if len(before) != 2 || len(after) != 2 {
		t.Fatalf("seats before %+v, after %+v; want both pages' twice", before, after)
	}
	if before[0].ID == before[1].ID || before[0].Name != "alice" || before[1].Name != "bob" {
		t.Errorf("before: %+v, want alice and bob in two seats", before)
	}
	for i := range before {
		if after[i] != before[i] {
			t.Errorf("page %d came back as %+v, was %+v", i, after[i], before[i])
		}
	}
	bots, bob := 0, false
	for _, r := range rows {
		bots += boolInt(strings.HasPrefix(r.Name, "bot") && r.ID != before[1].ID)
		bob = bob || (r.Name == "bob" && r.ID == before[1].ID)
	}
	if len(rows) != 3 || bots != 2 || !bob {
		t.Errorf("bob's scoreboard with alice away %+v: want bob in his seat and the two bots left, by their names", rows)
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestStarvedPageKeepsItsLinkInBrowser pins a playing page's threads
// busy (browser/starve.mjs) while the server keeps sending: the client
// core's Web Worker for 3.5 s, then the page's own thread for 3.5 s, and
// with ?worker=0 the page's thread that runs the core. A thread that
// does not run hears nothing, but that is the machine's doing, not the
// server's: the page must not call the connection lost (it did after 2 s
// of its worker's silence, and stopped its link to reconnect, giving its
// seat to a bot), and plays on in the same seat, with snapshots coming.
func TestStarvedPageKeepsItsLinkInBrowser(t *testing.T) {
	node, playwright := browserEnv(t)
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	_, base := serveMatch(t, ctx, newHost(), Handler(), realtime.MatchConfig{Map: "metro", Mode: "tdm", Seats: 4, Bots: 2})
	cmd := nodeScript(ctx, node, playwright, "browser/starve.mjs", base, "3500", "?name=alice", "?name=bob&worker=0")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("starve.mjs: %v\n%s\n%s", err, out, stderr.String())
	}
	t.Logf("starve.mjs: %s\n%s", out, stderr.String())
	type pin struct {
		Thread                          string
		PinnedMs                        int
		LostSeen                        bool
		SnapshotsBefore, SnapshotsAfter int
	}
	type starved struct {
		Query              string
		Pins               []pin
		ID, IDAfter        int
		Attempts, Rejoined int
		Status             string
	}
	var runs []starved
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var r starved
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("starve.mjs printed %q: %v", line, err)
		}
		runs = append(runs, r)
	}
	if len(runs) != 2 || len(runs[0].Pins) != 2 || len(runs[1].Pins) != 1 {
		t.Fatalf("runs %+v; want alice's two pins and bob's one", runs)
	}
	for _, r := range runs {
		for _, p := range r.Pins {
			if p.PinnedMs < 3500 {
				t.Errorf("%s: the %s was pinned for %d ms, want 3500", r.Query, p.Thread, p.PinnedMs)
			}
			if p.LostSeen {
				t.Errorf("%s: after its %s was pinned busy for %d ms, the page called the connection lost; want it playing on", r.Query, p.Thread, p.PinnedMs)
			}
			if p.SnapshotsAfter <= p.SnapshotsBefore {
				t.Errorf("%s: snapshots %d before pinning the %s, %d after; want more coming", r.Query, p.SnapshotsBefore, p.Thread, p.SnapshotsAfter)
			}
		}
		if r.Attempts != 0 || r.Rejoined != 0 || r.IDAfter != r.ID || r.Status != "" {
			t.Errorf("%s: %d reconnect attempts, %d rejoins, seat #%d then #%d, status %q; want none, the same seat, no status", r.Query, r.Attempts, r.Rejoined, r.ID, r.IDAfter, r.Status)
		}
	}
}

// TestShutdownInBrowser ends the match under a playing page with a
// reason, as a graceful shutdown does: the page's status line gives the
// server's reason (it said "connection lost", as if the server had
// vanished, and on a loaded machine the goodbye was discarded unread as
// the session closed under the page), and the wait before each attempt
// to connect again counts down (it stood at "reconnecting in 4.0 s" for
// the four seconds).
func TestShutdownInBrowser(t *testing.T) {
	node, playwright := browserEnv(t)
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	h := newHost()
	m, base := serveMatch(t, ctx, h, Handler(), realtime.MatchConfig{Map: "metro", Mode: "tdm", Seats: 2})
	const reason = "down for maintenance"
	cmd := nodeScript(ctx, node, playwright, "browser/shutdown.mjs", base, "?name=alice")
	stdin, stdout, stderr := startScript(t, cmd)
	var statuses []string
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		var s struct {
			Step     string
			Statuses []string
			Hidden   int
		}
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatalf("shutdown.mjs printed %q: %v", sc.Text(), err)
		}
		switch s.Step {
		case "connected":
			if err := m.End(ctx, reason); err != nil {
				t.Fatal(err)
			}
			fmt.Fprintln(stdin, "shut")
		case "done":
			statuses = s.Statuses
			if s.Hidden > 0 {
				t.Errorf("%d of %d statuses were covered where they showed (the open menu); want each on top", s.Hidden, len(s.Statuses))
			}
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("shutdown.mjs: %v\n%s", err, stderr.String())
	}
	t.Logf("statuses: %q", statuses)
	said := false
	var countdown []float64
	for _, s := range statuses {
		said = said || strings.Contains(s, reason)
		// The server waits for the page to close its end after the
		// goodbye, sending it again meanwhile, so even a loaded page
		// reads the reason before its link closes: nothing calls the
		// connection lost, or gives the page's own close as the reason.
		if strings.Contains(s, "connection lost") || strings.Contains(s, "WebTransport") || strings.Contains(s, "session ended by the server") {
			t.Errorf("status %q: want the server's reason, not a lost or closed link", s)
		}
		if _, rest, ok := strings.Cut(s, "reconnecting in "); ok {
			var v float64
			if _, err := fmt.Sscanf(rest, "%f s", &v); err == nil {
				countdown = append(countdown, v)
			}
		}
	}
	if !said {
		t.Errorf("statuses %q: none gives the server's reason %q", statuses, reason)
	}
	// Read every 50 ms on a loaded machine, a countdown of 0.5, 1 and 2 s
	// shows several values; each attempt's count goes down.
	downs := 0
	for i := 1; i < len(countdown); i++ {
		if countdown[i] < countdown[i-1] {
			downs++
		}
	}
	if downs < 3 {
		t.Errorf("reconnect waits shown %v: want them counting down", countdown)
	}
}
