package delay

import (
	"time"

	"github.com/lagkit/lagkit/internal/registry"
)

// Mode decides, at each reading, the one-way delay each player's added
// delay moves towards. Modes are chosen by name (Config.Mode); adding one
// takes one file and one line in the registry.
type Mode interface {
	// Targets sets targets[i] for every present player i, from the
	// players' latencies and states; enemies reports whether two slots'
	// players are enemies.
	Targets(players []Player, enemies func(i, j int) bool, targets []time.Duration)
}

// Mode names.
const (
	None     = "none"
	Regular  = "delay"
	Adaptive = "adaptive"
)

// Modes is the registry of time delay modes, by name, in the order help
// lists them.
var Modes = registry.New("delay mode",
	registry.Entry[func(Config, Env) (Mode, error)]{Name: None, Item: newNone},
	registry.Entry[func(Config, Env) (Mode, error)]{Name: Regular, Item: newRegular},
	registry.Entry[func(Config, Env) (Mode, error)]{Name: Adaptive, Item: newAdaptive},
)
