package bots_test

import (
	"testing"
	"time"

	"github.com/lagkit/lagkit/client"
	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/nav"
	"github.com/lagkit/lagkit/netem"
	"github.com/lagkit/lagkit/server"
	"github.com/lagkit/lagkit/shooter"
	"github.com/lagkit/lagkit/shooter/bots"
	"github.com/lagkit/lagkit/shooter/mode"
	"github.com/lagkit/lagkit/shooter/weapon"
	"github.com/lagkit/lagkit/sim"
	"github.com/lagkit/lagkit/world"
)

// shotCounter counts the shots the server resolved.
type shotCounter struct{ shots, hits int }

func (c *shotCounter) Delivered(time.Duration, int, *sim.Player, *client.Ready) {}
func (c *shotCounter) Ticked(time.Duration, int, *sim.Player, *client.Ready)    {}
func (c *shotCounter) ServerTicked(time.Duration, *server.Server)               {}
func (c *shotCounter) ServerReady(_ time.Duration, _ *server.Server, r *server.Ready) {
	for _, rec := range r.Shots {
		c.shots++
		if rec.Hit {
			c.hits++
		}
	}
}

// TestShooterPolicy: lagkit's own bots, made through the seam any
// game's bots use (bots.Shooter, a Maker, in sim.NewBots), find and
// shoot each other, a run the same for the same seed.
func TestShooterPolicy(t *testing.T) {
	m, err := world.Load("arena")
	if err != nil {
		t.Fatal(err)
	}
	params, weapon := game.DefaultParams(), weapon.Rifle()
	grid, err := nav.Build(m, &params)
	if err != nil {
		t.Fatal(err)
	}
	skilled := func(i int) bots.Config { return bots.Config{Skill: 0.9, Attacker: i%4 != 3} }
	run := func(seed uint64) (string, shotCounter) {
		link := netem.Config{Latency: 30 * time.Millisecond}
		scfg := server.Config{Map: m, Movement: &params, MaxClients: 4, Rules: shooter.Rules(mode.Config{Mode: mode.FFA})}
		if err := shooter.Arm(&scfg, nil); err != nil {
			t.Fatal(err)
		}
		d, err := sim.NewBots(sim.Bots{
			Server: scfg, Client: shooter.Client(client.Config{}),
			Players: 4, Policy: bots.Shooter(skilled, m, grid, &params, &weapon), Up: link, Down: link,
		}, seed)
		if err != nil {
			t.Fatal(err)
		}
		var c shotCounter
		d.Run(20*time.Second, &c)
		return d.Server.StateHash(), c
	}
	h1, c1 := run(3)
	if c1.shots < 20 || c1.hits < 5 {
		t.Fatalf("%d shots, %d hits in 20 s", c1.shots, c1.hits)
	}
	if h2, c2 := run(3); h2 != h1 || c2 != c1 {
		t.Fatalf("seed 3 twice: %s %+v, then %s %+v", h1, c1, h2, c2)
	}
}
