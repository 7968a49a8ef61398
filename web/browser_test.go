package web

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lagkit/lagkit/internal/walltest"
	"github.com/lagkit/lagkit/realtime"
	"github.com/lagkit/lagkit/token"
	"github.com/lagkit/lagkit/transport"
)

// run is what browser/play.mjs reports of one page load.
type run struct {
	Query        string   `json:"query"`
	Transport    string   `json:"transport"`
	Phase        string   `json:"phase"`
	Moved        float64  `json:"moved"`
	Crouched     bool     `json:"crouched"`
	Snapshots    int      `json:"snapshots"`
	SnapshotRate int      `json:"snapshotRate"`
	TickRate     int      `json:"tickRate"`
	Corrections  int      `json:"corrections"`
	Malformed    int      `json:"malformed"`
	RTTms        float64  `json:"rttMs"`
	Loss         float64  `json:"loss"`
	JitterMs     float64  `json:"jitterMs"`
	BufferMs     float64  `json:"bufferMs"`
	BytesIn      int      `json:"bytesIn"`
	BytesOut     int      `json:"bytesOut"`
	RTTSamples   int      `json:"rttSamples"`
	SparkPixels  int      `json:"sparkPixels"`
	MinimapPix   int      `json:"minimapPixels"`
	Labels       []string `json:"labels"`
	BoardRows    int      `json:"boardRows"`
	Players      int      `json:"players"`
	Frames       int      `json:"frames"`
	API          stateAPI `json:"api"`
}

// stateAPI is what window.lagkit.state() says for automation (issue fields).
type stateAPI struct {
	Connected  bool       `json:"connected"`
	Transport  string     `json:"transport"`
	Tick       int        `json:"tick"`
	RTTms      float64    `json:"rtt_ms"`
	Pos        [3]float64 `json:"pos"`
	Yaw        *float64   `json:"yaw"`
	Pitch      *float64   `json:"pitch"`
	Health     int        `json:"health"`
	Team       int        `json:"team"`
	Alive      bool       `json:"alive"`
	Kills      *int       `json:"kills"`
	Deaths     *int       `json:"deaths"`
	PredErrorM *float64   `json:"prediction_error_m"`
	Self       struct {
		Pos [3]float64 `json:"pos"`
	} `json:"self"`
}

// TestPlayInBrowser serves the page beside a live match (the Web
// transport and the real-time host, as lagkit serve runs them) and plays
// it in headless Chromium, over WebTransport, forced onto WebSocket, and
// with the client core on the page's thread (?worker=0) rather than in its
// Web Worker: the client core connects, snapshots arrive at the tick rate,
// running forward moves the predicted player, crouching shows, and a clean
// loopback link needs no prediction correction. It saves a screenshot to
// /tmp/lagkit-web2.png. It is skipped where node, Debian's chromium or
// playwright-core are missing (report/browser/install.sh installs them
// for the report's check, and this test uses the same).
func TestPlayInBrowser(t *testing.T) {
	node, playwright := browserEnv(t)
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()

	_, base := serveMatch(t, ctx, newHost(), Handler(), realtime.MatchConfig{Map: "metro", Mode: "tdm", Seats: 4, Bots: 4})
	shot := "/tmp/lagkit-web2.png"
	cmd := nodeScript(ctx, node, playwright, "browser/play.mjs", base, shot)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("play.mjs: %v\n%s\n%s", err, out, stderr.String())
	}
	if stderr.Len() > 0 {
		t.Logf("play.mjs: %s", stderr.String())
	}
	var runs []run
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		var r run
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("play.mjs printed %q: %v", sc.Text(), err)
		}
		t.Logf("%+v", r)
		runs = append(runs, r)
	}
	if len(runs) != 3 {
		t.Fatalf("%d runs reported, want 3", len(runs))
	}
	for i, want := range []string{"webtransport", "websocket", "webtransport"} {
		r := runs[i]
		if r.Transport != want || r.Phase != "connected" {
			t.Errorf("run %q: %s, %s; want %s, connected", r.Query, r.Transport, r.Phase, want)
		}
		// Software rendering on a shared machine can starve the page for
		// whole frames, and the browser drops datagrams that waited too
		// long, so the rate is only asked to be a quarter of the tick
		// rate; on an idle machine it is the full 64.
		if r.TickRate != 64 || r.SnapshotRate < 16 || r.Snapshots < 100 {
			t.Errorf("run %q: %d snapshots, %d in the last second at %d Hz, want at least 100 and 16", r.Query, r.Snapshots, r.SnapshotRate, r.TickRate)
		}
		if r.Moved < 1 {
			t.Errorf("run %q: running for 1.5 s moved the predicted player %.2f m, want more than 1 m", r.Query, r.Moved)
		}
		if !r.Crouched {
			t.Errorf("run %q: holding crouch did not crouch", r.Query)
		}
		if r.Corrections != 0 {
			t.Errorf("run %q: %d prediction corrections on a clean loopback link, want 0", r.Query, r.Corrections)
		}
		if r.RTTms <= 0 || r.Loss < 0 || r.Loss > 1 || r.JitterMs < 0 || r.BytesIn <= 0 || r.BytesOut <= 0 {
			t.Errorf("run %q: net graph rtt %.2f ms, loss %.3f, jitter %.2f ms, %d B/s in, %d B/s out", r.Query, r.RTTms, r.Loss, r.JitterMs, r.BytesIn, r.BytesOut)
		}
		if r.RTTSamples < 2 || r.SparkPixels == 0 {
			t.Errorf("run %q: RTT sparkline of %d samples drew %d pixels", r.Query, r.RTTSamples, r.SparkPixels)
		}
		if r.BoardRows < 2 {
			t.Errorf("run %q: holding Tab showed %d scoreboard rows, want every player", r.Query, r.BoardRows)
		}
		if r.MinimapPix < 100 {
			t.Errorf("run %q: the minimap drew %d pixels, want its boxes", r.Query, r.MinimapPix)
		}
		if a := r.API; !a.Connected || a.Transport != r.Transport || a.Tick <= 0 || a.RTTms <= 0 || a.Pos != a.Self.Pos ||
			a.Yaw == nil || a.Pitch == nil || a.Kills == nil || a.Deaths == nil || !a.Alive || a.Health <= 0 || a.Team < 0 || a.Team > 1 ||
			a.PredErrorM == nil || *a.PredErrorM != 0 {
			t.Errorf("run %q: window.lagkit.state() says %+v, want connected over %s, a tick, a round trip, pos of self, alive, no prediction error on a clean link", r.Query, a, r.Transport)
		}
		if r.Players < 1 || r.Frames < 10 {
			t.Errorf("run %q: %d other players drawn in %d frames", r.Query, r.Players, r.Frames)
		}
	}
	// The first run faces the nearest player: its label is over its head.
	if l := runs[0].Labels; len(l) == 0 || l[0] == "" {
		t.Errorf("labels over heads: %q, want the player faced", l)
	}
	if st, err := os.Stat(shot); err != nil || st.Size() < 10000 {
		t.Errorf("screenshot %s: %v", shot, err)
	}
}

// browserEnv skips a browser test in -short mode or where node, Debian's
// chromium or playwright-core are missing, takes the wall-clock test
// lock, gets the client core ready, and returns node's path and the
// file: URL of playwright-core's index.mjs.
func browserEnv(t testing.TB) (node, playwright string) {
	t.Helper()
	if testing.Short() {
		t.Skip("plays for about a minute of wall time")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed; run report/browser/install.sh to enable this test")
	}
	walltest.Lock(t)
	if _, err := os.Stat("/usr/bin/chromium"); err != nil {
		t.Skip("Debian's chromium is missing; run report/browser/install.sh to enable this test")
	}
	// The report's browser check installs the pinned playwright-core.
	abs, err := filepath.Abs("../report/browser/node_modules/playwright-core/index.mjs")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(abs); err != nil {
		t.Skip("playwright-core is not installed; run report/browser/install.sh to enable this test")
	}
	prepare(t)
	return node, (&url.URL{Scheme: "file", Path: abs}).String()
}

// newHost returns a real-time host that logs nowhere.
func newHost() *realtime.Host {
	return realtime.NewHost(slog.New(slog.NewTextHandler(io.Discard, nil)), nil)
}

// newTokenHost returns a real-time host that logs nowhere and admits
// only clients holding a connect token for address.
func newTokenHost(t *testing.T, address string) *realtime.Host {
	t.Helper()
	h := newHost()
	key, err := token.NewKey()
	if err != nil {
		t.Fatal(err)
	}
	if err := h.RequireTokens(key, address); err != nil {
		t.Fatal(err)
	}
	return h
}

// serveMatch serves handler over the Web transport (the page, WebSocket
// and WebTransport, as lagkit serve does) beside one match of cfg on h,
// until the test ends; it returns the match and the page's base URL.
func serveMatch(t testing.TB, ctx context.Context, h *realtime.Host, handler http.Handler, cfg realtime.MatchConfig) (*realtime.Match, string) {
	t.Helper()
	w, err := transport.NewWeb(transport.WebOptions{Handler: handler})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	m, err := h.Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Shutdown(context.Background(), "test over") })
	go func() { _ = h.Serve(ctx, w) }()
	return m, "https://" + w.Addr()
}

// nodeScript returns the command running a browser script with node,
// told where playwright-core is.
// startScript starts cmd, a browser script, with pipes to talk to it:
// what the test writes to its stdin, what it prints on stdout, and its
// stderr, kept for the test's failures.
func startScript(t *testing.T, cmd *exec.Cmd) (io.WriteCloser, io.ReadCloser, *strings.Builder) {
	t.Helper()
	stderr := &strings.Builder{}
	cmd.Stderr = stderr
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
	return stdin, stdout, stderr
}

func nodeScript(ctx context.Context, node, playwright, script string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, node, append([]string{script}, args...)...)
	cmd.Env = append(os.Environ(), "PLAYWRIGHT_CORE="+playwright)
	return cmd
}
