package web

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/realtime"
	"github.com/lagkit/lagkit/server"
)

// crossKills is a referee that, from a few seconds after a person
// joined, has two bots of one team and two of the other kill across in
// one tick, twice: the lower seat of team A kills the higher of team B
// while the lower of B kills the higher of A. A page that paired deaths
// (in seat order) with rises in the scoreboard's kills (in seat order)
// named each victim's teammate as its killer. It keeps every kill the
// server handed over, and the crossing ones; once it made both rounds it
// writes the feed lines they should show to the file want (a JSON array)
// for the page's script to wait for.
type crossKills struct {
	want    string
	mu      sync.Mutex
	next    time.Duration // 0: nobody joined yet
	rounds  int
	kills   [][2]int // killer, victim
	crossed [][2]int
	teams   map[int]int
}

func (x *crossKills) tick(s *server.Server, r *server.Ready) {
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, k := range r.Kills {
		x.kills = append(x.kills, [2]int{k.Killer, k.Victim})
		x.teams[k.Killer], x.teams[k.Victim] = k.KillerTeam, k.VictimTeam
	}
	var team [2][]int
	for id := range s.MaxClients() {
		c, ok := s.Client(id)
		switch {
		case !ok:
		case !strings.HasPrefix(c.Name, "bot"):
			if x.next == 0 {
				x.next = s.Time() + 3*time.Second // the page's feed is up by then
			}
		case !c.State.Has(game.FlagDead) && !c.State.Has(game.FlagProtected):
			team[c.Team] = append(team[c.Team], id)
		}
	}
	if now := s.Time(); x.next == 0 || now < x.next || x.rounds >= 2 {
		return
	}
	for _, ab := range [][2]int{{0, 1}, {1, 0}} {
		a, b := team[ab[0]], team[ab[1]]
		if len(a) < 2 || len(b) < 2 {
			return
		}
		// Seats ascend within a team: k1 < v1 in A, k2 < v2 in B.
		k1, v1, k2, v2 := a[0], a[1], b[0], b[1]
		if k1 > k2 || v1 > v2 {
			continue
		}
		_, _ = s.Damage(v2, 1000, k1)
		_, _ = s.Damage(v1, 1000, k2)
		x.crossed = append(x.crossed, [2]int{k1, v2}, [2]int{k2, v1})
		x.rounds++
		x.next = s.Time() + 5*time.Second
		if x.rounds == 2 {
			x.writeWant(s)
		}
		return
	}
}

// writeWant writes the feed lines of the crossing kills, by name, to
// x.want: to a temporary file first, so the script reads it whole.
func (x *crossKills) writeWant(s *server.Server) {
	name := func(id int) string { c, _ := s.Client(id); return c.Name }
	var lines []string
	for _, k := range x.crossed {
		lines = append(lines, name(k[0])+" ✕ "+name(k[1]))
	}
	raw, _ := json.Marshal(lines)
	if err := os.WriteFile(x.want+".tmp", raw, 0o600); err == nil {
		_ = os.Rename(x.want+".tmp", x.want)
	}
}

// TestKillFeedInBrowser: the page's kill feed names the killer the
// server judged, from its kill events, even when two kills cross in one
// tick (browser/killfeed.mjs): every line is a kill the server made,
// and none has a player killing a teammate (the match has no friendly
// fire).
func TestKillFeedInBrowser(t *testing.T) {
	node, playwright := browserEnv(t)
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	h := newHost()
	ref := &crossKills{teams: map[int]int{}, want: filepath.Join(t.TempDir(), "want.json")}
	// Six seats: five bots beside the page, at least two on each team.
	_, base := serveMatch(t, ctx, h, HandlerWith(Options{Host: h}), realtime.MatchConfig{
		Map: "metro", Mode: "tdm", Seats: 6, Bots: 6, BotSkill: 0.01, OnTick: ref.tick,
	})
	cmd := nodeScript(ctx, node, playwright, "browser/killfeed.mjs", base, ref.want)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	raw, err := cmd.Output()
	if err != nil {
		t.Fatalf("killfeed.mjs: %v\n%s", err, stderr.String())
	}
	t.Logf("killfeed.mjs: %s", raw)
	var run struct {
		Lines []string
		Rows  []struct {
			ID   int
			Name string
			Team int
		}
		ID int
	}
	if err := json.Unmarshal(raw, &run); err != nil {
		t.Fatal(err)
	}
	ids := map[string]int{"you": run.ID}
	for _, r := range run.Rows {
		ids[r.Name] = r.ID
	}
	ref.mu.Lock()
	defer ref.mu.Unlock()
	made := map[[2]int]int{}
	for _, k := range ref.kills {
		made[k]++
	}
	if ref.rounds < 2 {
		t.Fatalf("the referee crossed kills %d times, want 2", ref.rounds)
	}
	shown := map[[2]int]int{}
	for _, l := range run.Lines {
		killer, victim, ok := strings.Cut(l, " ✕ ")
		if !ok {
			continue // a death by no one
		}
		k, ok1 := ids[killer]
		v, ok2 := ids[victim]
		if !ok1 || !ok2 {
			t.Errorf("feed line %q names a player not on the scoreboard %+v", l, run.Rows)
			continue
		}
		if ref.teams[k] == ref.teams[v] && k != v {
			t.Errorf("feed line %q has %d kill its teammate %d; the server made %v", l, k, v, ref.kills)
		}
		if made[[2]int{k, v}] == 0 {
			t.Errorf("feed line %q: the server made no kill of %d by %d (it made %v)", l, v, k, ref.kills)
		}
		shown[[2]int{k, v}]++
	}
	for _, k := range ref.crossed {
		if shown[k] == 0 {
			t.Errorf("the crossing kill of %d by %d is not in the feed %q", k[1], k[0], run.Lines)
		}
	}
}
