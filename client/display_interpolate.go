package client

import (
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
)

// Interpolate draws remote players InterpDelay behind the received
// server time, between the two received states that straddle that time
// (not just the newest two), so what is drawn is a state the server
// really had; only when the buffer runs dry does it extrapolate, capped
// at ExtrapolateMax, then hold (Bernier, 2001, entity interpolation).
var Interpolate Display = interpolate{}

type interpolate struct{ historyOnly }

func (interpolate) Name() string { return "interpolate" }

func (interpolate) delay(cfg *Config) time.Duration { return cfg.InterpDelay }

func (interpolate) draw(cfg *Config, r *remote, t time.Duration, out *game.PlayerState) {
	r.along(out, t, cfg.ExtrapolateMax)
}

func (interpolate) drawPos(cfg *Config, r *remote, t time.Duration) (geom.Vec3, uint8) {
	return r.alongPos(t, cfg.ExtrapolateMax)
}
