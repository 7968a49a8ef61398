package delay

import "time"

// none adds no delay.
type none struct{}

func newNone(Config, Env) (Mode, error) { return none{}, nil }

func (none) Targets(_ []Player, _ func(i, j int) bool, targets []time.Duration) { clear(targets) }
