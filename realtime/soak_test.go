package realtime

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/internal/walltest"
	"github.com/lagkit/lagkit/lagcomp"
	"github.com/lagkit/lagkit/record"
	"github.com/lagkit/lagkit/server"
	"github.com/lagkit/lagkit/token"
	"github.com/lagkit/lagkit/transport"
	"github.com/lagkit/lagkit/wire"
)

// longSoak reports whether the long forms of the soak and flood tests
// run: LAGKIT_SOAK=long go test ./realtime -run 'Soak|Flood' -v.
func longSoak() bool { return os.Getenv("LAGKIT_SOAK") == "long" }

// TestSoak plays bots over UDP on loopback through emulated links with
// loss and jitter, duplication and reordering, and 2 s blackouts, some of
// them leaving and reconnecting from the same port, under alc (so
// victims appeal), and
// checks what must hold however long it runs: no
// goroutine outlives the match, the live heap stays bounded, ticks stay
// within their budget at the 99th percentile, every session the bots
// left is gone, every bot kept receiving snapshots, and everything was
// delivered exactly once: each session's client delivered the events the
// server queued for it, in order, no duplicate, no gap, and the bots'
// SBC reports (one after each hit they take) are recorded once each
// (checkDelivery). The short form
// (20 s, 8 bots) runs in CI; LAGKIT_SOAK=long runs 3 minutes with 16.
func TestSoak(t *testing.T) {
	if testing.Short() {
		t.Skip("twenty seconds of wall time")
	}
	walltest.Lock(t)
	began := time.Now()
	d, bots := 20*time.Second, 8
	if longSoak() {
		d, bots = 3*time.Minute, 16
	}
	goroutines := runtime.NumGoroutine()
	var rules []LinkRule
	for i := range bots {
		var link LinkConfig
		switch i % 4 {
		case 1:
			link = LinkConfig{LatencyMS: 20, JitterMS: 10, Loss: 0.05}
		case 2:
			link = LinkConfig{LatencyMS: 40, JitterMS: 20, Loss: 0.2}
		case 3:
			link = LinkConfig{LatencyMS: 10, Duplicate: 0.05, Reorder: 0.1}
		default:
			continue
		}
		rules = append(rules, LinkRule{Player: fmt.Sprintf("bot%d", i), Up: link, Down: link})
	}
	// The clean links of bots that stay black out for 2 s (every packet
	// lost both ways) twice during the soak.
	blackout := slices.Clone(rules)
	for i := 4; i < bots; i += 4 {
		if i%3 == 0 {
			continue // reconnects: a connect lost in the dark may end its short session unseated
		}
		dark := LinkConfig{Loss: 1}
		blackout = append(blackout, LinkRule{Player: fmt.Sprintf("bot%d", i), Up: dark, Down: dark})
	}
	srv := serveMatch(t, MatchConfig{Map: "arena", Mode: "tdm", Seats: 2 * bots, Policy: lagcomp.Config{Name: "alc"}, Latency: rules})
	srvAcc, sink := NewAccount(), &record.Memory{}
	if srv.m.SetAccount(srvAcc) != nil || srv.m.SetSink(sink) != nil {
		t.Fatal("match ended")
	}
	kit := newBotKit(t, "arena")
	kit.account, kit.reports = NewAccount(), true
	var played sessionLog
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	// The bots that reconnect keep their port, as a restarted program
	// the OS gives its old port does: the goodbye of a session, delayed
	// or reordered on its link, may arrive after the next one's Connect.
	ports := make([]string, bots)
	for i := 0; i < bots; i += 3 {
		ports[i] = freePort(t)
	}
	var sessions, failures atomic.Int64
	lives, wait := runEach(bots, func(i int, live *LiveStats) {
		rng := rand.New(rand.NewPCG(uint64(i), 1))
		local := ""
		if i%3 == 0 {
			local = ports[i]
		}
		for ctx.Err() == nil {
			sctx, scancel := ctx, context.CancelFunc(func() {})
			if i%3 == 0 { // reconnects every few seconds, from the same port
				sctx, scancel = context.WithTimeout(ctx, time.Duration(3+rng.IntN(4))*time.Second)
			}
			cs, err := kit.playFrom(sctx, local, srv.addr, fmt.Sprintf("bot%d", i), uint64(i+1), nil, live)
			scancel()
			played.add(cs)
			sessions.Add(1)
			if err != nil && ctx.Err() == nil {
				failures.Add(1)
				t.Logf("bot %d: %v", i, err)
			}
		}
	})
	go func() {
		for _, at := range []time.Duration{d / 3, 2 * d / 3} {
			select {
			case <-ctx.Done():
				return
			case <-time.After(time.Until(deadline(ctx).Add(at - d))):
			}
			if srv.m.SetLatency(blackout) != nil {
				return
			}
			time.Sleep(2 * time.Second)
			if srv.m.SetLatency(rules) != nil {
				return
			}
		}
	}()
	time.Sleep(min(5*time.Second, d/4))
	mid := heapAfterGC()
	snapsMid := make([]int, bots)
	for i := range lives {
		snapsMid[i] = lives[i].Get().Snapshots
	}
	time.Sleep(time.Until(deadline(ctx)) - 2*time.Second)
	end := heapAfterGC()
	var stalled []int
	for i := range lives {
		if lives[i].Get().Snapshots == snapsMid[i] && i%3 != 0 {
			stalled = append(stalled, i)
		}
	}
	ticks, err := srv.m.TickStats(0)
	if err != nil {
		t.Fatal(err)
	}
	// The bots leave through clean links, so their goodbyes arrive.
	if err := srv.m.SetLatency(nil); err != nil {
		t.Fatal(err)
	}
	wait()
	playedFor := time.Since(began)
	gone := time.Now().Add(12 * time.Second) // a goodbye lost earlier: the core's 10 s timeout
	var left []Player
	for time.Now().Before(gone) {
		info, err := srv.m.Info()
		if err != nil {
			t.Fatal(err)
		}
		if left = info.Players; len(left) == 0 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("phases: played %v, every session gone %v after", playedFor.Round(time.Millisecond), time.Since(began.Add(playedFor)).Round(time.Millisecond))
	appeals := counter(t, srv.reg, "lagkit_appeals_total", nil)
	var dl delivery
	var st server.Stats
	if err := srv.m.do(func() {
		st = srv.m.srv.Stats()
		dl = checkDelivery(t, srvAcc, kit.account, played.s, sink.Records, st)
	}); err != nil {
		t.Fatal(err)
	}
	t.Logf("sessions restarted at the same address %d, goodbyes for another session ignored %d, appeal copies %d",
		st.Restarts, st.ForeignGoodbyes, st.AppealCopies)
	t.Logf("delivery: %v", dl)
	if dl.events == 0 || dl.recorded == 0 || dl.verdicts == 0 {
		t.Errorf("delivery %v: want events, reports recorded and appeal verdicts", dl)
	}
	drops := map[string]float64{}
	for _, r := range []string{DropQueueFull, DropSend, DropMalformed, DropEmulated, DropNoPeer, DropToken} {
		drops[r] = counter(t, srv.reg, "lagkit_datagrams_dropped_total", map[string]string{"reason": r})
	}
	t.Logf("soak %v, %d bots: %d sessions (%d failed), datagrams %.0f in, %.0f out, drops %v, ticks %+v, heap %d -> %d KiB, peak RSS %d MiB, appeals settled %.0f",
		d, bots, sessions.Load(), failures.Load(), counter(t, srv.reg, "lagkit_datagrams_in_total", nil), counter(t, srv.reg, "lagkit_datagrams_out_total", nil),
		drops, ticks, mid>>10, end>>10, peakRSS()>>20, appeals)
	if len(left) > 0 {
		t.Errorf("sessions left after every bot went: %+v", left)
	}
	if len(stalled) > 0 {
		t.Errorf("bots %v received no snapshot in the second half", stalled)
	}
	if failures.Load() > 0 {
		t.Errorf("%d sessions failed", failures.Load())
	}
	// How long ticks take depends on what else the machine runs: the
	// figure is logged, and the tick benchmarks hold the goal.
	t.Logf("tick p99 %.0f us against a %.0f us tick", ticks.P99US, us(srv.m.tick))
	if end > mid+mid/2+8<<20 {
		t.Errorf("live heap grew from %d to %d KiB", mid>>10, end>>10)
	}
	if appeals == 0 {
		t.Error("no appeal settled: the soak did not exercise alc")
	}
	srv.h.Shutdown(context.Background(), "soak over")
	settle := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > goroutines+4 && time.Now().Before(settle) {
		time.Sleep(50 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > goroutines+4 {
		t.Errorf("%d goroutines after the soak, %d before", n, goroutines)
	}
}

func deadline(ctx context.Context) time.Time {
	d, _ := ctx.Deadline()
	return d
}

// floodPayloads are what the flooders send: garbage of every size, cut
// and forged Connects (with made-up address tokens), Connects of another
// version, and commands, appeals and disconnects from addresses that
// have no session.
func floodPayloads(rng *rand.Rand) [][]byte {
	var out [][]byte
	for _, n := range []int{1, 2, 7, 64, 300, wire.ConnectSize, 1200} {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		out = append(out, b)
	}
	for i := range 8 {
		c := wire.Connect{Version: wire.Version, Nonce: rng.Uint64(), Name: "flood", Key: strings.Repeat("k", wire.KeySize)}
		if i%2 == 1 {
			c.Token = strings.Repeat("x", 16)
		}
		b, _ := wire.AppendConnect(nil, &c)
		out = append(out, b, b[:7])
	}
	out = append(out, []byte{byte(wire.MsgConnect), 0xff, 0xff})
	cmds, _ := wire.AppendCommands(nil, &wire.Commands{AckTick: 5, Cmds: []game.UserCmd{{Tick: 1 << 31, Duration: time.Second}}})
	appeal, _ := wire.AppendAppeal(nil, &wire.Appeal{ID: 1, Deny: true})
	bye, _ := wire.AppendDisconnect(nil, &wire.Disconnect{Reason: "spoofed"})
	return append(out, cmds, appeal, bye)
}

// TestTokenRouting: one process hosts two matches that require connect
// tokens, each behind its own UDP port. A client holding a token for
// match 1 that reaches match 2 is refused (counted as a wrong match),
// gets nothing back and leaves no session; with a token for match 2 it
// plays there.
func TestTokenRouting(t *testing.T) {
	if testing.Short() {
		t.Skip("seconds of wall time")
	}
	walltest.Lock(t)
	reg := prometheus.NewRegistry()
	h := NewHost(quiet, NewMetrics(reg))
	key := make([]byte, 32)
	for i := range key {
		key[i] = byte(i)
	}
	if err := h.RequireTokens(key, "udp://lagkit.test:4433"); err != nil {
		t.Fatal(err)
	}
	defer h.Shutdown(context.Background(), "test over")
	var matches [2]*Match
	var addrs [2]string
	for i := range matches {
		m, err := h.Start(MatchConfig{Map: "arena", Mode: "tdm", Seats: 4})
		if err != nil {
			t.Fatal(err)
		}
		l, err := transport.ListenUDP("127.0.0.1:0", transport.UDPOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		matches[i], addrs[i] = m, l.Addr()
		go func() {
			for {
				conn, err := l.Accept(context.Background())
				if err != nil {
					return
				}
				if m.Add(conn) != nil {
					conn.Close("match over")
				}
			}
		}()
	}
	kit := newBotKit(t, "arena")
	tokFor := func(m *Match) []byte {
		tok, err := h.IssueToken(m.ID(), "p", time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	second := matches[1]
	stats := func() server.Stats {
		var st server.Stats
		if err := second.do(func() { st = second.srv.Stats() }); err != nil {
			t.Fatal(err)
		}
		return st
	}
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	cs, err := kit.play(ctx, addrs[1], "p", 1, tokFor(matches[0]), nil)
	cancel()
	st := stats()
	out := counter(t, reg, "lagkit_datagrams_out_total", map[string]string{"match": second.ID()})
	if err == nil && cs.Snapshots > 0 || st.Connects != 0 || st.Tokens.WrongMatch == 0 || out != 0 {
		t.Fatalf("token for match %s at match %s: %d snapshots (%v), connects %d, refused as wrong match %d, %v datagrams sent",
			matches[0].ID(), second.ID(), cs.Snapshots, err, st.Connects, st.Tokens.WrongMatch, out)
	}
	if drops := counter(t, reg, "lagkit_datagrams_dropped_total", map[string]string{"match": second.ID(), "reason": DropToken}); drops == 0 {
		t.Error("refused token not counted among the drops")
	}
	ctx, cancel = context.WithTimeout(context.Background(), 2*time.Second)
	cs, err = kit.play(ctx, addrs[1], "p", 1, tokFor(second), nil)
	cancel()
	if err != nil || cs.Snapshots == 0 || cs.Seat < 0 {
		t.Fatalf("token for match %s: %d snapshots, seat %d, %v", second.ID(), cs.Snapshots, cs.Seat, err)
	}
	if st := stats(); st.Connects != 1 {
		t.Fatalf("connects %d after the right token, want 1", st.Connects)
	}
}

// TestSpoofedConnectionsEmptyNoSeat: connections that never prove their
// address (garbage, forged Connects) from more addresses than the match
// has seats neither make the bots give up their seats nor lock a person
// out; a real client then takes a bot's seat.
func TestSpoofedConnectionsEmptyNoSeat(t *testing.T) {
	if testing.Short() {
		t.Skip("seconds of wall time")
	}
	walltest.Lock(t)
	srv := serveMatch(t, MatchConfig{Map: "arena", Mode: "tdm", Seats: 4, Bots: 4})
	waitFor(t, srv.m, "four bots", func(i MatchInfo) bool { return i.Bots == 4 && len(i.Players) == 4 })
	to, err := net.ResolveUDPAddr("udp", srv.addr)
	if err != nil {
		t.Fatal(err)
	}
	payloads := floodPayloads(rand.New(rand.NewPCG(3, 4)))
	for i := range 16 {
		c, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		for _, b := range payloads {
			if _, err := c.WriteToUDP(b, to); err != nil {
				t.Fatalf("flooder %d: %v", i, err)
			}
		}
	}
	time.Sleep(time.Second)
	info, err := srv.m.Info()
	if err != nil {
		t.Fatal(err)
	}
	if info.Bots != 4 || info.Humans != 0 || len(info.Players) != 4 {
		t.Fatalf("after connections from 16 spoofed addresses: %d bots, %d humans, %d players; want the 4 bots alone", info.Bots, info.Humans, len(info.Players))
	}
	kit := newBotKit(t, "arena")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	cs, err := kit.play(ctx, srv.addr, "alice", 1, nil, nil)
	if err != nil || cs.Snapshots == 0 {
		t.Fatalf("a real client among the spoofed ones: %d snapshots, %v", cs.Snapshots, err)
	}
}

// TestTokenRoutesOneListener: two matches behind one UDP listener; each
// client lands in the match its connect token names, and a token for a
// match this host does not run is refused at the door, counted, with
// nothing sent back.
func TestTokenRoutesOneListener(t *testing.T) {
	if testing.Short() {
		t.Skip("seconds of wall time")
	}
	walltest.Lock(t)
	reg := prometheus.NewRegistry()
	h := NewHost(quiet, NewMetrics(reg))
	key := make([]byte, token.KeySize)
	for i := range key {
		key[i] = byte(3 * i)
	}
	l, err := transport.ListenUDP("127.0.0.1:0", transport.UDPOptions{Unrouted: h.UDPUnrouted})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if err := h.RequireTokens(key, l.Addr()); err != nil {
		t.Fatal(err)
	}
	defer h.Shutdown(context.Background(), "test over")
	var ms [2]*Match
	for i := range ms {
		if ms[i], err = h.Start(MatchConfig{Map: "arena", Mode: "tdm", Seats: 4}); err != nil {
			t.Fatal(err)
		}
	}
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	go h.Serve(ctx, l)
	kit := newBotKit(t, "arena")
	connects := func(m *Match) int {
		var n int
		if err := m.do(func() { n = m.srv.Stats().Connects }); err != nil {
			t.Fatal(err)
		}
		return n
	}
	for i, m := range []*Match{ms[1], ms[0]} {
		tok, err := h.IssueToken(m.ID(), "p", time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		pctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
		cs, err := kit.play(pctx, l.Addr(), "p", 1, tok, nil)
		cancel()
		if err != nil || cs.Snapshots == 0 || cs.Seat < 0 {
			t.Fatalf("token for match %s: %d snapshots, seat %d, %v", m.ID(), cs.Snapshots, cs.Seat, err)
		}
		if got := []int{connects(ms[0]), connects(ms[1])}; got[0] != i || got[1] != 1 {
			t.Fatalf("after client %d (match %s): connects %v", i, m.ID(), got)
		}
	}
	tok, err := token.Seal(key, token.Claims{Match: "elsewhere", Player: "p", Address: l.Addr(), Expires: time.Now().Add(time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	pctx, cancel := context.WithTimeout(context.Background(), time.Second)
	cs, _ := kit.play(pctx, l.Addr(), "p", 1, tok, nil)
	cancel()
	if cs.Snapshots != 0 || cs.Seat >= 0 || connects(ms[0]) != 1 || connects(ms[1]) != 1 {
		t.Fatalf("a token for another server's match: %d snapshots, seat %d", cs.Snapshots, cs.Seat)
	}
	if n := counter(t, reg, "lagkit_handshakes_total", map[string]string{"transport": "udp", "outcome": RefuseNoMatch}); n == 0 {
		t.Error("the token for a match this host does not run was not counted among the handshakes refused")
	}
}
