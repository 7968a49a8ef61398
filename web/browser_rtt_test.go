package web

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/lagkit/lagkit/realtime"
)

// rttPage is one page's part of what browser/rtt.mjs prints.
type rttPage struct {
	Query     string    `json:"query"`
	Name      string    `json:"name"`
	Transport string    `json:"transport"`
	RTTms     []float64 `json:"rttMs"`
	Frames    int       `json:"frames"`
}

// median returns the median of v (0 for none).
func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(v))
	return (s[(len(s)-1)/2] + s[len(s)/2]) / 2
}

// TestRoundTripWithoutWorkerInBrowser plays the page beside a match on
// loopback with the client core on the page's thread (?worker=0) and in
// its Web Worker, in turn, twice each, and compares the round trip the
// page's core measures and the one the server measures of the page: with
// worker=0 they are those of the worker within a few ms and a fraction
// of a frame (the bounds and their evidence below).
func TestRoundTripWithoutWorkerInBrowser(t *testing.T) {
	node, playwright := browserEnv(t)
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	m, base := serveMatch(t, ctx, newHost(), Handler(), realtime.MatchConfig{Map: "metro", Mode: "tdm", Seats: 8, Bots: 6})
	// Alternate runs of each, 8 s each, one page at a time.
	const seconds = 8.0
	queries := []string{"worker=0", "worker=1", "worker=0", "worker=1"}
	cmd := nodeScript(ctx, node, playwright, "browser/rtt.mjs", append([]string{base, fmt.Sprint(seconds)}, queries...)...)
	_, stdout, stderr := startScript(t, cmd)
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	server := map[string][]float64{}
	var pages []rttPage
	sampling := ""
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for len(pages) < len(queries) {
		select {
		case line, ok := <-lines:
			if !ok {
				_ = cmd.Wait()
				t.Fatalf("rtt.mjs ended after %d pages of %d\n%s", len(pages), len(queries), stderr.String())
			}
			var out struct {
				Sampling string   `json:"sampling"`
				Page     *rttPage `json:"page"`
			}
			if err := json.Unmarshal([]byte(line), &out); err != nil {
				t.Fatalf("rtt.mjs printed %q: %v", line, err)
			}
			if out.Sampling != "" {
				sampling = out.Sampling
			}
			if out.Page != nil {
				pages = append(pages, *out.Page)
				sampling = ""
			}
		case <-tick.C:
			if sampling == "" {
				continue
			}
			info, err := m.Info()
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range info.Players {
				if p.Name == sampling {
					server[p.Name] = append(server[p.Name], p.RTTms)
				}
			}
		case <-ctx.Done():
			t.Fatalf("rtt.mjs: %v\n%s", ctx.Err(), stderr.String())
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("rtt.mjs: %v\n%s", err, stderr.String())
	}
	// Each mode's samples pooled over its runs, and its frames' mean
	// interval.
	type mode struct {
		page, server []float64
		frames       int
		seconds      float64
	}
	modes := map[string]*mode{}
	for _, p := range pages {
		mo := modes[p.Query]
		if mo == nil {
			mo = &mode{}
			modes[p.Query] = mo
		}
		mo.page = append(mo.page, p.RTTms...)
		mo.server = append(mo.server, server[p.Name]...)
		mo.frames += p.Frames
		mo.seconds += seconds
		t.Logf("%s (%s, %d frames in %.0f s): page's round trip median %.1f ms (%d samples), server's %.1f ms (%d samples)",
			p.Query, p.Transport, p.Frames, seconds, median(p.RTTms), len(p.RTTms), median(server[p.Name]), len(server[p.Name]))
		if p.Transport != "webtransport" || len(p.RTTms) < 10 || len(server[p.Name]) < 10 || p.Frames < 10 {
			t.Fatalf("%s: %s, %d round trips from the page and %d from the server in %d frames, want webtransport and some of each",
				p.Query, p.Transport, len(p.RTTms), len(server[p.Name]), p.Frames)
		}
	}
	w0, w1 := modes[queries[0]], modes[queries[1]]
	frameMs := 1000 * w0.seconds / float64(w0.frames)
	page0, page1, server0, server1 := median(w0.page), median(w1.page), median(w0.server), median(w1.server)
	t.Logf("worker=0 against worker=1: page's %.1f against %.1f ms, server's %.1f against %.1f ms; worker=0's frames %.1f ms apart",
		page0, page1, server0, server1, frameMs)
	// On the page's thread a datagram waits for the frame being drawn:
	// under software rendering the frame's commit holds the thread for
	// most of the frame (tens of ms on a loaded machine). When that wait
	// counted in the round trip (a datagram stamped when read), the
	// page's median was a frame and more above its worker's (82 to 86
	// against 6 ms, frames 64 to 75 ms apart; the server's 92 to 95
	// against 8 to 9 ms). Stamped on arrival, the wait is the client's
	// hold, taken off at both ends: the page's median is within a few ms
	// of its worker's (3.7 to 10 against 2.8 to 7.2 ms), allowed 5 ms and
	// a quarter of a frame. The server trusts a declared hold up to a
	// tick and 25 ms (server.maxAckSlack) and no longer than the gap
	// between two packets, so waits beyond that still count there (10.8
	// to 16.6 against 2.5 to 5.5 ms, frames 21 to 25 ms apart): allowed
	// 5 ms and half a frame.
	if page0 > page1+5+frameMs/4 {
		t.Errorf("the page's round trip with worker=0 is %.1f ms, with worker=1 %.1f ms: more than 5 ms and a quarter of a frame (%.1f ms) apart", page0, page1, frameMs)
	}
	if server0 > server1+5+frameMs/2 {
		t.Errorf("the server's round trip of the page with worker=0 is %.1f ms, with worker=1 %.1f ms: more than 5 ms and half a frame (%.1f ms) apart", server0, server1, frameMs)
	}
}
