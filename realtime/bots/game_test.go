package bots

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lagkit/lagkit/bot"
	"github.com/lagkit/lagkit/client"
	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/realtime"
	"github.com/lagkit/lagkit/server"
	"github.com/lagkit/lagkit/testlock"
	"github.com/lagkit/lagkit/transport"
	"github.com/lagkit/lagkit/world"
	"github.com/prometheus/client_golang/prometheus"
)

// pressState is a game's declared state: how often its button was held.
type pressState struct {
	Presses int16 `lagkit:"owner,max=10000"`
}

var pressDecl = game.MustDeclare[pressState]()

func pressStep(s game.PlayerState, cmd game.UserCmd, ctx *game.StepCtx) (game.PlayerState, bool) {
	s, fired := ctx.Step(s, cmd)
	if cmd.Buttons.Has(game.BtnGame) {
		ps := pressDecl.Of(&s)
		ps.Presses = min(ps.Presses+1, 10000)
	}
	return s, fired
}

// presser is a game's bot: it holds the game's button and walks ahead.
type presser struct {
	seed   uint64
	inputs atomic.Int64
}

func (p *presser) Input(time.Duration, *client.Client) game.UserCmd {
	p.inputs.Add(1)
	return game.UserCmd{Forward: 64, Buttons: game.BtnGame}
}

// TestGameBotsOverUDP: the load tool's bots are a game's own, made by
// its bot.Maker with a seed each, playing through clients configured
// with the game's step and declaration against a server of that game
// over loopback UDP: the server's step sees every bot press the game's
// button (lagkit's own bots never do, and a client without the game's
// declaration is refused).
func TestGameBotsOverUDP(t *testing.T) {
	testlock.Lock(t)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	l, err := transport.ListenUDP("127.0.0.1:0", transport.UDPOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	pressed := make([]atomic.Int64, 3)
	onTick := func(s *server.Server, _ *server.Ready) {
		for id := range 3 {
			if st, _, ok := s.PlayerState(id); ok {
				pressed[id].Store(int64(pressDecl.Of(&st).Presses))
			}
		}
	}
	host := realtime.NewHost(slog.New(slog.NewTextHandler(io.Discard, nil)), realtime.NewMetrics(prometheus.NewRegistry()))
	if _, err := host.Start(realtime.MatchConfig{Map: "field", World: world.Field(), Mode: "ffa", Seats: 3, TickRate: 32,
		Step: pressStep, Game: pressDecl.Layout, OnTick: onTick}); err != nil {
		t.Fatal(err)
	}
	var served sync.WaitGroup
	served.Add(1)
	go func() { defer served.Done(); host.Serve(ctx, l) }()
	defer func() {
		host.Shutdown(context.Background(), "test over")
		cancel()
		served.Wait()
	}()

	var mu sync.Mutex
	made := map[int]*presser{}
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	var rep *Report
	var runErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		rep, runErr = Run(runCtx, Config{
			Connect: "udp://" + l.Addr(), Count: 3, Duration: time.Minute, Map: world.Field(), Seed: 11,
			Dial: func(ctx context.Context) (transport.Conn, error) {
				return transport.Dial(ctx, "udp://"+l.Addr(), transport.DialOptions{})
			},
			Policy: func(i int, seed uint64) (bot.Policy, error) {
				mu.Lock()
				defer mu.Unlock()
				p := &presser{seed: seed}
				made[i] = p
				return p, nil
			},
			Client: client.Config{Step: pressStep, Game: pressDecl.Layout},
		})
	}()
	for pressed[0].Load() < 20 || pressed[1].Load() < 20 || pressed[2].Load() < 20 {
		select {
		case <-done:
			t.Fatalf("the bots ended first (%v): presses %d %d %d", runErr, pressed[0].Load(), pressed[1].Load(), pressed[2].Load())
		case <-ctx.Done():
			t.Fatalf("presses %d %d %d", pressed[0].Load(), pressed[1].Load(), pressed[2].Load())
		case <-time.After(20 * time.Millisecond):
		}
	}
	stop()
	<-done
	if runErr != nil {
		t.Fatal(runErr)
	}
	if n := rep.Connected(); n != 3 {
		t.Errorf("%d of 3 bots seated: %+v", n, rep.Bots)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(made) != 3 || made[0].seed == made[1].seed || made[1].seed == made[2].seed {
		t.Errorf("policies made: %v", made)
	}
	for i, p := range made {
		if p.inputs.Load() < 20 {
			t.Errorf("bot %d gave %d inputs", i, p.inputs.Load())
		}
	}
}
