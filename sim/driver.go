package sim

import (
	"fmt"
	"math"
	"runtime"
	"time"

	"github.com/lagkit/lagkit/bot"
	"github.com/lagkit/lagkit/client"
	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/internal/cputime"
	"github.com/lagkit/lagkit/netem"
	"github.com/lagkit/lagkit/server"
	"github.com/lagkit/lagkit/shooter"
	"github.com/lagkit/lagkit/shooter/weapon"
	"github.com/lagkit/lagkit/wire"
)

// Brain chooses a player's input each tick from what its client shows:
// the client's predicted state, its interpolated view of the others, the
// events it received. Scripted walkers, scenario scripts, lagkit's bots
// and a game's own bots are Brains: it is bot.Policy, the seam through
// which any game's computer players play.
type Brain = bot.Policy

// FrameBrain is a Brain that also gives input at a display rate between
// ticks (a person at a screen faster than the tick rate): the driver
// calls Frame FrameRate times a second, from the player's join on, before
// the tick's Input when a frame and a tick fall at the same instant
// (bot.FramePolicy).
type FrameBrain = bot.FramePolicy

// PlayerConfig sets up one simulated participant.
type PlayerConfig struct {
	// Client configures the player's client core; the driver fills in Map,
	// Movement, Step, Game, Cmd and Shape from the server's configuration.
	Client client.Config
	// Up and Down are the links to and from the server.
	Up, Down netem.Config
	// Brain gives the player's input each tick; nil: an idle player,
	// connected and sending empty commands.
	Brain Brain
	// JoinAt is when the client starts connecting.
	JoinAt time.Duration
	// Phase offsets the player's ticks against the server's, as real
	// clocks are; it is taken modulo the tick.
	Phase time.Duration
}

// Player is one simulated participant: its client core, its brain and
// its two links.
type Player struct {
	Client   *client.Client
	Brain    Brain
	Up, Down *netem.Link
	join     time.Duration
	next     time.Duration // next client tick
	frames   FrameBrain    // nil: no frames between ticks
	observer bot.Observer  // nil: a brain that sees no handovers
	frame    time.Duration // the time between frames
	nextF    time.Duration // next frame
	// upAt and downAt are when the next packet on Up and on Down
	// arrives (never: none in flight), kept as the driver sends and
	// delivers, so an event looks at no link with nothing due.
	upAt, downAt time.Duration
}

// never is the arrival time of no packet.
const never = time.Duration(math.MaxInt64)

// arrival returns when the next packet on l arrives, or never.
func arrival(l *netem.Link) time.Duration {
	if t, ok := l.Next(); ok {
		return t
	}
	return never
}

// Observer sees a run as it goes. Any method may be a no-op: an
// observer of a few embeds NoObserver and defines those; ServerTicks
// (a game's server logic alone) and ClientReadys (the clients'
// handovers alone) adapt a function.
type Observer interface {
	// Delivered is called after a datagram from the server reached
	// player i, with what its client handed over then (r, valid until
	// the call returns).
	Delivered(now time.Duration, i int, p *Player, r *client.Ready)
	// Ticked is called after player i issued its command for a tick,
	// with the tick's handover (r, valid until the call returns).
	Ticked(now time.Duration, i int, p *Player, r *client.Ready)
	// ServerReady is called with each of the server's handovers, in
	// order: what it did since the one before (r.Ticks > 0 when ticks
	// ran). r is valid until the call returns.
	ServerReady(now time.Duration, s *server.Server, r *server.Ready)
	// ServerTicked is called after the server ran its ticks up to now
	// (after ServerReady with their handover). It is where a game's
	// server logic runs in a simulation, as realtime.MatchConfig.OnTick
	// runs it in a live match: it may move entities (s.SetEntity),
	// write players' states (s.Edit), deal damage and send events, all
	// of which the clients learn from the next snapshots.
	ServerTicked(now time.Duration, s *server.Server)
}

// Driver runs a server and its players on a virtual clock. Time advances
// from event to event (server ticks, client ticks, datagram deliveries),
// each processed in a fixed order, so a run is a function of its
// configuration and seeds alone.
type Driver struct {
	Server  *server.Server
	Players []*Player
	now     time.Duration
	tick    time.Duration
	pkt     []byte
	// ServerWall is the wall time spent in the server's ticks, to measure
	// the server's cost; it does not affect the simulation.
	ServerWall time.Duration
	// CountCPU, set before Run, has the driver read the running
	// thread's CPU clock around each server tick into ServerCPU. It
	// costs two system calls a tick and keeps Run on one OS thread, so
	// it is off unless the caller wants the CPU time.
	CountCPU bool
	// ServerCPU is, with CountCPU, the CPU time of the server's ticks,
	// read from the running thread's CPU clock (0 where the system has
	// none): unlike ServerWall, other processes' turns on a busy machine
	// do not add to it.
	ServerCPU time.Duration
}

// NewDriver returns a driver for a server configured by srv and the given
// players. Link seeds come from seed.
func NewDriver(srv server.Config, players []PlayerConfig, seed uint64) (*Driver, error) {
	s, err := server.New(srv)
	if err != nil {
		return nil, err
	}
	d := &Driver{Server: s, tick: s.TickDuration(), pkt: make([]byte, 0, 2048)}
	cfg := s.Config()
	seeds := splitmix{state: seed}
	for i, pc := range players {
		cc := pc.Client
		cc.Map, cc.Movement, cc.Step = cfg.Map, cfg.Movement, cfg.Step
		cc.Game, cc.Cmd, cc.Shape = cfg.Game, cfg.Cmd, cfg.Shape
		if cc.FirstEntity == 0 && cfg.MaxClients < wire.MaxEntities {
			cc.FirstEntity = cfg.MaxClients // the server's entities
		}
		c, err := client.New(cc)
		if err != nil {
			return nil, fmt.Errorf("sim: player %d: %w", i, err)
		}
		up, err := netem.NewLink(pc.Up, seeds.next())
		if err != nil {
			return nil, fmt.Errorf("sim: player %d: uplink: %w", i, err)
		}
		down, err := netem.NewLink(pc.Down, seeds.next())
		if err != nil {
			return nil, fmt.Errorf("sim: player %d: downlink: %w", i, err)
		}
		phase := pc.Phase % d.tick
		if phase < 0 {
			phase += d.tick
		}
		p := &Player{
			Client: c, Brain: pc.Brain, Up: up, Down: down,
			join: pc.JoinAt, next: pc.JoinAt + phase, upAt: never, downAt: never,
		}
		if fb, ok := pc.Brain.(FrameBrain); ok && fb.FrameRate() > 0 {
			p.frames, p.frame, p.nextF = fb, time.Second/time.Duration(fb.FrameRate()), pc.JoinAt
		}
		p.observer, _ = pc.Brain.(bot.Observer)
		d.Players = append(d.Players, p)
	}
	return d, nil
}

// Now returns the virtual time reached.
func (d *Driver) Now() time.Duration { return d.now }

// Run advances the simulation to until, reporting to obs (nil: nobody).
func (d *Driver) Run(until time.Duration, obs Observer) {
	if d.CountCPU {
		// On one thread, so that its CPU clock measures the ticks.
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
	}
	for {
		now := d.Server.NextTick()
		for _, p := range d.Players {
			now = min(now, p.next, p.upAt, p.downAt)
			if p.frames != nil {
				now = min(now, p.nextF)
			}
		}
		if now > until {
			d.now = until
			return
		}
		d.now = now
		d.deliver(now, obs)
		if d.Server.NextTick() <= now {
			start := time.Now()
			var r *server.Ready
			if d.CountCPU {
				cpu0, _ := cputime.Thread()
				r = d.Server.Advance(now)
				cpu1, _ := cputime.Thread()
				d.ServerCPU += cpu1 - cpu0
			} else {
				r = d.Server.Advance(now)
			}
			d.ServerWall += time.Since(start)
			d.route(now, r, obs)
			if obs != nil {
				obs.ServerTicked(now, d.Server)
			}
		} else {
			d.route(now, d.Server.Ready(), obs)
		}
		for _, p := range d.Players {
			if p.frames != nil && p.nextF <= now {
				p.nextF += p.frame
				if p.Client.Phase() == client.Connected {
					p.frames.Frame(now, p.Client)
				}
			}
		}
		for i, p := range d.Players {
			if p.next > now {
				continue
			}
			p.next += d.tick
			if p.Client.Phase() == client.Idle && now >= p.join {
				p.Client.Connect(now)
			}
			var in game.UserCmd
			if p.Client.Phase() == client.Connected && p.Brain != nil {
				in = p.Brain.Input(now, p.Client)
			}
			r := p.Client.Tick(now, in)
			d.send(now, p, r)
			if p.observer != nil {
				p.observer.Observe(now, p.Client, r)
			}
			if obs != nil {
				obs.Ticked(now, i, p, r)
			}
		}
	}
}

// deliver hands every datagram due at now to its receiver, in a fixed
// order: for each player, what it sent the server, then what the server
// sent it.
func (d *Driver) deliver(now time.Duration, obs Observer) {
	for i, p := range d.Players {
		if p.upAt <= now {
			for {
				b, ok := p.Up.Receive(now, d.pkt[:0])
				if !ok {
					break
				}
				_ = d.Server.Step(now, server.Peer(i), b) // the server counts what it rejects
			}
			p.upAt = arrival(p.Up)
		}
		if p.downAt <= now {
			for {
				b, ok := p.Down.Receive(now, d.pkt[:0])
				if !ok {
					break
				}
				_ = p.Client.Step(now, b) // the client counts what it rejects
				r := p.Client.Ready()
				d.send(now, p, r) // appeals answer events at once
				if p.observer != nil {
					p.observer.Observe(now, p.Client, r)
				}
				if obs != nil {
					obs.Delivered(now, i, p, r)
				}
			}
			p.downAt = arrival(p.Down)
		}
	}
}

// send puts what player p's client handed over to send (r) on its
// uplink.
func (d *Driver) send(now time.Duration, p *Player, r *client.Ready) {
	for _, dg := range r.Messages {
		p.Up.Send(now, dg.Data)
	}
	if len(r.Messages) > 0 {
		p.upAt = arrival(p.Up)
	}
}

// ClientReadys is an Observer that sees the clients' handovers alone,
// in order (those of Delivered and Ticked): a test's or a tool's count
// of what the clients were told.
type ClientReadys func(now time.Duration, i int, p *Player, r *client.Ready)

// Delivered calls f.
func (f ClientReadys) Delivered(now time.Duration, i int, p *Player, r *client.Ready) {
	f(now, i, p, r)
}

// Ticked calls f.
func (f ClientReadys) Ticked(now time.Duration, i int, p *Player, r *client.Ready) {
	f(now, i, p, r)
}

// ServerReady does nothing.
func (ClientReadys) ServerReady(time.Duration, *server.Server, *server.Ready) {}

// ServerTicked does nothing.
func (ClientReadys) ServerTicked(time.Duration, *server.Server) {}

// NoObserver is an Observer that does nothing: an observer that needs
// some of the four methods embeds it and defines those alone, as a
// game's rules embed server.NoRules.
type NoObserver struct{}

// Delivered does nothing.
func (NoObserver) Delivered(time.Duration, int, *Player, *client.Ready) {}

// Ticked does nothing.
func (NoObserver) Ticked(time.Duration, int, *Player, *client.Ready) {}

// ServerReady does nothing.
func (NoObserver) ServerReady(time.Duration, *server.Server, *server.Ready) {}

// ServerTicked does nothing.
func (NoObserver) ServerTicked(time.Duration, *server.Server) {}

// ServerTicks is an Observer that runs a game's server logic alone,
// after each of the server's ticks (ServerTicked), as
// realtime.MatchConfig.OnTick runs it in a live match:
//
//	d.Run(10*time.Second, sim.ServerTicks(func(now time.Duration, s *server.Server) {
//		s.SetEntity(door, doorAt(now), doorBody)
//	}))
type ServerTicks func(now time.Duration, s *server.Server)

// Delivered does nothing.
func (ServerTicks) Delivered(time.Duration, int, *Player, *client.Ready) {}

// Ticked does nothing.
func (ServerTicks) Ticked(time.Duration, int, *Player, *client.Ready) {}

// ServerReady does nothing.
func (ServerTicks) ServerReady(time.Duration, *server.Server, *server.Ready) {}

// ServerTicked calls f.
func (f ServerTicks) ServerTicked(now time.Duration, s *server.Server) { f(now, s) }

// route puts what the server has to send on the players' downlinks and
// shows obs the handover.
func (d *Driver) route(now time.Duration, r *server.Ready, obs Observer) {
	if obs != nil {
		obs.ServerReady(now, d.Server, r)
	}
	for _, dg := range r.Messages {
		if int(dg.To) < len(d.Players) {
			p := d.Players[dg.To]
			p.Down.Send(now, dg.Data)
			p.downAt = arrival(p.Down)
		}
	}
}

// splitmix derives independent seeds for each link and player from a
// run's seed (SplitMix64, Steele, Lea and Flood 2014).
type splitmix struct{ state uint64 }

func (s *splitmix) next() uint64 {
	s.state += 0x9e3779b97f4a7c15
	z := s.state
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// ArmShooter makes srv and every player's client play lagkit's shooter
// with its weapons, loadout (nil: the rifle alone): shooter.Arm on the
// server's configuration and shooter.ArmClient on each client's.
func ArmShooter(srv *server.Config, players []PlayerConfig, loadout []weapon.Weapon) error {
	if err := shooter.Arm(srv, loadout); err != nil {
		return err
	}
	for i := range players {
		if err := shooter.ArmClient(&players[i].Client, loadout); err != nil {
			return err
		}
	}
	return nil
}
