package realtime

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lagkit/lagkit/internal/walltest"
	"github.com/lagkit/lagkit/shooter"

	"github.com/lagkit/lagkit/client"
	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/nav"
	"github.com/lagkit/lagkit/shooter/bots"
	"github.com/lagkit/lagkit/shooter/weapon"
	"github.com/lagkit/lagkit/transport"
	"github.com/lagkit/lagkit/wire"
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
	weapon := weapon.Rifle()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	out := make([]botResult, n)
	var wg sync.WaitGroup
	for i := range n {
		b, err := bots.New(bots.Config{Skill: 0.9, Attacker: i%4 != 3}, m, grid, &params, &weapon, uint64(i+1))
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
			cc := shooter.Client(client.Config{Map: m, Movement: &params, Name: fmt.Sprintf("bot%d", i)})
			out[i].stats, out[i].err = RunClient(ctx, conn, ClientConfig{Client: cc, Brain: b})
		}()
	}
	wg.Wait()
	return out
}

// checkPlay asserts what every live run must show: every bot connected and
// received snapshots at about the tick rate, hits registered, and the bot
// with injected latency measured it.
func checkPlay(t *testing.T, res []botResult, d time.Duration, tickRate int, slowRTT float64, slow ...int) {
	t.Helper()
	hits := 0
	for i, r := range res {
		if r.err != nil {
			t.Errorf("bot %d: %v", i, r.err)
			continue
		}
		// Snapshots arrived, and no more than the tick rate sends: how
		// many depends on how busy the machine is, not on lagkit.
		if most := int(float64(tickRate)*d.Seconds()) + 1; r.stats.Snapshots == 0 || r.stats.Snapshots > most {
			t.Errorf("bot %d: %d snapshots, want 1 to %d", i, r.stats.Snapshots, most)
		}
		hits += r.stats.Hits
		// Movement is predicted exactly (game.Move snapped to the wire's
		// grid); only respawns, which the client cannot foresee, move a
		// player away from its prediction.
		if r.stats.PredErrMeanM > 0.25 {
			t.Errorf("bot %d: mean prediction error %.3f m, want under 0.25", i, r.stats.PredErrMeanM)
		}
	}
	if hits == 0 {
		t.Errorf("no hit registered in %v of play", d)
	}
	// The injected latency is a floor no measurement beats; a busy
	// machine only adds to every bot's round trip, so the fastest slow
	// bot still measures more than the slowest bot without it.
	fastest, slowest := math.Inf(1), 0.0
	for i, r := range res {
		if slices.Contains(slow, i) {
			fastest = min(fastest, r.stats.RTTMedianMS)
		} else {
			slowest = max(slowest, r.stats.RTTMedianMS)
		}
	}
	for _, i := range slow {
		if got := res[i].stats.RTTMedianMS; got < slowRTT-1 {
			t.Errorf("bot %d with %.0f ms injected measured %.1f ms, less than injected", i, slowRTT, got)
		}
		t.Logf("slow bot %d rtt %.1f ms", i, res[i].stats.RTTMeanMS)
	}
	if len(slow) > 0 && len(slow) < len(res) && fastest <= slowest {
		t.Errorf("bots with %.0f ms injected measured from %.1f ms, others up to %.1f ms", slowRTT, fastest, slowest)
	}
	t.Logf("hits %d; bot 0 %+v", hits, res[0].stats)
}

// slowRule injects rtt/2 each way for the player named bot<slow>.
func slowRule(slow int, rtt float64) []LinkRule {
	return []LinkRule{{Player: fmt.Sprintf("bot%d", slow), Up: LinkConfig{LatencyMS: rtt / 2}, Down: LinkConfig{LatencyMS: rtt / 2}}}
}

// TestBotsFillSeats runs a match whose seats server-side bots fill; a
// person joining takes a bot's seat, gets the latency set for it while
// the match runs, and is told why when the match ends.
func TestBotsFillSeats(t *testing.T) {
	h := NewHost(quiet, nil)
	m, err := h.Start(MatchConfig{Map: "arena", Mode: "tdm", Seats: 4, Bots: 4})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, m, "four bots seated", func(i MatchInfo) bool { return len(i.Players) == 4 && i.Bots == 4 })

	srvEnd, cliEnd := Pipe("alice", "server", 256)
	if err := m.Add(srvEnd); err != nil {
		t.Fatal(err)
	}
	if err := m.SetLatency([]LinkRule{{Player: "alice", Up: LinkConfig{LatencyMS: 50}, Down: LinkConfig{LatencyMS: 50}}}); err != nil {
		t.Fatal(err)
	}
	arena, err := world.Load("arena")
	if err != nil {
		t.Fatal(err)
	}
	live := &LiveStats{}
	done := make(chan error, 1)
	go func() {
		_, err := RunClient(context.Background(), cliEnd, ClientConfig{Client: shooter.Client(client.Config{Map: arena, Name: "alice"}), Stats: live})
		done <- err
	}()
	waitFor(t, m, "alice in a bot's seat", func(i MatchInfo) bool {
		return i.Humans == 1 && i.Bots == 3 && len(i.Players) == 4
	})
	// A second person takes another bot's seat; when their connection
	// closes, the server drops them and a bot takes the seat back.
	bobSrv, bobCli := Pipe("bob", "server", 256)
	if err := m.Add(bobSrv); err != nil {
		t.Fatal(err)
	}
	bobDone := make(chan error, 1)
	go func() {
		_, err := RunClient(context.Background(), bobCli, ClientConfig{Client: shooter.Client(client.Config{Map: arena, Name: "bob"})})
		bobDone <- err
	}()
	waitFor(t, m, "bob in a bot's seat", func(i MatchInfo) bool { return i.Humans == 2 && i.Bots == 2 && len(i.Players) == 4 })
	_ = bobCli.Close("bob quits")
	if err := <-bobDone; err == nil || !strings.Contains(err.Error(), "bob quits") {
		t.Errorf("bob's session ended with %v, want the connection's close", err)
	}
	waitFor(t, m, "a bot back in bob's seat", func(i MatchInfo) bool {
		for _, p := range i.Players {
			if p.Name == "bob" {
				return false
			}
		}
		return i.Humans == 1 && i.Bots == 3 && len(i.Players) == 4
	})
	// Two seconds before the round trip is sampled, then samples: the
	// injected 50 ms each way is a floor no measurement can beat (a busy
	// machine only adds to it).
	deadline := time.Now().Add(20 * time.Second)
	for live.Get().RTTMeanMS == 0 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	if st := live.Get(); st.Snapshots == 0 || st.RTTMeanMS < 99 {
		t.Errorf("alice: %d snapshots, round trip %.1f ms, want at least the 100 ms injected", st.Snapshots, st.RTTMeanMS)
	}
	if err := m.End(context.Background(), "test over"); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Errorf("alice: %v", err)
	}
	if st := live.Get(); !strings.Contains(st.Reason, "test over") {
		t.Errorf("alice was told %q, want the match's reason", st.Reason)
	}
}

// waitFor polls m until ok holds, failing after five seconds.
func waitFor(t *testing.T, m *Match, what string, ok func(MatchInfo) bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		info, err := m.Info()
		if err != nil {
			t.Fatalf("waiting for %s: %v", what, err)
		}
		if ok(info) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("waiting for %s: gave up at %+v", what, info)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestMatchOverEachTransport plays nine native bots in one match for
// ten seconds of wall time, three over each transport a host serves: UDP
// on loopback, WebTransport datagrams through the webtransport-go
// dialer, and WebSocket (TLS, the Web server's fallback for browsers
// without WebTransport); one of each three behind 100 ms of injected
// round trip. One match for the three (they used to play one each, eight
// bots for eight to ten seconds apiece) tests the same paths in a third
// of the wall time, and the transports side by side in one match.
func TestMatchOverEachTransport(t *testing.T) {
	if testing.Short() {
		t.Skip("ten seconds of wall time")
	}
	walltest.Lock(t)
	h := NewHost(quiet, nil)
	l, err := transport.ListenUDP("127.0.0.1:0", transport.UDPOptions{Unrouted: h.UDPUnrouted})
	if err != nil {
		t.Fatal(err)
	}
	w, err := transport.NewWeb(transport.WebOptions{})
	if err != nil {
		l.Close()
		t.Fatal(err)
	}
	slow := []int{1, 4, 7}
	var rules []LinkRule
	for _, i := range slow {
		rules = append(rules, slowRule(i, 100)...)
	}
	m, err := h.Start(MatchConfig{Map: "arena", Mode: "tdm", Seats: 9, Latency: rules})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var serving sync.WaitGroup
	for _, lis := range []transport.Listener{l, w} {
		serving.Add(1)
		go func() {
			defer serving.Done()
			if err := h.Serve(ctx, lis); err != nil {
				t.Error(err)
			}
		}()
	}
	defer func() {
		cancel()
		_ = l.Close()
		_ = w.Close()
		serving.Wait()
		if err := h.Shutdown(context.Background(), "test over"); err != nil {
			t.Error(err)
		}
	}()
	urls := []string{"udp://" + l.Addr(), "wt://" + w.Addr(), "wss://" + w.Addr()}
	peers := []string{"udp:", "wt:", "ws"}
	opts := transport.DialOptions{TLS: transport.ClientTLS{CertHash: w.CertHash()}}
	d := 10 * time.Second
	res := playBots(t, "arena", 9, d, func(i int) (transport.Conn, error) {
		c, err := transport.Dial(context.Background(), urls[i/3], opts)
		if err == nil && !strings.HasPrefix(c.Peer(), peers[i/3]) {
			t.Errorf("dialled %s, got a session to %s", urls[i/3], c.Peer())
		}
		return c, err
	})
	info, err := m.Info()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("ticks %+v", info.Ticks)
	checkPlay(t, res, d, 64, 100, slow...)
	if info.Ticks.Ticks == 0 || info.Ticks.Count == 0 {
		t.Errorf("no tick accounted: %+v", info.Ticks)
	}
}

// TestRejoinTakesTheBotSeatAsked: a person coming back to a match whose
// seats bots fill (a restarted server's) asks for its old seat and team
// (wire.Rejoin), and the bot sitting there gives it up, not the newest
// bot: the person sits where it sat before.
func TestRejoinTakesTheBotSeatAsked(t *testing.T) {
	h := NewHost(quiet, nil)
	m, err := h.Start(MatchConfig{Map: "arena", Mode: "tdm", Seats: 4, Bots: 4})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, m, "four bots seated", func(i MatchInfo) bool { return len(i.Players) == 4 && i.Bots == 4 })
	info, err := m.Info()
	if err != nil {
		t.Fatal(err)
	}
	// The oldest bot, the last to give up its seat by arrival alone.
	var oldest Player
	for _, p := range info.Players {
		if p.Name == "bot1" {
			oldest = p
		}
	}
	if oldest.Name == "" {
		t.Fatalf("no bot1 among %+v", info.Players)
	}
	srvEnd, cliEnd := Pipe("alice", "server", 256)
	if err := m.Add(srvEnd); err != nil {
		t.Fatal(err)
	}
	arena, err := world.Load("arena")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		rejoin := wire.Rejoin{Asked: true, Seat: uint8(oldest.Seat), Team: uint8(oldest.Team)}
		_, err := RunClient(ctx, cliEnd, ClientConfig{Client: shooter.Client(client.Config{Map: arena, Name: "alice", Rejoin: rejoin})})
		done <- err
	}()
	waitFor(t, m, "alice in bot1's seat", func(i MatchInfo) bool {
		for _, p := range i.Players {
			if p.Name == "alice" {
				if p.Seat != oldest.Seat || p.Team != oldest.Team {
					t.Fatalf("alice asked for seat %d, team %d and got seat %d, team %d", oldest.Seat, oldest.Team, p.Seat, p.Team)
				}
				return i.Bots == 3
			}
		}
		return false
	})
	if err := m.End(context.Background(), "test over"); err != nil {
		t.Fatal(err)
	}
	<-done
}
