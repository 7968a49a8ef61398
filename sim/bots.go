package sim

import (
	"errors"
	"fmt"
	"time"

	"github.com/lagkit/lagkit/bot"
	"github.com/lagkit/lagkit/client"
	"github.com/lagkit/lagkit/netem"
	"github.com/lagkit/lagkit/server"
	"github.com/lagkit/lagkit/wire"
)

// Bots is a simulated match of a game's own computer players: each bot
// is a policy its Maker makes (bot.Policy, at a display rate when it is
// a bot.FramePolicy), playing through its own client core over its own
// emulated links, as NewDriver's players do. Everything that differs
// between bots (when each joins, its ticks' phase against the server's,
// its policy's seed, its links' seeds) comes from the run's seed.
type Bots struct {
	// Server configures the server core; a zero Seed takes one from
	// the run's seed.
	Server server.Config
	// Client configures every bot's client core; the driver fills in the
	// server's Map, Movement, Step, Game, Cmd and Shape, and an empty Name
	// with bot0, bot1 and so on.
	Client client.Config
	// Players is how many bots play, 1 to the server's MaxClients.
	Players int
	// Policy makes bot i's policy from a seed of its own.
	Policy bot.Maker
	// Up and Down are each bot's links to and from the server.
	Up, Down netem.Config
	// JoinWithin spreads the bots' joins over the run's start, each at a
	// time drawn within it (default 200 ms).
	JoinWithin time.Duration
}

// NewBots returns a driver for the match b describes, seeded by seed:
// the same seed gives the same run, bit for bit.
func NewBots(b Bots, seed uint64) (*Driver, error) {
	if b.Policy == nil {
		return nil, errors.New("sim: bots: no policy")
	}
	if b.JoinWithin == 0 {
		b.JoinWithin = 200 * time.Millisecond
	}
	if b.JoinWithin < 0 {
		return nil, fmt.Errorf("sim: bots: join within %v, want a positive span", b.JoinWithin)
	}
	if b.Players < 1 || b.Players > wire.MaxEntities {
		return nil, fmt.Errorf("sim: bots: %d players, want 1 to the server's MaxClients", b.Players)
	}
	seeds := splitmix{state: seed}
	if b.Server.Seed == 0 {
		b.Server.Seed = seeds.next()
	}
	players := make([]PlayerConfig, b.Players)
	for i := range players {
		cc := b.Client
		if cc.Name == "" {
			cc.Name = fmt.Sprintf("bot%d", i)
		}
		join := time.Duration(seeds.next() % uint64(b.JoinWithin))
		// A phase within a second, which NewDriver takes modulo the
		// tick: a second holds a whole number of ticks at the usual rates.
		phase := time.Duration(seeds.next() % uint64(time.Second))
		p, err := b.Policy(i, seeds.next())
		if err != nil {
			return nil, fmt.Errorf("sim: bot %d: %w", i, err)
		}
		if p == nil {
			return nil, fmt.Errorf("sim: bot %d: no policy", i)
		}
		players[i] = PlayerConfig{Client: cc, Up: b.Up, Down: b.Down, Brain: p, JoinAt: join, Phase: phase}
	}
	d, err := NewDriver(b.Server, players, seeds.next())
	if err != nil {
		return nil, err
	}
	if n := d.Server.MaxClients(); b.Players > n {
		return nil, fmt.Errorf("sim: bots: %d players, want 1 to %d (the server's MaxClients)", b.Players, n)
	}
	return d, nil
}
