package client

import (
	"time"

	"github.com/lagkit/lagkit/game"
)

// Extrapolate draws remote players at the received server time: the
// newest state projected along its velocity for at most ExtrapolateMax,
// then held. It shows the present, and errs whenever a player turns or
// stops before the next state arrives.
var Extrapolate Display = extrapolate{}

type extrapolate struct{ historyOnly }

func (extrapolate) Name() string { return "extrapolate" }

func (extrapolate) delay(*Config) time.Duration { return 0 }

func (extrapolate) draw(cfg *Config, r *remote, t time.Duration, out *game.PlayerState) {
	r.along(out, t, cfg.ExtrapolateMax)
}
