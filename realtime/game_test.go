package realtime

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/lagcomp"
	"github.com/lagkit/lagkit/server"
	"github.com/prometheus/client_golang/prometheus"
)

// TestGameHooks: a program's game runs in a live match: its step moves
// the players (the server's and the bots' predictions alike), its
// values travel, and its server logic runs on the match goroutine after
// the ticks, with its entity in the world.
func TestGameHooks(t *testing.T) {
	var steps atomic.Int64
	step := func(s game.PlayerState, cmd game.UserCmd, g *geom.Grid, p *game.Params, w []game.Weapon) (game.PlayerState, bool) {
		steps.Add(1)
		s, fired := game.Step(s, cmd, g, p, w)
		s.Values[0] = min(s.Values[0]+1, 500)
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
			entityErr = s.SetEntity(100, game.PlayerState{Pos: geom.V(1, 1, 0), Values: game.Values{7}}, crate)
		}
		ticks++
		for id := range s.MaxClients() {
			if st, _, ok := s.PlayerState(id); ok {
				maxValue = max(maxValue, st.Values[0])
			}
		}
	}
	h := NewHost(quiet, NewMetrics(prometheus.NewRegistry()))
	m, err := h.Start(MatchConfig{Map: "arena", Mode: "ffa", Seats: 2, Bots: 1, TickRate: 32,
		Step: step, Values: 1, Body: crate, GameShots: true, OnTick: onTick})
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
