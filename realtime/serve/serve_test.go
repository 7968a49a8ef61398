package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lagkit/lagkit/realtime"
)

// logBuffer is a log sink the test reads while Run writes.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) records() []map[string]any {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(l.b.String()), "\n") {
		var r map[string]any
		if json.Unmarshal([]byte(line), &r) == nil {
			out = append(out, r)
		}
	}
	return out
}

// TestRunServesUntilStopped runs the default match with --udp and
// --http on loopback: Run logs where it listens, /healthz answers there,
// and when the context ends Run ends the match and returns nil, having
// logged that it shut down and then stopped.
func TestRunServesUntilStopped(t *testing.T) {
	var logs logBuffer
	log := slog.New(slog.NewJSONHandler(&logs, nil))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, log, Options{Listeners: Listeners{UDP: "127.0.0.1:0"}, HTTP: "127.0.0.1:0"}, nil, []realtime.MatchConfig{DefaultMatch})
	}()
	var httpAddr string
	for deadline := time.Now().Add(30 * time.Second); httpAddr == ""; time.Sleep(10 * time.Millisecond) {
		select {
		case err := <-done:
			t.Fatalf("Run returned before it was stopped: %v", err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("no listening record")
		}
		for _, r := range logs.records() {
			if r["msg"] == "listening" {
				httpAddr, _ = r["http"].(string)
				if udp, _ := r["udp"].(string); udp == "" || r["matches"] != 1.0 {
					t.Errorf("listening record %v: want a UDP address and one match", r)
				}
			}
		}
	}
	res, err := http.Get("http://" + httpAddr + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Errorf("/healthz: %s", res.Status)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run: %v", err)
	}
	var order []string
	for _, r := range logs.records() {
		if m := r["msg"].(string); m == "shutting down" || m == "stopped" {
			order = append(order, m)
		}
	}
	if strings.Join(order, ",") != "shutting down,stopped" {
		t.Errorf("shutdown logged %q, want shutting down then stopped, once each", order)
	}
}

// TestRunRefusesABadAddress checks that a listener that cannot be opened
// is an error naming its flag, and that Run returns it without serving.
func TestRunRefusesABadAddress(t *testing.T) {
	log := slog.New(slog.NewJSONHandler(io.Discard, nil))
	err := Run(context.Background(), log, Options{HTTP: "127.0.0.1:99999"}, nil, []realtime.MatchConfig{DefaultMatch})
	if err == nil || !strings.HasPrefix(err.Error(), "--http: ") {
		t.Fatalf("Run: %v, want an error about --http", err)
	}
}
