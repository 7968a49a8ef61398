package delay

import (
	"slices"
	"strings"
	"time"
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

// modes maps mode names to constructors.
var modes = map[string]func(Config, Env) (Mode, error){
	None:     newNone,
	Regular:  newRegular,
	Adaptive: newAdaptive,
}

// Modes returns the registered mode names, sorted, for command-line help.
func Modes() []string { return sortedKeys(modes) }

func sortedKeys[V any](m map[string]V) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// orList joins names as "a, b or c".
func orList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}
