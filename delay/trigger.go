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
	// ProximityOrFOV is the study's trigger: either condition ([atd],
	// section 3.2.2, Figure 13).
	ProximityOrFOV = "proximity-or-fov"
)

// triggers maps trigger names to constructors.
var triggers = map[string]func(Config, Env) (Trigger, error){
	Proximity:      newProximity,
	FOV:            newFOV,
	ProximityOrFOV: newEither,
}

// Triggers returns the registered trigger names, sorted, for command-line
// help.
func Triggers() []string { return sortedKeys(triggers) }
