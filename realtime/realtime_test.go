package realtime

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/lagkit/lagkit/bot"
	"github.com/lagkit/lagkit/client"
	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/nav"
	"github.com/lagkit/lagkit/transport"
	"github.com/lagkit/lagkit/world"
)

// quiet is a logger for tests.
var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// botResult is one test bot's session.
type botResult struct {
	stats ClientStats
	err   error
}

// playBots runs n bots on mapName for d, each over the connection dial
// returns, and returns their sessions.
func playBots(t *testing.T, mapName string, n int, d time.Duration, dial func(i int) (transport.Conn, error)) []botResult {
	t.Helper()
	m, err := world.Load(mapName)
	if err != nil {
		t.Fatal(err)
	}
	params := game.DefaultParams()
	grid, err := nav.Build(m, &params)
	if err != nil {
		t.Fatal(err)
	}
	weapon := game.Rifle()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	out := make([]botResult, n)
	var wg sync.WaitGroup
	for i := range n {
		b, err := bot.New(bot.Config{Skill: 0.9, Attacker: i%4 != 3}, m, grid, &params, &weapon, uint64(i+1))
		if err != nil {
			t.Fatal(err)
		}
		conn, err := dial(i)
		if err != nil {
			t.Fatalf("bot %d: dial: %v", i, err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			cc := client.Config{Map: m, Movement: &params, Name: fmt.Sprintf("bot%d", i)}
			out[i].stats, out[i].err = RunClient(ctx, conn, ClientConfig{Client: cc, Brain: b})
		}()
	}
	wg.Wait()
	return out
}

// checkPlay asserts what every live run must show: every bot connected and
// received snapshots at about the tick rate, hits registered, and the bot
// with injected latency measured it.
func checkPlay(t *testing.T, res []botResult, d time.Duration, tickRate int, slow int, slowRTT float64) {
	t.Helper()
	hits := 0
	for i, r := range res {
		if r.err != nil {
			t.Errorf("bot %d: %v", i, r.err)
			continue
		}
		// At least half the snapshots the tick rate sends in the time
		// after connecting: a loopback run loses none, but a loaded CI
		// machine may stall a bot's goroutine.
		if want := int(0.5 * float64(tickRate) * (d - time.Second).Seconds()); r.stats.Snapshots < want {
			t.Errorf("bot %d: %d snapshots, want at least %d", i, r.stats.Snapshots, want)
		}
		hits += r.stats.Hits
		if i != slow && r.stats.RTTMeanMS > 40 {
			t.Errorf("bot %d: round trip %.1f ms on loopback, want under 40", i, r.stats.RTTMeanMS)
		}
	}
	if hits == 0 {
		t.Errorf("no hit registered in %v of play", d)
	}
	if slow >= 0 {
		if got := res[slow].stats.RTTMeanMS; math.Abs(got-slowRTT) > 15 {
			t.Errorf("bot %d with %.0f ms injected measured %.1f ms, want within 15 ms", slow, slowRTT, got)
		}
	}
	t.Logf("hits %d; slow bot rtt %.1f ms", hits, res[max(slow, 0)].stats.RTTMeanMS)
}

// slowRule injects rtt/2 each way for the player named bot<slow>.
func slowRule(slow int, rtt float64) []LinkRule {
	return []LinkRule{{Player: fmt.Sprintf("bot%d", slow), Up: LinkConfig{LatencyMS: rtt / 2}, Down: LinkConfig{LatencyMS: rtt / 2}}}
}

func TestMatchOverPipes(t *testing.T) {
	h := NewHost(quiet, nil)
	m, err := h.Start(MatchConfig{Map: "arena", Mode: "tdm", Seats: 8, Latency: slowRule(3, 100)})
	if err != nil {
		t.Fatal(err)
	}
	d := 6 * time.Second
	res := playBots(t, "arena", 8, d, func(i int) (transport.Conn, error) {
		a, b := Pipe(fmt.Sprint("bot", i), "server", 256)
		return b, m.Add(a)
	})
	info, err := m.Info()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("ticks %+v", info.Ticks)
	checkPlay(t, res, d, 64, 3, 100)
	if err := h.Shutdown(context.Background(), "test over"); err != nil {
		t.Fatal(err)
	}
}
