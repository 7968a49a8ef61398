package delay

import "github.com/lagkit/lagkit/game"

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
)

// triggers maps trigger names to constructors.
var triggers = map[string]func(Config, Env) (Trigger, error){
	Proximity: newProximity,
	FOV:       newFOV,
}

// Triggers returns the registered trigger names, sorted, for command-line
// help.
func Triggers() []string { return sortedKeys(triggers) }
