package web

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/realtime"
	"github.com/lagkit/lagkit/world"
)

// pageView is one page's view as browser/page.mjs reports it.
type pageView struct {
	ID       int        `json:"id"`
	Team     int        `json:"team"`
	Pos      [3]float64 `json:"pos"`
	ViewYaw  float64    `json:"viewYaw"`
	ViewPich float64    `json:"viewPitch"`
	Place    struct {
		Count int
		Yaw   float64
	} `json:"place"`
}

// pageNames is what a page shows of the players' names and the server's
// net graph series, as browser/page.mjs reports it.
type pageNames struct {
	Rows []struct {
		ID   int
		Name string
	}
	Labels []string
	Board  string
	Net    string
	Server *struct {
		TickMs, TickLateMs, EmulatedUpMs, EmulatedDownMs, HeldUpMs, HeldDownMs, LossOut float64
		Policy                                                                          string
	}
	View struct {
		Yaw   float64
		Place struct{ Count int }
	}
}

// pageRun is what browser/page.mjs reports at its end.
type pageRun struct {
	Spawned, Placed []pageView
	Faced           []pageNames
	NoHit           [][]string `json:"noHit"`
	ReportsNoHit    []int      `json:"reportsNoHit"`
	Menu            struct {
		Open            bool   `json:"open"`
		Help            string `json:"help"`
		OverlapsNet     bool   `json:"overlapsNet"`
		HelpOverlapsNet bool   `json:"helpOverlapsNet"`
	} `json:"menu"`
	MenuShot      string          `json:"menuShot"`
	Before        json.RawMessage `json:"before"`
	AfterSettings json.RawMessage `json:"after"`
	FOVAfter      float64         `json:"fovAfter"`
	BoundKey      bool            `json:"boundKey"`
	Locked        bool            `json:"locked"`
	OpenLocked    bool            `json:"openLocked"`
	Unlocked      bool            `json:"unlocked"`
	OpenAfterEsc  bool            `json:"openAfterEsc"`
	Phone         struct {
		Need               string
		Left, Right, Width float64
	} `json:"phone"`
	NoStudy, BadCode wrongCode
}

type wrongCode struct {
	Title, Text, Status string
	Shown               bool
	Asks                int `json:"asks"`
	AsksLater           int `json:"asksLater"`
}

// angleOff is how far apart two yaws are, in radians.
func angleOff(a, b float64) float64 {
	d := math.Mod(math.Abs(a-b), 2*math.Pi)
	return math.Min(d, 2*math.Pi-d)
}

// TestPageInBrowser plays what a new player meets (browser/page.mjs) on
// metro in headless Chromium: two pages on opposite teams, one with the
// client core in its Web Worker and one on the page's thread, see the
// way their spawns face before they touch the mouse, and the way a
// teleport faces after the server places them; the report key with no
// hit on the player is refused in both; the menu is open before the
// first click, lists the loadout's one weapon and keeps clear of the net
// graph at 1280 px; its settings survive a reload; it opens whenever the
// page loses the pointer; a phone's screen is told a keyboard and a
// mouse are needed; a wrong participant code says so once and stops
// asking. With -images DIR it keeps browser-menu.png in DIR.
func TestPageInBrowser(t *testing.T) {
	node, playwright := browserEnv(t)
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	m, base := serveMatch(t, ctx, newHost(), Handler(), realtime.MatchConfig{Map: "metro", Mode: "tdm", Seats: 4, Bots: 2})
	_, studyBase := serveMatch(t, ctx, newHost(), HandlerWith(Options{Study: newFakeStudy("K7Q2")}), realtime.MatchConfig{Map: "arena", Seats: 2})
	metro, err := world.Load("metro")
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	if *imagesDir != "" {
		out = *imagesDir
	}
	cmd := nodeScript(ctx, node, playwright, "browser/page.mjs", base, studyBase, out)
	stdin, stdout, stderr := startScript(t, cmd)
	placeYaw := []float64{1.0, 2.5}
	var faceYaw [2]float64
	var run pageRun
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var step struct {
			Step  string
			Pages []pageView
		}
		if err := json.Unmarshal(sc.Bytes(), &step); err != nil {
			t.Fatalf("page.mjs printed %q: %v", sc.Text(), err)
		}
		t.Logf("page.mjs: %s", sc.Text())
		switch step.Step {
		case "spawned":
			for i, p := range step.Pages {
				if err := m.Place(p.ID, geom.V(p.Pos[0], p.Pos[1], p.Pos[2]), placeYaw[i]); err != nil {
					t.Error(err)
				}
			}
			fmt.Fprintln(stdin, "placed")
		case "placed":
			// Face to face, 3 m apart in front of red's spawn, and an
			// emulated link for red.
			red := step.Pages[0]
			yaw := spawnYaw(metro, red)
			at := geom.V(red.Pos[0], red.Pos[1], red.Pos[2])
			faceYaw = [2]float64{yaw, math.Mod(yaw+math.Pi, 2*math.Pi)}
			for i, p := range []geom.Vec3{at, at.Add(geom.V(3*math.Cos(yaw), 3*math.Sin(yaw), 0))} {
				if err := m.Place(step.Pages[i].ID, p, faceYaw[i]); err != nil {
					t.Error(err)
				}
			}
			err := m.SetLatency([]realtime.LinkRule{{Player: "red", Up: realtime.LinkConfig{LatencyMS: 30}, Down: realtime.LinkConfig{LatencyMS: 50}}})
			if err != nil {
				t.Error(err)
			}
			fmt.Fprintln(stdin, "faced")
		case "done":
			if err := json.Unmarshal(sc.Bytes(), &run); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("page.mjs: %v\n%s", err, stderr.String())
	}
	if stderr.Len() > 0 {
		t.Logf("page.mjs: %s", stderr.String())
	}

	// Defect 1: each page looks the way its spawn faces, for both teams,
	// and the way the server placed it.
	if len(run.Spawned) != 2 || len(run.Placed) != 2 {
		t.Fatalf("%d spawned and %d placed pages reported, want 2", len(run.Spawned), len(run.Placed))
	}
	if run.Spawned[0].Team == run.Spawned[1].Team {
		t.Errorf("both pages on team %d, want one on each", run.Spawned[0].Team)
	}
	for i, p := range run.Spawned {
		if best := spawnDist(metro, p); best > 0.1 {
			t.Errorf("page %d (team %d) at %v, %.2f m from its team's nearest spawn", i, p.Team, p.Pos, best)
		}
		if yaw := spawnYaw(metro, p); angleOff(p.ViewYaw, yaw) > 0.02 {
			t.Errorf("page %d (team %d) spawned looking at yaw %.3f, its spawn faces %.3f", i, p.Team, p.ViewYaw, yaw)
		}
		// A teleport's yaw reaches the page in the server's place event,
		// whatever the commands the page sent before it heard of the
		// teleport did to the server's player.
		q := run.Placed[i]
		if q.Place.Count != 2 || angleOff(q.ViewYaw, placeYaw[i]) > 0.02 || angleOff(q.Place.Yaw, placeYaw[i]) > 0.02 {
			t.Errorf("page %d placed facing %.3f: placement %+v, view at yaw %.3f; want the view the server's", i, placeYaw[i], q.Place, q.ViewYaw)
		}
	}
	checkNames(t, run.Faced, faceYaw)
	// Defect 4: no hit on the player, no report, in both core modes.
	for i, notes := range run.NoHit {
		if len(notes) == 0 || !strings.Contains(notes[len(notes)-1], "no hit on you") || run.ReportsNoHit[i] != 0 {
			t.Errorf("page %d: B with no hit on it noted %q with %d reports sent, want refused", i, notes, run.ReportsNoHit[i])
		}
	}
	// Defects 7 and 8: the menu, its help and the net graph.
	if !run.Menu.Open || run.Menu.OverlapsNet || run.Menu.HelpOverlapsNet {
		t.Errorf("menu before the first click: open %v, overlaps the net graph %v (help %v)", run.Menu.Open, run.Menu.OverlapsNet, run.Menu.HelpOverlapsNet)
	}
	if !strings.Contains(run.Menu.Help, "1 rifle") || strings.Contains(run.Menu.Help, "2 ") || strings.Contains(run.Menu.Help, "1-5") {
		t.Errorf("help %q: want the loadout's one weapon, the rifle, on 1", run.Menu.Help)
	}
	if st, err := os.Stat(run.MenuShot); err != nil || st.Size() < 10000 {
		t.Errorf("menu screenshot %s: %v", run.MenuShot, err)
	}
	var before, after struct {
		Sensitivity float64
		InvertY     bool
		FOV         float64
		Bindings    map[string]string
	}
	if err := json.Unmarshal(run.Before, &before); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(run.AfterSettings, &after); err != nil {
		t.Fatal(err)
	}
	if after.Sensitivity != 3.7 || !after.InvertY || after.FOV != 80 || after.Bindings["rewind"] != "KeyG" || run.FOVAfter != 80 || !run.BoundKey {
		t.Errorf("settings after a reload %+v (field of view %v, G turned the rewind view on: %v), want sensitivity 3.7, Y inverted, 80°, rewind on G",
			after, run.FOVAfter, run.BoundKey)
	}
	if run.Locked && (run.OpenLocked || !run.Unlocked || !run.OpenAfterEsc) {
		t.Errorf("pointer lock: the menu open %v while locked, %v after Esc (unlocked %v)", run.OpenLocked, run.OpenAfterEsc, run.Unlocked)
	}
	if !run.Locked {
		t.Log("headless Chromium gave no pointer lock: the menu's lock checks were skipped")
	}
	if p := run.Phone; !strings.Contains(p.Need, "keyboard and a mouse") || p.Left < 0 || p.Right > p.Width {
		t.Errorf("on a phone: %+v, want the keyboard and mouse note and the menu within the screen", p)
	}
	// Defect 6: wrong codes.
	for name, w := range map[string]wrongCode{"no study": run.NoStudy, "unknown code": run.BadCode} {
		if w.AsksLater > 0 || w.Asks > 3 || !w.Shown || strings.Contains(w.Title, "Joining") || w.Text == "" {
			t.Errorf("%s: %+v; want one clear message and no more asking", name, w)
		}
	}
}

// spawnDist is how far page p stands from its team's nearest spawn on m,
// spawnYaw the way that spawn faces.
func spawnDist(m *world.Map, p pageView) float64 {
	d, _ := nearestSpawn(m, p)
	return d
}

func spawnYaw(m *world.Map, p pageView) float64 {
	_, yaw := nearestSpawn(m, p)
	return yaw
}

func nearestSpawn(m *world.Map, p pageView) (float64, float64) {
	best, yaw := math.Inf(1), 0.0
	for _, sp := range m.Spawns {
		q := game.SnapPos(sp.Pos)
		if d := math.Hypot(q.X-p.Pos[0], q.Y-p.Pos[1]); d < best && sp.Team == p.Team {
			best, yaw = d, sp.Yaw
		}
	}
	return best, yaw
}

// checkNames checks what the two pages, red and blue, face to face at
// faceYaw, show: every player's name in the scoreboard, the other page's name over its head, their view turned the
// way the server placed them, and the server's net graph series: the
// tick's time and lateness, the policy, and the latency emulated on
// red's link (30 ms up, 50 down) and on none of blue's.
func checkNames(t *testing.T, faced []pageNames, faceYaw [2]float64) {
	t.Helper()
	if len(faced) != 2 {
		t.Fatalf("%d faced pages reported, want 2", len(faced))
	}
	names := []string{"red", "blue"}
	for i, f := range faced {
		seen := map[string]bool{}
		for _, r := range f.Rows {
			seen[r.Name] = true
		}
		if len(f.Rows) != 2 || !seen["red"] || !seen["blue"] {
			t.Errorf("%s: scoreboard rows %+v, want red and blue by name (the bots gave them their seats)", names[i], f.Rows)
		}
		other := names[1-i]
		if !strings.Contains(f.Board, other) || !strings.Contains(f.Board, names[i]+" (you)") || strings.Contains(f.Board, "#") {
			t.Errorf("%s: scoreboard %q, want every player by name", names[i], f.Board)
		}
		if !slices.Contains(f.Labels, other) {
			t.Errorf("%s: labels %q, want %q over its head", names[i], f.Labels, other)
		}
		if f.View.Place.Count != 3 || angleOff(f.View.Yaw, faceYaw[i]) > 0.02 {
			t.Errorf("%s: placed facing %.3f, the view at %.3f after %d placements", names[i], faceYaw[i], f.View.Yaw, f.View.Place.Count)
		}
		sv := f.Server
		if sv == nil {
			t.Errorf("%s: no server series in the net graph", names[i])
			continue
		}
		up, down := 0.0, 0.0
		if i == 0 {
			up, down = 30, 50
		}
		if sv.Policy != "tlc" || !(sv.TickMs > 0) || sv.TickLateMs < 0 || sv.EmulatedUpMs != up || sv.EmulatedDownMs != down ||
			sv.HeldUpMs != 0 || sv.HeldDownMs != 0 || sv.LossOut < 0 || sv.LossOut > 1 {
			t.Errorf("%s: server series %+v, want policy tlc, a tick time, emulated %v ms up and %v down", names[i], *sv, up, down)
		}
		if !strings.Contains(f.Net, "server tick") || !strings.Contains(f.Net, "policy tlc") || !strings.Contains(f.Net, fmt.Sprintf("injected up %.0f ms  down %.0f", up, down)) {
			t.Errorf("%s: net graph %q, want the server's tick, policy and injected latency", names[i], f.Net)
		}
	}
}

// TestQueryInBrowser loads the page with query parameters it cannot
// honour: an empty name, one of 33 bytes, one with a control character,
// ?spectate=abc, ?transport=quic, ?interp=-50 and ?worker=maybe. Each
// shows an error box over everything, naming the parameter, with the
// menu's "Click to play" (which would do nothing) hidden, and joins no
// seat: the page had left "Click to play" doing nothing over a dimmed
// error, joined as a player on ?spectate=abc (pushing out a bot), and
// ignored ?transport=websocket and ?interp=-50 without a word. The
// accepted spellings work: ?transport=websocket plays over WebSocket
// with ?interp=150's delay (and at 640×360 its scoreboard on Tab is not
// under the net graph, and has a ping column), and ?spectate=true
// spectates.
func TestQueryInBrowser(t *testing.T) {
	node, playwright := browserEnv(t)
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	h := newHost()
	m, base := serveMatch(t, ctx, h, HandlerWith(Options{Host: h}), realtime.MatchConfig{Map: "metro", Mode: "tdm", Seats: 4, Bots: 2})
	bad := map[string]string{
		"?name=":                           "?name=",
		"?name=" + strings.Repeat("a", 33): "33 bytes",
		"?name=a%07b":                      "control character",
		"?spectate=abc":                    "?spectate=",
		"?transport=quic":                  "?transport=",
		"?interp=-50":                      "?interp=",
		"?worker=maybe":                    "?worker=",
	}
	queries := []string{}
	for q := range bad {
		queries = append(queries, q)
	}
	sort.Strings(queries)
	queries = append(queries, "?name=alice&transport=websocket&interp=150", "?spectate=true")
	cmd := nodeScript(ctx, node, playwright, "browser/query.mjs", append([]string{base}, queries...)...)
	if *imagesDir != "" {
		cmd.Env = append(cmd.Env, "BOARD_SHOT="+filepath.Join(*imagesDir, "browser-640x360-board.png"))
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("query.mjs: %v\n%s\n%s", err, out, stderr.String())
	}
	t.Logf("query.mjs: %s", out)
	seen := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var r struct {
			Query, Transport                   string
			Fatal                              *string
			OnTop, Menu, Spectating, Connected bool
			Overlap                            float64
			BoardHead                          []string
			InterpMs                           float64
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("query.mjs printed %q: %v", line, err)
		}
		seen++
		if want, ok := bad[r.Query]; ok {
			if r.Fatal == nil || !strings.Contains(*r.Fatal, want) || !r.OnTop || r.Menu || r.Connected || r.Spectating {
				t.Errorf("%s: error box %v (on top %v), menu shown %v, connected %v, spectating %v; want an error naming %q on top, no menu, no game",
					r.Query, r.Fatal, r.OnTop, r.Menu, r.Connected, r.Spectating, want)
			}
			continue
		}
		switch {
		case strings.HasPrefix(r.Query, "?name=alice"):
			if r.Fatal != nil || !r.Connected || r.Transport != "websocket" || r.InterpMs < 140 || r.InterpMs > 200 {
				t.Errorf("%s: error %v, connected %v over %q with %v ms of interpolation; want playing over websocket with 150 ms", r.Query, r.Fatal, r.Connected, r.Transport, r.InterpMs)
			}
			if !slices.Contains(r.BoardHead, "ping") {
				t.Errorf("%s: the scoreboard's columns %q; want a ping column in free play", r.Query, r.BoardHead)
			}
			if r.Overlap != 0 {
				t.Errorf("%s: at 640×360 the net graph covers %.0f px² of the scoreboard (-1: no scoreboard); want none", r.Query, r.Overlap)
			}
		case r.Query == "?spectate=true":
			if r.Fatal != nil || !r.Spectating || r.Connected {
				t.Errorf("%s: error %v, spectating %v, connected %v; want spectating", r.Query, r.Fatal, r.Spectating, r.Connected)
			}
		}
	}
	if seen != len(queries) {
		t.Errorf("%d queries reported, want %d", seen, len(queries))
	}
	info, err := m.Info()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range info.Players {
		if !p.Bot && p.Name != "alice" {
			t.Errorf("the match seated %q; only alice asked to play", p.Name)
		}
	}
}
