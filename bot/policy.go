// Package bot is the seam for any game's computer players: a Policy
// decides a player's command each tick from what its client core shows,
// and the harnesses (sim.NewBots, realtime.MatchConfig.BotPolicy,
// match.Config.BotPolicy, study.Simulation.BotPolicy,
// experiment.Options.BotPolicy, the load tool) drive it through the real
// client code over emulated or real links. lagkit's shooter's own bots
// are package shooter/bots.
package bot

import (
	"time"

	"github.com/lagkit/lagkit/client"
	"github.com/lagkit/lagkit/game"
)

// Policy is a computer player of any game: each tick it decides the
// player's command from what its client core shows (the predicted own
// state, the others as drawn, the events and the game's values that
// arrived; see Observer), as a person at the screen would. The simulation driver
// (sim.Driver) and a live match's server-side bots
// (realtime.MatchConfig.BotPolicy) drive a Policy through the real
// client code, over emulated or real links; a game brings its own, and
// lagkit's shooter's bots (shooter/bots) are one. Everything random in a Policy must come from the
// seed it was made with (Maker), so that a simulated run is a function
// of its seed.
type Policy interface {
	// Input returns the command for the client's tick at now.
	Input(now time.Duration, c *client.Client) game.UserCmd
}

// FramePolicy is a Policy that also acts between ticks at a display
// rate (a person at a screen faster than the tick rate): its driver
// calls Frame FrameRate times a second from the player's join on, before
// the tick's Input when a frame and a tick fall at the same instant. A
// frame may aim and press through the client (client.Client.Frame) so
// that the next command carries the press's instant.
type FramePolicy interface {
	Policy
	// FrameRate is frames a second, 0 for none.
	FrameRate() int
	Frame(now time.Duration, c *client.Client)
}

// Observer is a Policy that also sees what its client core tells its
// player (the game's events, the kills, the hits on it): its driver
// calls Observe with each of the client's handovers (client.Ready), in
// order, as it takes them, so that the next Input can act on them. r
// is valid during the call only. Observe may send the game's events
// (client.Client.SendEvent).
type Observer interface {
	Policy
	Observe(now time.Duration, c *client.Client, r *client.Ready)
}

// Maker makes the policy of a run's bot number i (from 0), seeded by
// seed, which its harness derives from the run's own seed.
type Maker func(i int, seed uint64) (Policy, error)
