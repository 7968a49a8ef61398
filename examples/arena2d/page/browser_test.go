package page_test

import (
	"context"
	"encoding/json"
	"flag"
	"io"
	"log/slog"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lagkit/lagkit/examples/arena2d/arena"
	"github.com/lagkit/lagkit/examples/arena2d/page"
	"github.com/lagkit/lagkit/realtime"
	"github.com/lagkit/lagkit/testlock"
	"github.com/prometheus/client_golang/prometheus"
)

var shotPath = flag.String("shot", "", "save TestPlayInBrowser's screenshot here (default: in the test's temporary directory)")

// state is the client's State as arena2d.state() gives it.
type state struct {
	Phase         string     `json:"phase"`
	ID            int        `json:"id"`
	URL           string     `json:"url"`
	Snapshots     int        `json:"snapshots"`
	Predicting    bool       `json:"predicting"`
	Predictions   int        `json:"predictions"`
	PredErrorMaxM float64    `json:"pred_error_max_m"`
	ValueErrors   int        `json:"value_errors"`
	Pos           [2]float64 `json:"pos"`
	Stamina       int        `json:"stamina"`
	Health        int        `json:"health"`
	Crate         bool       `json:"crate"`
}

// browserEnv returns node's path and the file: URL of playwright-core's
// index.mjs (lagkit's report/browser/install.sh installs both, and
// Debian's chromium). Where one is missing the test is skipped, unless CI
// is set: CI installs them, so there it fails. playwright-core is found
// in the folder of the lagkit module this one builds against (go list
// -m: the replace's target or the module cache), not by a path relative
// to this folder, so a copy of arena2d outside lagkit's tree finds it
// too.
func browserEnv(t *testing.T) (node, playwright string) {
	t.Helper()
	missing := func(what string) {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is missing under CI; run report/browser/install.sh", what)
		}
		t.Skipf("%s is missing; run report/browser/install.sh to enable this test", what)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("node")
	}
	if _, err := os.Stat("/usr/bin/chromium"); err != nil {
		missing("Debian's chromium")
	}
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/lagkit/lagkit").Output()
	if err != nil {
		t.Fatalf("lagkit's module folder: %v", err)
	}
	abs := filepath.Join(strings.TrimSpace(string(out)), "report", "browser", "node_modules", "playwright-core", "index.mjs")
	if _, err := os.Stat(abs); err != nil {
		missing("playwright-core")
	}
	return node, (&url.URL{Scheme: "file", Path: abs}).String()
}

// TestPlayInBrowser builds the arena2d client to WebAssembly, serves it
// beside a match of the arena (page.Listen: the page and WebSocket) and
// plays it in headless Chromium: the client joins (the server sees its
// seat, over WebSocket), receives snapshots, sees the crate, and
// predicts its own player, position and stamina, with no error on the
// loopback link, through a run of a metre to the right (holding D).
func TestPlayInBrowser(t *testing.T) {
	node, playwright := browserEnv(t)
	dir := t.TempDir()
	if err := page.Build("..", dir); err != nil {
		t.Fatal(err)
	}
	testlock.Lock(t) // a headless browser starves a live match
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	web, err := page.Listen("127.0.0.1:0", dir)
	if err != nil {
		t.Fatal(err)
	}
	defer web.Close()
	host := realtime.NewHost(slog.New(slog.NewTextHandler(io.Discard, nil)), realtime.NewMetrics(prometheus.NewRegistry()))
	// A headless Chromium drawing WebGL in software on a loaded machine
	// runs the page's one thread, and so the WebAssembly client's
	// handshake, seconds late: more than the 2 s a host waits for a new
	// connection's Connect by default.
	limits := realtime.DefaultHandshakeLimits
	limits.Wait = 30 * time.Second
	if err := host.SetHandshakeLimits(limits); err != nil {
		t.Fatal(err)
	}
	m, err := host.Start(arena.MatchConfig(4, arena.NewReferee()))
	if err != nil {
		t.Fatal(err)
	}
	defer host.Shutdown(context.Background(), "test over")
	go host.Serve(ctx, web)

	shot := *shotPath
	if shot == "" {
		shot = filepath.Join(t.TempDir(), "arena2d-browser.png")
	}
	cmd := exec.CommandContext(ctx, node, "browser.mjs", web.URL(), shot)
	cmd.Env = append(os.Environ(), "PLAYWRIGHT_CORE="+playwright)
	cmd.WaitDelay = 10 * time.Second
	cmd.Stderr = os.Stderr
	// The players the server sees while the page plays.
	seen := make(chan []realtime.Player, 1)
	played := make(chan struct{})
	go func() {
		var players []realtime.Player
		defer func() { seen <- players }()
		for {
			if info, err := m.Info(); err == nil && len(info.Players) > 0 {
				players = info.Players
			}
			select {
			case <-played:
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
	}()
	out, err := cmd.Output()
	close(played)
	players := <-seen
	if err != nil {
		t.Fatalf("browser.mjs: %v\n%s", err, out)
	}
	var run struct {
		Before, After, Last *state
		Problems, Log       []string
	}
	if err := json.Unmarshal(out, &run); err != nil {
		t.Fatalf("browser.mjs printed %q: %v", out, err)
	}
	t.Logf("before %+v", run.Before)
	t.Logf("after %+v", run.After)
	if len(run.Problems) != 0 || run.Before == nil || run.After == nil {
		t.Fatalf("the page: %q\nits client's last state: %+v\nits console: %q", run.Problems, run.Last, run.Log)
	}
	b, a := *run.Before, *run.After
	if len(players) != 1 || players[0].Name != "browser" || players[0].Seat != a.ID || !strings.HasPrefix(players[0].Peer, "ws:") {
		t.Errorf("the server saw players %+v, want the browser in seat %d over WebSocket", players, a.ID)
	}
	if a.Phase != "connected" || a.URL != "ws://"+web.Addr() || a.Snapshots <= b.Snapshots || !a.Crate {
		t.Errorf("the client says %+v, want connected at ws://%s, snapshots coming, the crate drawn", a, web.Addr())
	}
	if !a.Predicting || a.Predictions <= b.Predictions || a.PredErrorMaxM != 0 || a.ValueErrors != 0 {
		t.Errorf("%d predictions checked, the largest error %v m, %d with stamina wrong; want more than %d, none wrong",
			a.Predictions, a.PredErrorMaxM, a.ValueErrors, b.Predictions)
	}
	if moved := a.Pos[0] - b.Pos[0]; moved < 1 || a.Stamina <= 0 || a.Health <= 0 {
		t.Errorf("holding D moved the player %.2f m to the right (want a metre), stamina %d, health %d", moved, a.Stamina, a.Health)
	}
	if st, err := os.Stat(shot); err != nil || st.Size() < 5000 {
		t.Errorf("screenshot %s: %v", shot, err)
	}
}
