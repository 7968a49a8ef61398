package realtime

import (
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lagkit/lagkit/bot"
	"github.com/lagkit/lagkit/client"
	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/lagcomp"
	"github.com/lagkit/lagkit/server"
	"github.com/lagkit/lagkit/shooter/bots"
	"github.com/lagkit/lagkit/world"
	"github.com/prometheus/client_golang/prometheus"
)

// TestGameHooks: a program's game runs in a live match: its step moves
// the players (the server's and the bots' predictions alike), its
// values travel, and its server logic runs on the match goroutine after
// the ticks, with its entity in the world.
func TestGameHooks(t *testing.T) {
	type hookState struct{ N int16 }
	decl := game.MustDeclare[hookState]()
	var steps atomic.Int64
	step := func(s game.PlayerState, cmd game.UserCmd, ctx *game.StepCtx) (game.PlayerState, bool) {
		steps.Add(1)
		s, fired := ctx.Step(s, cmd)
		decl.Of(&s).N = min(decl.Of(&s).N+1, 500)
		return s, fired
	}
	var mu sync.Mutex
	ticks, maxValue := 0, int16(0)
	var entityErr error
	crate := lagcomp.Body(lagcomp.Parts{{Shape: lagcomp.Sphere{R: 0.5}}})
	onTick := func(s *server.Server, _ *server.Ready) {
		mu.Lock()
		defer mu.Unlock()
		if ticks == 0 {
			crateState := game.PlayerState{Pos: geom.V(1, 1, 0)}
			decl.Set(&crateState, hookState{7})
			entityErr = s.SetEntity(100, crateState, crate)
		}
		ticks++
		for id := range s.MaxClients() {
			if st, _, ok := s.PlayerState(id); ok {
				maxValue = max(maxValue, decl.Of(&st).N)
			}
		}
	}
	h := NewHost(quiet, NewMetrics(prometheus.NewRegistry()))
	m, err := h.Start(MatchConfig{Map: "arena", Mode: "ffa", Seats: 2, Bots: 1, TickRate: 32,
		Step: step, Game: decl.Layout, Body: crate, OnTick: onTick})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		mu.Lock()
		done := maxValue >= 20 || time.Now().After(deadline)
		mu.Unlock()
		if done {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	var inWorld bool
	if err := m.do(func() { _, inWorld = m.srv.Entity(100) }); err != nil {
		t.Fatal(err)
	}
	if err := m.End(t.Context(), "test over"); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if entityErr != nil || !inWorld {
		t.Fatalf("entity: %v, in the world: %v", entityErr, inWorld)
	}
	if maxValue < 20 || ticks < 10 {
		t.Fatalf("after %d ticks the bot's value reached %d", ticks, maxValue)
	}
	// The server stepped each command once and the bot's client predicted
	// them too (all but those before its first snapshot).
	if n := steps.Load(); n < int64(maxValue)+10 {
		t.Fatalf("the step ran %d times for a value of %d", n, maxValue)
	}
}

// circler is a game's own bot policy for TestGameBots: it runs in a
// circle pressing the game's button, and, with a frame rate, looks
// around at every frame through the client.
type circler struct {
	seed                  uint64
	frameRate             int
	inputs, frames, early atomic.Int64
}

func (b *circler) Input(now time.Duration, c *client.Client) game.UserCmd {
	if c.Phase() != client.Connected {
		b.early.Add(1)
	}
	b.inputs.Add(1)
	return game.UserCmd{Forward: 127, Yaw: game.YawUnits(now.Seconds()), Buttons: game.BtnGame}
}

func (b *circler) FrameRate() int { return b.frameRate }

func (b *circler) Frame(now time.Duration, c *client.Client) {
	if c.Phase() != client.Connected {
		b.early.Add(1)
	}
	b.frames.Add(1)
	c.Frame(now, game.YawUnits(2*now.Seconds()), 0, false)
}

// pressState counts the presses of the game's button a player made.
type pressState struct {
	Presses int16 `lagkit:"all,max=1000"`
}

var pressDecl = game.MustDeclare[pressState]()

// TestGameBots: a live match's server-side bots play the game's own
// policy (MatchConfig.BotPolicy) through their clients: each bot gets
// its own policy, numbered in the order the bots start and seeded from
// the match's seed; the server runs the game's button from each, and a
// policy with a frame rate is called at its frames too, only once its
// client is connected. A policy that fails starts no bot.
func TestGameBots(t *testing.T) {
	step := func(s game.PlayerState, cmd game.UserCmd, ctx *game.StepCtx) (game.PlayerState, bool) {
		s, fired := ctx.Step(s, cmd)
		if cmd.Buttons.Has(game.BtnGame) {
			ps := pressDecl.Of(&s)
			ps.Presses = min(ps.Presses+1, 1000)
		}
		return s, fired
	}
	var mu sync.Mutex
	made := map[int]*circler{}
	maker := func(i int, seed uint64) (bot.Policy, error) {
		mu.Lock()
		defer mu.Unlock()
		b := &circler{seed: seed}
		if i == 1 {
			b.frameRate = 120
		}
		made[i] = b
		return b, nil
	}
	pressed := make([]atomic.Int64, 2)
	onTick := func(s *server.Server, _ *server.Ready) {
		for id := range s.MaxClients() {
			if st, _, ok := s.PlayerState(id); ok && id < 2 {
				pressed[id].Store(int64(pressDecl.Of(&st).Presses))
			}
		}
	}
	h := NewHost(quiet, NewMetrics(prometheus.NewRegistry()))
	m, err := h.Start(MatchConfig{Map: "field", World: world.Field(), Mode: "ffa", Seats: 2, Bots: 2, TickRate: 32, Seed: 99,
		Step: step, Game: pressDecl.Layout, BotPolicy: maker, OnTick: onTick})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for pressed[0].Load() < 20 || pressed[1].Load() < 20 {
		if time.Now().After(deadline) {
			t.Fatalf("the bots pressed the game's button %d and %d times", pressed[0].Load(), pressed[1].Load())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := m.End(t.Context(), "test over"); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(made) != 2 || made[0] == nil || made[1] == nil || made[0].seed == made[1].seed {
		t.Fatalf("policies made: %v", made)
	}
	for i, b := range made {
		if b.inputs.Load() < 20 || b.early.Load() != 0 {
			t.Errorf("bot %d: %d inputs, %d before it connected", i, b.inputs.Load(), b.early.Load())
		}
	}
	if made[0].frames.Load() != 0 || made[1].frames.Load() == 0 {
		t.Errorf("frames: %d without a frame rate, %d at 120 Hz", made[0].frames.Load(), made[1].frames.Load())
	}

	// A game's policy that fails: the match starts, its bot does not.
	failing := func(int, uint64) (bot.Policy, error) { return nil, errors.New("no such class") }
	m2, err := h.Start(MatchConfig{Map: "field", World: world.Field(), Mode: "ffa", Seats: 2, Bots: 1, BotPolicy: failing})
	if err != nil {
		t.Fatal(err)
	}
	var bots int
	if err := m2.do(func() { bots = len(m2.bots) }); err != nil {
		t.Fatal(err)
	}
	if bots != 0 {
		t.Fatalf("%d bots of a failing policy", bots)
	}
	if err := m2.End(t.Context(), "test over"); err != nil {
		t.Fatal(err)
	}
}

// TestRunClientFrameRate: a policy asking for more frames than a bot
// draws is refused with the reason, before the session starts.
func TestRunClientFrameRate(t *testing.T) {
	_, cliEnd := Pipe("c", "s", 4)
	_, err := RunClient(t.Context(), cliEnd, ClientConfig{Client: client.Config{Map: world.Field()}, Brain: &circler{frameRate: bots.MaxFrameRate + 1}})
	if err == nil || !strings.Contains(err.Error(), "frame rate") {
		t.Fatalf("frame rate %d: %v", bots.MaxFrameRate+1, err)
	}
}
