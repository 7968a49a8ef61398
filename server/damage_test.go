package server_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/lagkit/lagkit/client"
	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/server"
	"github.com/lagkit/lagkit/shooter"
	"github.com/lagkit/lagkit/shooter/mode"
	"github.com/lagkit/lagkit/sim"
	"github.com/lagkit/lagkit/wire"
	"github.com/lagkit/lagkit/world"
)

// idle stands still.
type idle struct{}

func (idle) Input(time.Duration, *client.Client) game.UserCmd { return game.UserCmd{} }

// damager is a game's server loop that hurts player 1 by 30 a tick,
// crediting player 0, from a moment on, and records what Damage said.
type damager struct {
	sim.NoObserver
	from    time.Duration
	calls   []bool // killed, per call that dealt damage
	health  []int16
	errs    []error
	deadAt  time.Duration
	backAt  time.Duration // respawned
	stopped bool
	// kills are the kills each client was told of.
	kills [2][]wire.KillEvent
}

func (d *damager) Delivered(_ time.Duration, i int, _ *sim.Player, r *client.Ready) {
	d.kills[i] = append(d.kills[i], r.Kills...)
}

func (d *damager) ServerTicked(now time.Duration, s *server.Server) {
	st, _, _ := s.PlayerState(1)
	switch {
	case now < d.from:
		return
	case d.deadAt > 0 && d.backAt == 0 && !st.Has(game.FlagDead):
		d.backAt = now
	}
	if d.stopped {
		return
	}
	killed, err := s.Damage(1, 30, 0)
	if err != nil {
		d.errs = append(d.errs, err)
		return
	}
	after, _, _ := s.PlayerState(1)
	if after.Health != st.Health {
		d.calls = append(d.calls, killed)
		d.health = append(d.health, after.Health)
	}
	if killed {
		d.deadAt = now
	} else if d.deadAt > 0 {
		d.stopped = true // a dead player took no damage
	}
}

// TestDamage: a game's damage goes the way of lagkit's own hits: health
// falls 100, 70, 40, 10, then the player dies, as a kill by the player
// credited, counted and scored, announced to both clients, seen dead in the
// snapshots, no more damage taken while dead, respawned at full health
// after the respawn delay.
func TestDamage(t *testing.T) {
	d, err := sim.NewDriver(server.Config{
		Map: world.Field(), Seed: 3, Rules: shooter.Rules(mode.Config{Mode: mode.TDM}),
		RespawnDelay: time.Second, SpawnProtection: 10 * time.Millisecond,
	}, []sim.PlayerConfig{{Brain: idle{}}, {Brain: idle{}}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	dm := &damager{from: 500 * time.Millisecond}
	var kills [2]int
	sawDead := false
	for at := 50 * time.Millisecond; at <= 3*time.Second; at += 50 * time.Millisecond {
		d.Run(at, dm)
		for i := range d.Players {
			for _, k := range dm.kills[i] {
				if k.Killer != 0 || k.Victim != 1 {
					t.Errorf("player %d heard of kill %+v, want 0 killing 1", i, k)
				}
				kills[i]++
			}
			dm.kills[i] = dm.kills[i][:0]
		}
		if d.Players[1].Client.Acked().Has(game.FlagDead) {
			sawDead = true
		}
	}
	if len(dm.errs) != 0 {
		t.Fatalf("damage: %v", dm.errs)
	}
	want := []int16{70, 40, 10, 0}
	if len(dm.health) != len(want) {
		t.Fatalf("health after each damage %v, want %v", dm.health, want)
	}
	for i := range want {
		if dm.health[i] != want[i] || dm.calls[i] != (i == 3) {
			t.Fatalf("health after each damage %v, killed %v; want %v, the last one killing", dm.health, dm.calls, want)
		}
	}
	if kills != [2]int{1, 1} || !sawDead {
		t.Errorf("kill announced to the players %v times, the victim saw itself dead %v", kills, sawDead)
	}
	if back := dm.backAt - dm.deadAt; dm.backAt == 0 || back < time.Second || back > time.Second+50*time.Millisecond {
		t.Errorf("died at %v, respawned at %v, want after the respawn delay of 1 s", dm.deadAt, dm.backAt)
	}
	if st, _, _ := d.Server.PlayerState(1); !dm.stopped || st.Health != game.MaxHealth || st.Has(game.FlagDead) {
		t.Errorf("respawned with %d health (flags %b)", st.Health, st.Flags)
	}
	ann, _ := d.Server.Client(0)
	bea, _ := d.Server.Client(1)
	if ann.Kills != 1 || ann.Score != 1 || ann.Hits != 4 || bea.Deaths != 1 || bea.HitsTaken != 4 {
		t.Errorf("ann: %d kills, score %d, %d hits; bea: %d deaths, %d hits taken", ann.Kills, ann.Score, ann.Hits, bea.Deaths, bea.HitsTaken)
	}
}

// TestDamageRefused: damage to no player, by no slot, of nothing, or on
// a server with time warp is an error that changes nothing.
func TestDamageRefused(t *testing.T) {
	d, err := sim.NewDriver(server.Config{Map: world.Field(), Seed: 3}, []sim.PlayerConfig{{Brain: idle{}}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	d.Run(200*time.Millisecond, nil)
	s := d.Server
	for _, c := range []struct {
		victim int
		amount int16
		by     int
		is     error
	}{
		{1, 10, 0, server.ErrNoPlayer}, {-1, 10, 0, server.ErrNoPlayer}, {s.MaxClients(), 10, 0, server.ErrNoPlayer},
		{0, 10, -1, nil}, {0, 10, s.MaxClients(), nil}, {0, 0, 0, nil}, {0, -5, 0, nil},
	} {
		killed, err := s.Damage(c.victim, c.amount, c.by)
		if err == nil || killed || c.is != nil && !errors.Is(err, c.is) {
			t.Errorf("Damage(%d, %d, %d) = %v, %v; want an error (%v)", c.victim, c.amount, c.by, killed, err, c.is)
		}
	}
	if st, _, _ := s.PlayerState(0); st.Health != game.MaxHealth {
		t.Errorf("health %d after refused damage", st.Health)
	}
	// Spawn protected (5 s by default): no damage, no error.
	if killed, err := s.Damage(0, 200, 0); killed || err != nil {
		t.Errorf("damage to a protected player: %v, %v", killed, err)
	}
	if st, _, _ := s.PlayerState(0); st.Health != game.MaxHealth {
		t.Errorf("a protected player's health fell to %d", st.Health)
	}
}

// A game's trap hurts player 1 for 30, again and again, crediting
// player 0: the fourth kills, and player 0 scores the kill.
func ExampleServer_Damage() {
	d, err := sim.NewDriver(server.Config{Map: world.Field(), SpawnProtection: time.Millisecond},
		[]sim.PlayerConfig{{Brain: idle{}}, {Brain: idle{}}}, 1)
	if err != nil {
		panic(err)
	}
	d.Run(300*time.Millisecond, nil) // both connected
	for killed := false; !killed; {
		if killed, err = d.Server.Damage(1, 30, 0); err != nil {
			panic(err)
		}
		st, _, _ := d.Server.PlayerState(1)
		fmt.Println("health", st.Health, "dead", st.Has(game.FlagDead))
	}
	ann, _ := d.Server.Client(0)
	fmt.Println("player 0's kills:", ann.Kills)
	// Output:
	// health 70 dead false
	// health 40 dead false
	// health 10 dead false
	// health 0 dead true
	// player 0's kills: 1
}
