package game

import (
	"fmt"
	"time"
)

// Limits every part of lagkit shares: the server core and its config
// readers, the client core, the simulation and match drivers, scenarios
// and the command line all check against these, so a value one accepts
// no other refuses.
const (
	// MinTickRate and MaxTickRate bound a server's tick rate, in Hz.
	MinTickRate, MaxTickRate = 20, 128
	// MaxPlayers bounds the players (seats, bots, simulated players) of
	// one match.
	MaxPlayers = 128
	// MaxDuration bounds how long one match, simulation or round runs.
	MaxDuration = 24 * time.Hour
)

// TickRateRange says the tick rates allowed, for error messages: "20 to
// 128".
var TickRateRange = fmt.Sprintf("%d to %d", MinTickRate, MaxTickRate)

// PlayersRange says the player counts allowed: "1 to 128".
var PlayersRange = fmt.Sprintf("1 to %d", MaxPlayers)
