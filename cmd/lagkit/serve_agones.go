package main

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/lagkit/lagkit/agones"
	"github.com/lagkit/lagkit/realtime"
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

// startAgones finds the SDK server and starts the GameServer of the
// host's one match.
func startAgones(ctx context.Context, o agonesOptions, host *realtime.Host, log *slog.Logger) (*agones.Lifecycle, error) {
	sdk, err := agones.NewFromEnv(agones.Options{Wait: o.wait})
	if err != nil {
		return nil, err
	}
	ms := host.Matches()
	if len(ms) != 1 {
		return nil, fmt.Errorf("agones: %d matches running, want 1", len(ms))
	}
	log.Info("agones", "sdk", sdk.Base())
	return agones.Start(ctx, sdk, ms[0], log)
}
