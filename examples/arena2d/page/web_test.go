package page_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lagkit/lagkit/examples/arena2d/arena"
	"github.com/lagkit/lagkit/examples/arena2d/page"
	"github.com/lagkit/lagkit/realtime"
	"github.com/lagkit/lagkit/transport"
	"github.com/prometheus/client_golang/prometheus"
)

// TestWebServesPageAndWebSocket: Listen serves the page and the files
// beside it, refuses a directory without them, and takes a native
// client's WebSocket session (the desktop client's -connect ws://) into
// the match, where it sees the crate.
func TestWebServesPageAndWebSocket(t *testing.T) {
	dir := t.TempDir()
	if _, err := page.Listen("127.0.0.1:0", dir); err == nil || !strings.Contains(err.Error(), page.WASM) {
		t.Fatalf("Listen on an empty directory: %v, want an error naming %s", err, page.WASM)
	}
	for _, f := range []string{page.WASM, page.Loader} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("contents of "+f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	web, err := page.Listen("127.0.0.1:0", dir)
	if err != nil {
		t.Fatal(err)
	}
	defer web.Close()
	for path, want := range map[string]string{"": "wasm_exec.js", page.WASM: "contents of " + page.WASM, page.Loader: "contents of " + page.Loader, "nope": "404"} {
		resp, err := http.Get(web.URL() + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if got := string(b); !strings.Contains(got, want) && !(want == "404" && resp.StatusCode == http.StatusNotFound) {
			t.Errorf("GET /%s: %d %q, want %q", path, resp.StatusCode, got, want)
		}
	}

	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	host := realtime.NewHost(slog.New(slog.NewTextHandler(io.Discard, nil)), realtime.NewMetrics(prometheus.NewRegistry()))
	m, err := host.Start(arena.MatchConfig(2, arena.NewReferee()))
	if err != nil {
		t.Fatal(err)
	}
	go host.Serve(ctx, web)
	conn, err := transport.Dial(ctx, "ws://"+web.Addr(), transport.DialOptions{})
	if err != nil {
		t.Fatal(err)
	}
	bot := &arena.Bot{}
	done := make(chan error, 1)
	go func() {
		_, err := realtime.RunClient(ctx, conn, realtime.ClientConfig{Client: arena.ClientConfig("native"), Brain: bot})
		done <- err
	}()
	var players []realtime.Player
	for ctx.Err() == nil {
		if info, err := m.Info(); err == nil && len(info.Players) > 0 {
			players = info.Players
		}
		if crate, _, _, _ := bot.Saw(); crate && len(players) > 0 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := host.Shutdown(context.Background(), "test over"); err != nil {
		t.Error(err)
	}
	if err := <-done; err != nil {
		t.Error(err)
	}
	if crate, _, _, _ := bot.Saw(); !crate || len(players) != 1 || players[0].Name != "native" || !strings.HasPrefix(players[0].Peer, "ws:") {
		t.Errorf("the bot saw the crate: %v; the server saw players %+v, want the bot over WebSocket", crate, players)
	}
}
