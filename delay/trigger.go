package delay

import (
	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/internal/registry"
)

// Trigger decides whether two living enemies interact, for adaptive
// delay. Triggers are chosen by name (Config.Trigger); adding one takes
// one file and one line in the registry.
type Trigger interface {
	// Interact reports whether players in states a and b interact now,
	// given whether they did at the last reading.
	Interact(a, b *game.PlayerState, was bool) bool
}

// Trigger names.
const (
	Proximity = "proximity"
	FOV       = "fov"
	// ProximityOrFOV is the study's trigger: either condition ([atd],
	// section 3.2.2, Figure 13).
	ProximityOrFOV = "proximity-or-fov"
)

// Triggers is the registry of adaptive delay's triggers, by name, in the
// order help lists them.
var Triggers = registry.New("trigger",
	registry.Entry[func(Config, Env) (Trigger, error)]{Name: Proximity, Item: newProximity},
	registry.Entry[func(Config, Env) (Trigger, error)]{Name: FOV, Item: newFOV},
	registry.Entry[func(Config, Env) (Trigger, error)]{Name: ProximityOrFOV, Item: newEither},
)
