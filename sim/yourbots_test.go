package sim_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/lagkit/lagkit/bot"
	"github.com/lagkit/lagkit/client"
	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/netem"
	"github.com/lagkit/lagkit/server"
	"github.com/lagkit/lagkit/shooter/weapon"
	"github.com/lagkit/lagkit/sim"
	"github.com/lagkit/lagkit/world"
)

// The dash game's own computer players (yourgame_test.go): a policy of
// its own, played through lagkit's client cores over emulated links.

// hunter is the dash game's bot: it runs at the nearest player its
// client draws, strafing one way or the other for a while at a time,
// dashes now and then when it has the stamina, and fires in bursts when
// the target is near. With a frame rate it also aims at every frame, at
// the target as drawn at that instant, pressing the trigger through the
// client. Everything random comes from its own generator, seeded by the
// harness.
type hunter struct {
	rng            *rand.Rand
	frameRate      int
	strafe         int8
	strafeTil      time.Duration
	firing         bool
	frames, inputs int
	ids            []int
}

// newHunter is the game's bot.Maker: every other bot aims at 144 frames
// a second.
func newHunter(i int, seed uint64) (bot.Policy, error) {
	h := &hunter{rng: rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))}
	if i%2 == 1 {
		h.frameRate = 144
	}
	return h, nil
}

// aim returns the yaw to the nearest other player c draws at now, and
// its distance.
func (h *hunter) aim(now time.Duration, c *client.Client) (yaw, dist float64, ok bool) {
	me := c.Predicted()
	h.ids = c.RemoteIDs(h.ids[:0])
	dist = math.Inf(1)
	for _, id := range h.ids {
		o, drawn := c.Remote(id, c.ViewTime(now))
		if !drawn || o.Has(game.FlagDead) {
			continue
		}
		d := o.Pos.Sub(me.Pos)
		if l := math.Hypot(d.X, d.Y); l < dist {
			yaw, dist, ok = math.Atan2(d.Y, d.X), l, true
		}
	}
	return yaw, dist, ok
}

func (h *hunter) Input(now time.Duration, c *client.Client) game.UserCmd {
	h.inputs++
	me := c.Predicted()
	if me.Has(game.FlagDead) {
		return game.UserCmd{}
	}
	if now >= h.strafeTil {
		h.strafe = int8(h.rng.IntN(3)-1) * 100
		h.strafeTil = now + time.Duration(200+h.rng.IntN(600))*time.Millisecond
	}
	cmd := game.UserCmd{Forward: 90, Side: h.strafe}
	yaw, dist, ok := h.aim(now, c)
	if !ok {
		return cmd
	}
	cmd.Yaw = game.YawUnits(yaw)
	if dist < 3 {
		cmd.Forward = -60 // close enough: back off, keep shooting
	}
	if ds := dashDecl.Of(&me); ds.Stamina >= dashCost && ds.Cooldown == 0 && h.rng.Float64() < 0.03 {
		cmd.Buttons |= btnDash
	}
	if dist < 20 && h.rng.Float64() < 0.1 {
		h.firing = !h.firing
	}
	if h.firing {
		cmd.Buttons |= game.BtnFire
	}
	return cmd
}

func (h *hunter) FrameRate() int { return h.frameRate }

func (h *hunter) Frame(now time.Duration, c *client.Client) {
	h.frames++
	if yaw, _, ok := h.aim(now, c); ok && !c.Predicted().Has(game.FlagDead) {
		c.Frame(now, game.YawUnits(yaw), 0, h.firing)
	}
}

// hunt is the dash game's referee for its bots and its shot resolution
// (server.Config.Shots): each shot traced where the lag compensation
// policy tests it (rewound to the time its shooter saw), and a hit on
// a circle costs its health.
type hunt struct {
	shots, hits, rewound, kills, dashes int
	predicted, mispredicted             int
}

func (r *hunt) Fire(w *server.ShotWorld) {
	s, f := w.Server(), &w.Shot
	r.shots++
	ray := weapon.ShotRay(f.State, f.Cmd, f.Shooter, 0, &dashLoadout[0], s.Config().Movement)
	h, ok := w.Trace(ray, 40)
	if !ok {
		return
	}
	if registered, kill := w.Hit(int16(h.Damage)); registered {
		r.hits++
		if w.Rewound() {
			r.rewound++
		}
		if kill {
			r.kills++
		}
	}
}

func (r *hunt) Delivered(_ time.Duration, _ int, _ *sim.Player, rd *client.Ready) {
	for _, e := range rd.PredictionErrors {
		r.predicted++
		if e != 0 {
			r.mispredicted++
		}
	}
}
func (r *hunt) Ticked(time.Duration, int, *sim.Player, *client.Ready) {}

func (r *hunt) ServerTicked(time.Duration, *server.Server) {}

func (r *hunt) ServerReady(_ time.Duration, s *server.Server, rd *server.Ready) {
	if rd.Ticks == 0 {
		return
	}
	for id := range s.MaxClients() {
		if st, _, ok := s.PlayerState(id); ok && dashDecl.Of(&st).Cooldown == dashTicks {
			r.dashes++
		}
	}
}

// huntMatch runs the dash game's bots for d from seed.
func huntMatch(t *testing.T, seed uint64, d time.Duration) (*sim.Driver, *hunt) {
	t.Helper()
	link := netem.Config{Latency: 40 * time.Millisecond, Jitter: 5 * time.Millisecond, Loss: 0.02}
	ref := &hunt{}
	drv, err := sim.NewBots(sim.Bots{
		Server:  server.Config{Map: world.Field(), MaxClients: 4, Step: dashStep, Game: dashDecl.Layout, Spawn: dashSpawn, Died: dashDied, Body: circle, Shots: ref},
		Client:  client.Config{InterpDelay: 50 * time.Millisecond},
		Players: 4, Policy: newHunter, Up: link, Down: link,
	}, seed)
	if err != nil {
		t.Fatal(err)
	}
	drv.Run(d, ref)
	return drv, ref
}

// TestYourBots: the dash game's own bots play a match through lagkit's
// client cores over lossy links: they connect, predict their dashes,
// aim at 144 frames a second where they are made to, and shoot each
// other, hits rewound by the game's referee; the match is a function of
// its seed (the same seed twice gives the same state hash, another
// seed another).
func TestYourBots(t *testing.T) {
	d, ref := huntMatch(t, 7, 15*time.Second)
	for i, p := range d.Players {
		h := p.Brain.(*hunter)
		if p.Client.Phase() != client.Connected || h.inputs < 500 {
			t.Fatalf("bot %d: %v after %d inputs (%s)", i, p.Client.Phase(), h.inputs, p.Client.Reason())
		}
		if want := i%2 == 1; want != (h.frames > 1000) {
			t.Errorf("bot %d drew %d frames", i, h.frames)
		}
	}
	if ref.shots < 20 || ref.hits < 5 || ref.rewound < ref.hits*9/10 || ref.kills < 1 || ref.dashes < 5 {
		t.Fatalf("%d shots, %d hits (%d rewound), %d kills, %d dashes", ref.shots, ref.hits, ref.rewound, ref.kills, ref.dashes)
	}
	t.Logf("%d shots, %d hits (%d rewound), %d kills, %d dashes; %d of %d predictions off", ref.shots, ref.hits, ref.rewound, ref.kills, ref.dashes, ref.mispredicted, ref.predicted)

	// Mispredicted: the commands the server ran while a death or a
	// respawn moved the bot (the game's damage is not predicted).
	if ref.predicted < 2000 || ref.mispredicted*100 > ref.predicted {
		t.Errorf("%d of %d predictions off", ref.mispredicted, ref.predicted)
	}

	again, ref2 := huntMatch(t, 7, 15*time.Second)
	if again.Server.StateHash() != d.Server.StateHash() || *ref2 != *ref {
		t.Fatalf("seed 7 twice: %s (%+v), then %s (%+v)", d.Server.StateHash(), *ref, again.Server.StateHash(), *ref2)
	}
	other, _ := huntMatch(t, 8, 15*time.Second)
	if other.Server.StateHash() == d.Server.StateHash() {
		t.Fatal("seeds 7 and 8 played the same match")
	}
}

// TestNewBotsRefuses: a match of bots without a policy, with no bots or
// more than the server seats, or whose policy fails, is refused with the
// reason.
func TestNewBotsRefuses(t *testing.T) {
	srv := server.Config{Map: world.Field(), MaxClients: 2}
	failing := func(i int, _ uint64) (bot.Policy, error) {
		if i == 1 {
			return nil, errors.New("no such class")
		}
		return &hunter{}, nil
	}
	for _, c := range []struct {
		b    sim.Bots
		want string
	}{
		{sim.Bots{Server: srv, Players: 2}, "no policy"},
		{sim.Bots{Server: srv, Players: 0, Policy: newHunter}, "0 players"},
		{sim.Bots{Server: srv, Players: 3, Policy: newHunter}, "3 players, want 1 to 2"},
		{sim.Bots{Server: srv, Players: 2, Policy: newHunter, JoinWithin: -time.Second}, "join within"},
		{sim.Bots{Server: srv, Players: 2, Policy: failing}, "bot 1: no such class"},
		{sim.Bots{Server: srv, Players: 2, Policy: func(int, uint64) (bot.Policy, error) { return nil, nil }}, "bot 0: no policy"},
	} {
		if _, err := sim.NewBots(c.b, 1); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v", c.want, err)
		}
	}
}
