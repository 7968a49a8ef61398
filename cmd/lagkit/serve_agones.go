package main

import (
	"fmt"
	"time"
)

// agonesOptions are lagkit serve's --agones flags.
type agonesOptions struct {
	on     bool
	health time.Duration
	wait   time.Duration
}

// check refuses the --agones-* flags without --agones, and periods
// Agones could not use.
func (o agonesOptions) check(set func(string) bool, matches int) error {
	if !o.on {
		for _, f := range []string{"agones-health", "agones-wait"} {
			if set(f) {
				return fmt.Errorf("--%s needs --agones", f)
			}
		}
		return nil
	}
	if matches != 1 {
		return fmt.Errorf("--agones: the configuration has %d matches; an Agones GameServer runs one", matches)
	}
	if o.health < 10*time.Millisecond || o.health > time.Minute {
		return fmt.Errorf("--agones-health %v: want 10ms to 1m", o.health)
	}
	if o.wait <= 0 || o.wait > 10*time.Minute {
		return fmt.Errorf("--agones-wait %v: want more than 0, at most 10m", o.wait)
	}
	return nil
}
