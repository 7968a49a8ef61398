package web

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/realtime"
)

// spectatedShot is a shot as a spectator's state() lists it.
type spectatedShot struct {
	Seq                   int
	TimeS                 float64 `json:"time_s"`
	Shooter, Victim       int
	Near                  int
	Outcome               string
	ShooterName, NearName string
}

// spectatorPick is what spectate.mjs saw of a shot it clicked in the
// list.
type spectatorPick struct {
	Seq    int
	Listed spectatedShot
	Shot   *struct {
		Seq, Victim   int
		Shooter, Near string
		Outcome       string
		Tested, Now   int
	}
	Drawn struct {
		Shot, Wireframes int
		Colours          []int
	}
	Tags       []string
	Panel, Row string
	Swatches   []string
}

// TestSpectateInBrowser watches four bots fight on metro from a
// spectator's page (/?spectate=1, browser/spectate.mjs) in headless
// Chromium. The page takes no seat and opens no link, and hides the
// player's HUD. It lists every shot of the span picked (30 s, with the
// panel's buttons; T goes round the spans), more than the 12 it once
// kept: their sequence numbers run on without a gap, and the shot before
// the first listed is older than the span. P stops the list and the
// players while the page polls on; the arrow keys and the panel's
// buttons step shot by shot; a hit clicked in the list is drawn as
// sv_showlagcompensation draws it, the victim where the server tested
// the shot and where it was at the server's present (a wireframe per
// hitbox of each), with the shooter's and victim's names over them and
// in the panel, and every colour drawn is in the legend; a miss is drawn
// with the player it passed nearest. P again goes live. F follows a
// player, Space frees the camera, W flies it. The host delays its
// spectators by 6 s: the page counts down to the first view and says
// the delay. With -images DIR it keeps browser-spectate.png in DIR.
func TestSpectateInBrowser(t *testing.T) {
	node, playwright := browserEnv(t)
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
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
	type moment struct {
		At       *float64
		Shots    []int
		Shot     int
		Received int
		Polls    int
	}
	var run struct {
		Received  struct{ Shots, Polls int }
		Players   int
		Map       string
		Legend    []string
		Hidden    bool
		Countdown string
		Spans     []int
		Live      struct {
			TimeS         float64 `json:"time_s"`
			SpanS         float64 `json:"span_s"`
			Shots         []spectatedShot
			Before, After *struct {
				Seq   int
				TimeS float64 `json:"time_s"`
			}
			Kept, Cap int
		}
		Paused, Later moment
		Steps         []int
		Hit, Miss     *spectatorPick
		Resumed       struct {
			Paused       *float64
			Shot, Newest int
		}
		Followed, Freed int
		Before, After   [3]float64
		Links           int
		Screenshot      string
		Grid, Bounds    *struct{ Min, Max [3]float64 }
	}
	if err := json.Unmarshal(raw, &run); err != nil {
		t.Fatal(err)
	}
	info, err := m.Info()
	if err != nil {
		t.Fatal(err)
	}
	names := map[int]string{}
	for _, p := range info.Players {
		names[p.Seat] = p.Name
	}
	if run.Map != "metro" || run.Players != 4 {
		t.Errorf("spectated %s with %d players, want metro's 4 bots", run.Map, run.Players)
	}
	if !run.Hidden {
		t.Error("the player's HUD shows on a spectator's page")
	}
	if !strings.Contains(run.Countdown, "spectating starts in ") || !strings.Contains(run.Countdown, "delayed 6 s") {
		t.Errorf("before the first delayed view the page said %q, want the countdown", run.Countdown)
	}
	if !slices.Equal(run.Spans, []int{30, 2, 30}) {
		t.Errorf("the span after its 30 s button, T, and the button again: %v s, want 30, 2, 30", run.Spans)
	}

	// Every shot of the span, in order, named.
	l := run.Live
	if len(l.Shots) < 13 || l.SpanS != 30 {
		t.Errorf("%d shots listed over %v s, want more than 12 over 30 s", len(l.Shots), l.SpanS)
	}
	for i, s := range l.Shots {
		if i > 0 && s.Seq != l.Shots[i-1].Seq+1 {
			t.Errorf("shot %d listed after %d: a shot of the span missing", s.Seq, l.Shots[i-1].Seq)
		}
		if s.TimeS <= l.TimeS-l.SpanS || s.TimeS > l.TimeS {
			t.Errorf("shot %d at %.2f s listed in the span (%.2f, %.2f]", s.Seq, s.TimeS, l.TimeS-l.SpanS, l.TimeS)
		}
		if s.ShooterName != names[s.Shooter] || (s.Near >= 0) != (s.NearName != "") || s.Near >= 0 && s.NearName != names[s.Near] {
			t.Errorf("shot %+v: want the shooter's and the aimed-at player's names (%v)", s, names)
		}
		if (s.Victim < 0) != (s.Outcome == "miss") || s.Victim >= 0 && s.Near != s.Victim {
			t.Errorf("shot %+v: want a miss exactly when no victim, and a hit aimed at its victim", s)
		}
	}
	if b := l.Before; b != nil && b.TimeS > l.TimeS-l.SpanS {
		t.Errorf("shot %d at %.2f s kept but not listed in the span (%.2f, %.2f]", b.Seq, b.TimeS, l.TimeS-l.SpanS, l.TimeS)
	}
	if a := l.After; a != nil && a.TimeS <= l.TimeS {
		t.Errorf("shot %d at %.2f s kept but not listed, in the span ending at %.2f", a.Seq, a.TimeS, l.TimeS)
	}
	if l.Cap != 5000 || l.Kept > l.Cap || l.Kept < len(l.Shots) {
		t.Errorf("%d shots kept, %d listed, cap %d: want the cap of 5000 and every listed shot kept", l.Kept, len(l.Shots), l.Cap)
	}

	// Paused: the list stands, the polls go on.
	p, q := run.Paused, run.Later
	if p.At == nil || q.At == nil || *p.At != *q.At || !slices.Equal(p.Shots, q.Shots) || p.Shot != q.Shot || q.Polls <= p.Polls {
		t.Errorf("paused %+v, 2 s later %+v: want the same list and shot while the polls go on", p, q)
	}
	if len(p.Shots) < 4 || p.Shot != p.Shots[len(p.Shots)-1] {
		t.Errorf("paused on shot %d of %v, want the newest of at least 4", p.Shot, p.Shots)
	}
	if n := len(p.Shots); n >= 4 && !slices.Equal(run.Steps, []int{p.Shots[n-2], p.Shots[n-1], p.Shots[n-3]}) {
		t.Errorf("stepping back (←), on (the panel's ▶) and back twice (← ,) drew %v of %v", run.Steps, p.Shots)
	}

	// One shot drawn, with names and the legend's colours.
	checkPick := func(what string, k *spectatorPick, hit bool) {
		t.Helper()
		if k == nil || k.Shot == nil {
			t.Errorf("no %s listed to click", what)
			return
		}
		s := k.Listed
		if k.Shot.Seq != k.Seq || k.Drawn.Shot != k.Seq || k.Shot.Tested != game.NumParts || k.Shot.Now != game.NumParts ||
			k.Drawn.Wireframes != 2*game.NumParts {
			t.Errorf("%s %d clicked: drawn %+v, shot %+v; want its aimed-at player tested and now, %d wireframes", what, k.Seq, k.Drawn, k.Shot, 2*game.NumParts)
		}
		for _, want := range []string{names[s.Shooter] + " (shooter)", names[s.Near] + map[bool]string{true: " (victim)", false: " (nearest)"}[hit]} {
			if !slices.Contains(k.Tags, want) {
				t.Errorf("%s %d: names drawn over the shot %q, want %q", what, k.Seq, k.Tags, want)
			}
		}
		if !strings.Contains(k.Panel, names[s.Shooter]+" → ") || !strings.Contains(k.Panel, names[s.Near]) || !strings.Contains(k.Row, names[s.Shooter]) {
			t.Errorf("%s %d: the panel says %q, its row %q; want the shooter's and the aimed-at player's names", what, k.Seq, k.Panel, k.Row)
		}
		if len(k.Drawn.Colours) < 3 {
			t.Errorf("%s %d: colours drawn %v, want the two poses' and the line's", what, k.Seq, k.Drawn.Colours)
		}
		for _, c := range k.Drawn.Colours {
			if hex := fmt.Sprintf("#%06x", c); !slices.Contains(k.Swatches, hex) {
				t.Errorf("%s %d: drawn in %s, which the legend (%v) does not show", what, k.Seq, hex, k.Swatches)
			}
		}
	}
	checkPick("hit", run.Hit, true)
	if run.Miss != nil {
		checkPick("miss", run.Miss, false)
	}
	if r := run.Resumed; r.Paused != nil || r.Shot != r.Newest {
		t.Errorf("live again: paused %v, drawing shot %d of newest %d", r.Paused, r.Shot, r.Newest)
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
	if run.Links != 0 || info.Humans != 0 || info.Bots != 4 {
		t.Errorf("the spectator opened %d WebSockets; the match has %d humans and %d bots, want none and 4: a spectator takes no seat", run.Links, info.Humans, info.Bots)
	}
}
