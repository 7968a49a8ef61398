package arena_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/lagkit/lagkit/examples/arena2d/arena"
	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/realtime"
	"github.com/lagkit/lagkit/testlock"
	"github.com/lagkit/lagkit/transport"
	"github.com/prometheus/client_golang/prometheus"
)

// TestCrateBrokenOverUDP: a server and two bots over loopback UDP, each
// bot's link 60 ms each way: the bots close in on the sliding crate and
// shoot it to pieces, the breaking shot rewound to what its shooter
// saw; both bots hear who broke it, the breaker's client predicts the
// shield the server grants it, and the server hears both salute.
// Then they turn on each other until one kills the other with a shot
// rewound as far, and both hear of the kill. Each was told of the
// other's shots, to draw as tracers.
func TestCrateBrokenOverUDP(t *testing.T) {
	testlock.Lock(t) // a live match: not beside a headless browser
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	l, err := transport.ListenUDP("127.0.0.1:0", transport.UDPOptions{})
	if err != nil {
		t.Fatal(err)
	}
	host := realtime.NewHost(slog.New(slog.NewTextHandler(io.Discard, nil)), realtime.NewMetrics(prometheus.NewRegistry()))
	ref := arena.NewReferee()
	cfg := arena.MatchConfig(4, ref)
	// The server's step notes the blinks' reach its commands carried.
	var reachMu sync.Mutex
	var reaches []float32
	cfg.Step = func(s game.PlayerState, cmd game.UserCmd, ctx *game.StepCtx) (game.PlayerState, bool) {
		if r := arena.CmdDecl.Of(&cmd).Reach; cmd.Buttons.Has(arena.BtnBlink) && r > 0 {
			reachMu.Lock()
			reaches = append(reaches, r)
			reachMu.Unlock()
		}
		return arena.Step(s, cmd, ctx)
	}
	slow := realtime.LinkConfig{LatencyMS: 60}
	cfg.Latency = []realtime.LinkRule{{Player: "bot0", Up: slow, Down: slow}, {Player: "bot1", Up: slow, Down: slow}}
	if _, err := host.Start(cfg); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); host.Serve(ctx, l) }()
	bots := []*arena.Bot{{}, {}}
	errs := make([]error, len(bots))
	for i, b := range bots {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conn, err := transport.Dial(ctx, "udp://"+l.Addr(), transport.DialOptions{})
			if err != nil {
				errs[i] = err
				return
			}
			_, errs[i] = realtime.RunClient(ctx, conn, realtime.ClientConfig{Client: arena.ClientConfig(fmt.Sprintf("bot%d", i)), Brain: b})
		}()
	}
	// Wait for the crate to break, for its loot to reach the breaker's
	// prediction, for both salutes and for a kill both bots heard of.
	heard := func() bool {
		for _, b := range bots {
			if len(b.Kills()) == 0 {
				return false
			}
		}
		return true
	}
	for {
		r := ref.Record()
		looted := r.BrokenBy >= 0 && lootedBy(bots) == r.BrokenBy
		if r.BrokenBy >= 0 && len(r.GGs) == 2 && len(r.Kills) > 0 && heard() && looted || ctx.Err() != nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	r := ref.Record()
	if err := host.Shutdown(context.Background(), "test over"); err != nil {
		t.Error(err)
	}
	cancel()
	l.Close()
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("bot %d: %v", i, err)
		}
	}
	if r.BrokenBy < 0 {
		t.Fatalf("the crate never broke: %+v", r)
	}
	if r.CrateHits < arena.CrateHealth/arena.Damage {
		t.Errorf("broken after %d hits", r.CrateHits)
	}
	// 120 ms of round trip and 50 of interpolation behind the tick.
	if r.BrokenRewind < 120*time.Millisecond || r.BrokenRewind > time.Second {
		t.Errorf("the breaking shot was rewound %v", r.BrokenRewind)
	}
	for i, b := range bots {
		crate, broken, by, stamina := b.Saw()
		if !crate || !broken || by != r.BrokenBy {
			t.Errorf("bot %d: saw the crate %v, heard it break %v, by %d (the server says %d)", i, crate, broken, by, r.BrokenBy)
		}
		if stamina == 0 {
			t.Errorf("bot %d: no stamina", i)
		}
		if b.Tracers() == 0 {
			t.Errorf("bot %d: told of none of the other's shots", i)
		}
	}
	// The breaker's client predicted the shield the server granted it.
	if by := lootedBy(bots); r.Looted != r.BrokenBy || by != r.BrokenBy {
		t.Errorf("loot granted to %d, predicted by the bot in slot %d; the crate broken by %d", r.Looted, by, r.BrokenBy)
	}
	if len(r.GGs) != 2 {
		t.Errorf("salutes from %v", r.GGs)
	}
	if len(r.Kills) == 0 {
		t.Fatalf("no player killed: %+v", r)
	}
	k := r.Kills[0]
	if k.Killer == k.Victim || k.Killer < 0 || k.Killer > 1 || k.Victim < 0 || k.Victim > 1 {
		t.Errorf("first kill %+v, want one bot killing the other", k)
	}
	if k.Rewind < 120*time.Millisecond || k.Rewind > time.Second {
		t.Errorf("the killing shot was rewound %v", k.Rewind)
	}
	if r.PlayerHits < len(r.Kills)*game.MaxHealth/arena.Damage {
		t.Errorf("%d kills from %d hits on players", len(r.Kills), r.PlayerHits)
	}
	for i, b := range bots {
		if ks := b.Kills(); len(ks) == 0 || int(ks[0].Killer) != k.Killer || int(ks[0].Victim) != k.Victim {
			t.Errorf("bot %d heard of kills %+v, the server recorded %+v first", i, ks, k)
		}
	}
	// The bots blink to land 10 m short of their target: a reach
	// short of the full length, on its eighth-of-a-metre grid, that
	// only the declared command carries.
	reachMu.Lock()
	short := 0
	for _, r := range reaches {
		if r < arena.BlinkLength && r*8 == float32(int(r*8)) {
			short++
		}
	}
	reachMu.Unlock()
	if short == 0 {
		t.Errorf("the server's step saw no blink shorter than %v m: %v", arena.BlinkLength, reaches)
	}
	t.Logf("blink reaches on the server: %v", reaches)
	t.Logf("%d shots, %d on the crate, broken by %d with a shot rewound %v (the live crate missed: %v); %d hits on players, first kill %+v; tracers told %d and %d",
		r.Shots, r.CrateHits, r.BrokenBy, r.BrokenRewind, r.BrokenLiveMiss, r.PlayerHits, k, bots[0].Tracers(), bots[1].Tracers())
}

// lootedBy returns the slot of the bot whose prediction held the crate's
// shield (-1: none, -2: more than one).
func lootedBy(bots []*arena.Bot) int {
	by := -1
	for _, b := range bots {
		if looted, slot := b.Looted(); looted {
			if by >= 0 {
				return -2
			}
			by = slot
		}
	}
	return by
}
