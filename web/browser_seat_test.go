package web

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/lagkit/lagkit/realtime"
	"github.com/lagkit/lagkit/world"
)

// TestSeatFromBotInBrowser joins pages to a match of 18 bots on metro
// (browser/seat.mjs), each taking a bot's seat, until one is on team 1:
// from its first frame drawn connected each looks the way its spawn
// faces, in its view and in its player's yaw (state().yaw), as the
// first page of a fresh server does. The page turns its view when it
// draws the frame that tells of its spawn; before, the client core's
// worker ticked with the input the page sent before, and aimed the
// player at yaw 0 (the team-1 spawns' back wall) for the first frames.
func TestSeatFromBotInBrowser(t *testing.T) {
	node, playwright := browserEnv(t)
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	const seats = 18
	m, base := serveMatch(t, ctx, newHost(), Handler(), realtime.MatchConfig{Map: "metro", Mode: "tdm", Seats: seats, Bots: seats})
	metro, err := world.Load("metro")
	if err != nil {
		t.Fatal(err)
	}
	for range 400 {
		if info, err := m.Info(); err == nil && info.Bots == seats && len(info.Players) == seats {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	// The most people the match had at once while every seat was
	// taken: each page took a bot's seat.
	humans := make(chan int, 1)
	watch, stop := context.WithCancel(ctx)
	go func() {
		most := 0
		for watch.Err() == nil {
			if info, err := m.Info(); err == nil && info.Humans+info.Bots == seats {
				most = max(most, info.Humans)
			}
			time.Sleep(20 * time.Millisecond)
		}
		humans <- most
	}()
	cmd := nodeScript(ctx, node, playwright, "browser/seat.mjs", base)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	raw, err := cmd.Output()
	stop()
	if err != nil {
		t.Fatalf("seat.mjs: %v\n%s", err, stderr.String())
	}
	var run struct {
		Pages []struct {
			Name   string
			Frames []struct {
				Frame, Tick, Team, ID int
				ViewYaw, Yaw          float64
				Place                 struct{ Count int }
				Pos                   [3]float64
			}
		}
	}
	if err := json.Unmarshal(raw, &run); err != nil {
		t.Fatalf("seat.mjs printed %s: %v", raw, err)
	}
	if n := len(run.Pages); n == 0 || run.Pages[n-1].Frames[0].Team != 1 {
		t.Fatalf("%d pages, none on team 1: %s", n, raw)
	}
	if most := <-humans; most != len(run.Pages) {
		t.Errorf("%d pages joined, the match had at most %d people beside bots in its %d seats: want each page in a bot's seat", len(run.Pages), most, seats)
	}
	for _, p := range run.Pages {
		f0 := p.Frames[0]
		want := spawnYaw(metro, pageView{Team: f0.Team, Pos: f0.Pos})
		if d := spawnDist(metro, pageView{Team: f0.Team, Pos: f0.Pos}); d > 0.1 {
			t.Errorf("%s (team %d) at %v, %.2f m from its team's nearest spawn", p.Name, f0.Team, f0.Pos, d)
		}
		for i, f := range p.Frames[:min(len(p.Frames), 10)] {
			t.Logf("%s frame %d: %+v", p.Name, i, f)
			if angleOff(f.ViewYaw, want) > 0.02 || angleOff(f.Yaw, want) > 0.02 {
				t.Errorf("%s (team %d) frame %d after connected (tick %d): the view looks at yaw %.3f, the player at %.3f, its spawn faces %.3f (placements heard of: %d)",
					p.Name, f.Team, i, f.Tick, f.ViewYaw, f.Yaw, want, f.Place.Count)
			}
		}
	}
}
