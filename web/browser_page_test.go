package web

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
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

// pageRun is what browser/page.mjs reports at its end.
type pageRun struct {
	Spawned, Placed []pageView
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
	var stderr strings.Builder
	cmd.Stderr = &stderr
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
	placeYaw := []float64{1.0, 2.5}
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
		best, yaw := math.Inf(1), 0.0
		for _, sp := range metro.Spawns {
			q := game.SnapPos(sp.Pos)
			if d := math.Hypot(q.X-p.Pos[0], q.Y-p.Pos[1]); d < best && sp.Team == p.Team {
				best, yaw = d, sp.Yaw
			}
		}
		if best > 0.1 {
			t.Errorf("page %d (team %d) at %v, %.2f m from its team's nearest spawn", i, p.Team, p.Pos, best)
		}
		if off := angleOff(p.ViewYaw, yaw); off > 0.02 {
			t.Errorf("page %d (team %d) spawned looking at yaw %.3f, its spawn faces %.3f", i, p.Team, p.ViewYaw, yaw)
		}
		// A teleport's yaw reaches the page in the first snapshot after
		// it, unless a command the page sent before it heard of the
		// teleport turned the server's player first (the server runs
		// commands before it sends the tick's snapshot): the view takes
		// what the snapshot says.
		q := run.Placed[i]
		if q.Place.Count != 2 || angleOff(q.ViewYaw, q.Place.Yaw) > 0.02 {
			t.Errorf("page %d placed: placement %+v, view at yaw %.3f; want the second placement's yaw", i, q.Place, q.ViewYaw)
		}
		t.Logf("page %d placed facing %.3f: the snapshot said %.3f", i, placeYaw[i], q.Place.Yaw)
	}
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
