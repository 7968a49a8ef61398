package serve

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/lagkit/lagkit/agones"
	"github.com/lagkit/lagkit/realtime"
)

// startAgones finds the SDK server and starts the GameServer of the
// host's one match.
func startAgones(ctx context.Context, o Agones, host *realtime.Host, log *slog.Logger) (*agones.Lifecycle, error) {
	sdk, err := agones.NewFromEnv(agones.Options{Wait: o.Wait})
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
