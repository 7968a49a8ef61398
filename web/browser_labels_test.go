package web

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/lagkit/lagkit/bot"
	"github.com/lagkit/lagkit/client"
	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/realtime"
)

// standStill is a bot that stands where it is put, holding its weapon.
type standStill struct{}

func (standStill) Input(time.Duration, *client.Client) game.UserCmd { return game.UserCmd{Weapon: 255} }

// TestLabelsInCrowdInBrowser puts eight players in a crowd in front of
// a page on metro (browser/labels.mjs): side by side and one behind
// another, 6 to 18 m away. The labels over their heads do not overlap:
// the page moves a farther player's label a row or two up or down,
// clear of the nearer ones', or leaves it out, and still labels at
// least five of them by name. Before,
// every label sat over its own head, and the crowd's were one pile.
// With -images DIR it keeps browser-labels-crowd.png in DIR.
func TestLabelsInCrowdInBrowser(t *testing.T) {
	node, playwright := browserEnv(t)
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	still := func(int, uint64) (bot.Policy, error) { return standStill{}, nil }
	m, base := serveMatch(t, ctx, newHost(), Handler(), realtime.MatchConfig{Map: "metro", Mode: "tdm", Seats: 10, Bots: 9, BotPolicy: still})
	out := t.TempDir()
	if *imagesDir != "" {
		out = *imagesDir
	}
	cmd := nodeScript(ctx, node, playwright, "browser/labels.mjs", base, out)
	stdin, stdout, stderr := startScript(t, cmd)
	var run struct {
		Labels []struct {
			Text string
			Box  [4]float64
		}
		Resolved   struct{ Shown, Moved, Hidden int }
		Screenshot string
	}
	// The crowd, down the open lane north of metro's middle walls
	// (y 1.5 to 4.25), seen from its west end facing east.
	crowd := [][2]float64{{-22, 2.6}, {-22, 3.4}, {-19, 3}, {-16, 2.5}, {-16, 3.5}, {-13, 3}, {-10, 3}, {-10, 2.2}}
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 1<<20)
	bots := []string{}
	for sc.Scan() {
		var step struct {
			Step string
			ID   int
		}
		if err := json.Unmarshal(sc.Bytes(), &step); err != nil {
			t.Fatalf("labels.mjs printed %q: %v", sc.Text(), err)
		}
		t.Logf("labels.mjs: %s", sc.Text())
		switch step.Step {
		case "joined":
			info, err := m.Info()
			if err != nil {
				t.Fatal(err)
			}
			if err := m.Place(step.ID, geom.V(-28, 3, 0), 0); err != nil {
				t.Fatal(err)
			}
			k := 0
			for _, p := range info.Players {
				if !p.Bot || k == len(crowd) {
					continue
				}
				if err := m.Place(p.Seat, geom.V(crowd[k][0], crowd[k][1], 0), 0); err != nil {
					t.Fatal(err)
				}
				bots = append(bots, p.Name)
				k++
			}
			if k < len(crowd) {
				t.Fatalf("%d bots to place, want %d: %+v", k, len(crowd), info.Players)
			}
			fmt.Fprintln(stdin, "crowd")
			stdin.Close()
		case "done":
			if err := json.Unmarshal(sc.Bytes(), &run); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("labels.mjs: %v\n%s", err, stderr.String())
	}
	if len(run.Labels) < 5 {
		t.Errorf("%d labels shown over a crowd of %d in the open, want at least 5: %+v", len(run.Labels), len(crowd), run.Labels)
	}
	for _, l := range run.Labels {
		named := false
		for _, b := range bots {
			named = named || l.Text == b
		}
		if !named {
			t.Errorf("label %q, want a bot's name (%v)", l.Text, bots)
		}
	}
	for i, a := range run.Labels {
		for _, b := range run.Labels[i+1:] {
			if a.Box[0] < b.Box[2] && b.Box[0] < a.Box[2] && a.Box[1] < b.Box[3] && b.Box[1] < a.Box[3] {
				t.Errorf("labels %q at %v and %q at %v overlap", a.Text, a.Box, b.Text, b.Box)
			}
		}
	}
	if r := run.Resolved; r.Shown != len(run.Labels) || r.Moved+r.Hidden == 0 {
		t.Errorf("the page says it showed %d labels (%d shown in the page), moved %d and left out %d: want the crowd's labels to have met", r.Shown, len(run.Labels), r.Moved, r.Hidden)
	}
	if st, err := os.Stat(run.Screenshot); err != nil || st.Size() < 10000 {
		t.Errorf("screenshot %s: %v", run.Screenshot, err)
	}
}
