package web

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/lagkit/lagkit/realtime"
)

// TestSpectateInBrowser watches four bots fight on metro from a
// spectator's page (/?spectate=1, browser/spectate.mjs) in headless
// Chromium: the page takes no seat and opens no link, hides the player's
// HUD, draws each shot with every other player's hitboxes where the
// server tested it (sv_showlagcompensation), follows a player on F and
// frees the camera on Space, and flies on W. The host delays its
// spectators by 6 s: the page counts down to the first view and says
// the delay. With -images DIR it keeps browser-spectate.png in DIR.
func TestSpectateInBrowser(t *testing.T) {
	node, playwright := browserEnv(t)
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	h := newHost()
	if err := h.SetSpectateDelay(6 * time.Second); err != nil {
		t.Fatal(err)
	}
	m, base := serveMatch(t, ctx, h, HandlerWith(Options{Host: h}), realtime.MatchConfig{Map: "metro", Mode: "tdm", Seats: 4, Bots: 4})
	out := t.TempDir()
	if *imagesDir != "" {
		out = *imagesDir
	}
	cmd := nodeScript(ctx, node, playwright, "browser/spectate.mjs", base, out)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	raw, err := cmd.Output()
	if err != nil {
		t.Fatalf("spectate.mjs: %v\n%s", err, stderr.String())
	}
	t.Logf("spectate.mjs: %s", raw)
	var run struct {
		Received struct{ Shots, Polls int }
		Drawn    struct{ Shots, Wireframes, Players int }
		Shots    []struct {
			Seq, Shooter, Victim, Rewound int
			Outcome                       string
		}
		Players         int
		Map, Panel      string
		Countdown       string
		Hidden          bool
		Followed, Freed int
		Before, After   [3]float64
		Links           int
		Screenshot      string
		DrawnAtShot     struct{ Shots, Wireframes int }
		Grid, Bounds    *struct{ Min, Max [3]float64 }
	}
	if err := json.Unmarshal(raw, &run); err != nil {
		t.Fatal(err)
	}
	if run.Map != "metro" || run.Players != 4 || run.Received.Shots < 3 || len(run.Shots) == 0 {
		t.Errorf("spectated %s with %d players, %d shots received, %d drawn; want metro's 4 bots and shots", run.Map, run.Players, run.Received.Shots, len(run.Shots))
	}
	for _, s := range run.Shots {
		if s.Rewound < 1 || s.Rewound > 3 || (s.Victim < 0) != (s.Outcome == "miss") {
			t.Errorf("shot %+v: want the others' rewound hitboxes (1 to 3 of them), a miss exactly when no victim", s)
		}
	}
	if run.Drawn.Wireframes == 0 || run.DrawnAtShot.Wireframes < 8 {
		t.Errorf("wireframes drawn %d (%d at the screenshot), want every rewound player's hitboxes", run.Drawn.Wireframes, run.DrawnAtShot.Wireframes)
	}
	if !run.Hidden || !strings.Contains(run.Panel, "spectating (delayed 6 s)") || !strings.Contains(run.Panel, "rewound") {
		t.Errorf("player's HUD hidden %v, panel %q", run.Hidden, run.Panel)
	}
	if !strings.Contains(run.Countdown, "spectating starts in ") || !strings.Contains(run.Countdown, "delayed 6 s") {
		t.Errorf("before the first delayed view the page said %q, want the countdown", run.Countdown)
	}
	if run.Followed < 0 || run.Freed != -1 {
		t.Errorf("F followed seat %d, Space left following %d; want a seat, then the free camera", run.Followed, run.Freed)
	}
	if d := math.Hypot(run.After[0]-run.Before[0], run.After[1]-run.Before[1]); !(d > 0.5) {
		t.Errorf("W moved the free camera %.2f m, from %v to %v", d, run.Before, run.After)
	}
	if st, err := os.Stat(run.Screenshot); err != nil || st.Size() < 10000 {
		t.Errorf("screenshot %s: %v", run.Screenshot, err)
	}
	// The ground's grid stays within the map: a square one as wide as
	// metro's longer side hung past its north wall.
	if g, b := run.Grid, run.Bounds; g == nil || b == nil {
		t.Errorf("grid %v, bounds %v: want both", g, b)
	} else {
		for i := range 2 {
			if g.Min[i] < b.Min[i]-0.01 || g.Max[i] > b.Max[i]+0.01 {
				t.Errorf("the ground's grid spans %v to %v, the map %v to %v; want it within", g.Min, g.Max, b.Min, b.Max)
				break
			}
		}
	}
	info, err := m.Info()
	if err != nil {
		t.Fatal(err)
	}
	if run.Links != 0 || info.Humans != 0 || info.Bots != 4 {
		t.Errorf("the spectator opened %d WebSockets; the match has %d humans and %d bots, want none and 4: a spectator takes no seat", run.Links, info.Humans, info.Bots)
	}
}
