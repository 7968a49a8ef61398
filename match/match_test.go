package match

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/lagkit/lagkit/lagcomp"
)

func policy(name string) lagcomp.Config { return lagcomp.Config{Name: name} }

// TestSameSeedSameMatch: a match is a function of its configuration.
func TestSameSeedSameMatch(t *testing.T) {
	cfg := Config{Bots: 6, Duration: 20 * time.Second, Seed: 4, HighPingFraction: 0.5, HighPingMS: 200, Policy: policy("alc")}
	var log1, log2 bytes.Buffer
	a, err := Run(cfg, &log1)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Run(cfg, &log2)
	a.Match.WallS, b.Match.WallS = 0, 0
	if !reflect.DeepEqual(a.Players, b.Players) || a.Match != b.Match || !bytes.Equal(log1.Bytes(), log2.Bytes()) {
		t.Fatalf("seed %d gave two different matches: %s vs %s", cfg.Seed, a.Match.StateHash, b.Match.StateHash)
	}
	cfg.Seed = 5
	c, _ := Run(cfg, nil)
	if c.Match.StateHash == a.Match.StateHash {
		t.Fatal("seeds 4 and 5 gave the same match")
	}
}

// TestMatchPlays checks the bots play: they shoot, hit, die and move, and
// the log holds shots, kills and spawns in time order.
func TestMatchPlays(t *testing.T) {
	var log bytes.Buffer
	r, err := Run(Config{Bots: 8, Duration: time.Minute, Seed: 1}, &log)
	if err != nil {
		t.Fatal(err)
	}
	kills := 0
	for _, p := range r.Players {
		if p.Shots < 10 || p.DistanceM < 30 {
			t.Errorf("player %d: %d shots, %.0f m walked", p.ID, p.Shots, p.DistanceM)
		}
		if p.HitAccuracy > 0.6 {
			t.Errorf("player %d: accuracy %.2f", p.ID, p.HitAccuracy)
		}
		kills += p.Kills
	}
	if kills == 0 {
		t.Error("nobody was killed in a minute")
	}
	types := map[string]int{}
	last := -1.0
	for _, line := range strings.Split(strings.TrimSpace(log.String()), "\n") {
		var l struct {
			T    float64 `json:"t"`
			Type string  `json:"type"`
		}
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			t.Fatalf("bad log line %q: %v", line, err)
		}
		if l.T < last {
			t.Fatalf("log out of time order at %q", line)
		}
		last = l.T
		types[l.Type]++
	}
	for _, want := range []string{"shot", "kill", "spawn", "connect"} {
		if types[want] == 0 {
			t.Errorf("no %q events in the log (%v)", want, types)
		}
	}
}

// TestHighPingPlayersEvenlySplit: the high-ping fraction picks players
// from each team evenly.
func TestHighPingPlayersEvenlySplit(t *testing.T) {
	c := Config{Bots: 12, HighPingFraction: 0.5, HighPingMS: 250, BaseRTTms: 20, Seed: 3, Latency: map[int]float64{0: 80}}
	rtts := c.latencies()
	var high [2]int
	for i, r := range rtts {
		if r == 250 {
			high[i%2]++
		}
	}
	if rtts[0] != 80 {
		t.Errorf("explicit latency for player 0 not applied: %v", rtts[0])
	}
	if high[1] != 3 || high[0] < 2 {
		t.Errorf("high-ping players per team %v, want 3 each (player 0 overridden)", high)
	}
}

func TestConfigErrors(t *testing.T) {
	for _, c := range []Config{
		{Bots: -1}, {Bots: 500}, {Map: "nowhere"}, {Mode: "golf"}, {Loss: 2},
		{HighPingFraction: 1.5}, {Latency: map[int]float64{40: 100}}, {Policy: policy("magic")},
	} {
		if _, err := Run(c, nil); err == nil {
			t.Errorf("%+v accepted", c)
		}
	}
}
