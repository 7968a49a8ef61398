package web

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/lagkit/lagkit/realtime"
)

// TestDownloadSize reports what a browser downloads to play, compressed as
// the handler serves it (gzip) and raw: the page, its script, wasm_exec.js
// and the client core.
func TestDownloadSize(t *testing.T) {
	prepare(t)
	srv := httptest.NewServer(Handler())
	defer srv.Close()
	total, totalRaw := 0, 0
	for _, p := range []string{"/", ScriptPath, WasmExecPath, WasmPath, MapPath + "metro"} {
		size := func(gzip bool) int {
			req, _ := http.NewRequest(http.MethodGet, srv.URL+p, nil)
			if gzip {
				req.Header.Set("Accept-Encoding", "gzip")
			}
			res, err := srv.Client().Transport.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			b, err := io.ReadAll(res.Body)
			if err != nil || res.StatusCode != http.StatusOK {
				t.Fatalf("GET %s: %d %v", p, res.StatusCode, err)
			}
			return len(b)
		}
		gz, raw := size(true), size(false)
		if gz > raw {
			t.Errorf("%s: %d bytes gzipped, more than %d raw", p, gz, raw)
		}
		t.Logf("%-22s %8d bytes gzipped %9d raw", p, gz, raw)
		total += gz
		totalRaw += raw
	}
	t.Logf("%-22s %8d bytes gzipped %9d raw", "total", total, totalRaw)
	// The core is most of it; the page with its synthesized sounds stays
	// under 2 MB gzipped (issue 26's bound).
	if total > 2_000_000 {
		t.Errorf("the page downloads %d bytes gzipped, more than 2 MB", total)
	}
}

// perfRun is what browser/perf.mjs reports.
type perfRun struct {
	Frames  int     `json:"frames"`
	FPS     float64 `json:"fps"`
	Players int     `json:"players"`
	StepMs  float64 `json:"stepMs"`
	StateMs float64 `json:"stateMs"`
	DrawMs  float64 `json:"drawMs"`
	// RenderMs and InfoMs are parts of DrawMs: three.js's render, and
	// the handling of new infos (events, sounds, HUD text, net graph).
	RenderMs float64 `json:"renderMs"`
	InfoMs   float64 `json:"infoMs"`
	FrameMs  float64 `json:"frameMs"`
}

// TestFrameTimeInBrowser measures the page's time per frame beside a
// 64-player match (the page and 63 bots on metro) in headless Chromium:
// the client core's step (datagrams in, commands out), its state
// (interpolation of 63 players and the hand-over to the page) and the
// draw (three.js with software WebGL, the HUD). It logs the means; it
// fails only when the page does not draw the players or stalls, since
// the times depend on the machine.
func TestFrameTimeInBrowser(t *testing.T) {
	node, playwright := browserEnv(t)
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	_, base := serveMatch(t, ctx, newHost(), Handler(), realtime.MatchConfig{Map: "metro", Mode: "tdm", Seats: 64, Bots: 63})
	for _, where := range []struct{ name, query string }{{"page", "&worker=0"}, {"worker", ""}} {
		cmd := nodeScript(ctx, node, playwright, "browser/perf.mjs", base, where.query)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("perf.mjs %s: %v\n%s", where.query, err, stderr.String())
		}
		var r perfRun
		if err := json.Unmarshal(out, &r); err != nil {
			t.Fatalf("perf.mjs printed %q: %v", out, err)
		}
		// In a worker the step runs off the page's thread (its time is
		// reported, but does not hold up a frame) and the state is the
		// newest the worker sent.
		t.Logf("core in the %s: %d players drawn, %.1f frames/s: per frame %.2f ms step, %.2f ms state (interpolation), %.2f ms draw (%.2f ms three.js, %.2f ms infos), %.2f ms on the page's thread",
			where.name, r.Players, r.FPS, r.StepMs, r.StateMs, r.DrawMs, r.RenderMs, r.InfoMs, r.FrameMs)
		if r.Players < 60 || r.Frames < 20 || r.FrameMs <= 0 {
			t.Errorf("core in the %s: %d players drawn in %d frames (%.2f ms each), want 63 players and some frames", where.name, r.Players, r.Frames, r.FrameMs)
		}
	}
}
