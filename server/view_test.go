package server

import (
	"math"
	"testing"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/shooter/weapon"
	"github.com/lagkit/lagkit/wire"
	"github.com/lagkit/lagkit/world/worldtest"
)

// seen is a test game's declared state: the sum, over the player's
// commands, of what its step saw of the match (seenStep).
type seen struct {
	Sum   int64 `lagkit:"all"`
	Steps int32 `lagkit:"all"`
}

var seenDecl = game.MustDeclare[seen]()

// seenSlot is the test game's entity.
const seenSlot = 200

// seenStep is lagkit's step, adding to the player's Sum the X of the
// entity in seenSlot (in position quanta) and the first word of the
// match state, as the step's view shows them.
func seenStep(s game.PlayerState, cmd game.UserCmd, ctx *game.StepCtx) (game.PlayerState, bool) {
	s, fired := ctx.Step(s, cmd)
	sn := seenDecl.Of(&s)
	if e, ok := ctx.View.Entity(seenSlot); ok {
		sn.Sum += int64(math.Round(e.Pos.X / game.PosQuantum))
	}
	m := ctx.View.Match()
	sn.Sum += int64(m[0]) * 1000
	sn.Steps++
	return s, fired
}

// runSeen plays one walker whose commands reach the server late ticks
// after issue, on a server that moves the entity and changes the match
// state before every tick, and returns the walker's state after the
// last tick.
func runSeen(t *testing.T, cfg Config, late uint32) game.PlayerState {
	t.Helper()
	cfg.Map = worldtest.Open(t)
	cfg.Step, cfg.Game = seenStep, seenDecl.Layout
	cfg.Shots, cfg.Spawn, cfg.Died = nil, nil, nil // the game's own: none of lagkit's weapons
	s, err := New(armed(cfg))
	if err != nil {
		t.Fatal(err)
	}
	id := connectAs(t, s, 0, wire.Connect{Name: "w", InterpDelay: 100 * time.Millisecond, Game: seenDecl.Layout.Hash()})
	s.Place(id, geom.V(0, 0, 0), 0)
	setLatency(s, id, late)
	s.Ready()
	const last, end = 40, 60
	for n := uint32(1); n <= end; n++ {
		now := s.NextTick()
		if err := s.SetEntity(seenSlot, game.PlayerState{Pos: geom.V(float64(n)*game.PosQuantum*3, 1, 0)}, nil); err != nil {
			t.Fatal(err)
		}
		s.SetMatchState(game.State{uint64(n % 7)})
		if m := n - min(n, late); m >= 1 && m <= last {
			cmd := game.UserCmd{Tick: m, Duration: s.TickDuration(), Forward: 127}
			sendCmds(t, s, now-time.Microsecond, 0, []game.UserCmd{cmd})
		}
		s.Advance(now)
	}
	st, _, _ := s.PlayerState(id)
	return st
}

// TestStepSeesTheMatch: a step sees the entities and the match state as
// its tick began, and a command time warp runs late at its own tick
// sees what it would have seen on time, not the present.
func TestStepSeesTheMatch(t *testing.T) {
	onTime := runSeen(t, Config{}, 0)
	// Command n runs in tick n, which began with the entity at 3n
	// quanta and the match state n%7, both set just before it.
	var want int64
	for n := int64(1); n <= 40; n++ {
		want += 3*n + n%7*1000
	}
	if got := seenDecl.Get(&onTime); got.Steps != 40 || got.Sum != want {
		t.Fatalf("on time: %+v, want 40 steps summing %d", got, want)
	}
	warped := runSeen(t, warpConfig(), 6)
	if got := seenDecl.Get(&warped); got != seenDecl.Get(&onTime) {
		t.Fatalf("run late by time warp: %+v; on time %+v", got, seenDecl.Get(&onTime))
	}
	if warped.Pos != onTime.Pos {
		t.Fatalf("run late by time warp at %v, on time at %v", warped.Pos, onTime.Pos)
	}
}

// TestSpawnKeepsTheGamesState: the server writes nothing of a game's
// declared state at a spawn or a placement but what the game's respawn
// rule does (Config.Spawn): a game without one keeps its bytes, and
// lagkit's shooter, whose rule hands the weapon back (weapon.Rearm),
// spawns with the rifle in hand, loaded.
func TestSpawnKeepsTheGamesState(t *testing.T) {
	m := worldtest.Open(t)
	plain, err := New(Config{Map: m, Game: seenDecl.Layout})
	if err != nil {
		t.Fatal(err)
	}
	own, err := New(armed(Config{Map: m}))
	if err != nil || own.Config().Game != weapon.Layout {
		t.Fatalf("lagkit's shooter: %v", err)
	}
	id := connectAs(t, own, 0, wire.Connect{Name: "a", InterpDelay: 100 * time.Millisecond, Game: weapon.Layout.Hash()})
	st, _, _ := own.PlayerState(id)
	if a := weapon.ArmsOf(&st); a.Weapon != 0 || a.Ammo != weapon.Rifle().Magazine || a.Wait != 0 {
		t.Errorf("spawned with %+v, want the rifle loaded", *a)
	}
	pid := connectAs(t, plain, 0, wire.Connect{Name: "b", InterpDelay: 100 * time.Millisecond, Game: seenDecl.Layout.Hash()})
	if err := plain.Edit(pid, func(p *game.PlayerState) { seenDecl.Of(p).Steps = 77 }); err != nil {
		t.Fatal(err)
	}
	plain.Place(pid, geom.V(1, 1, 0), 0)
	if got, _, _ := plain.PlayerState(pid); seenDecl.Get(&got).Steps != 77 {
		t.Errorf("a placement wrote the game's state: %+v", seenDecl.Get(&got))
	}
}
