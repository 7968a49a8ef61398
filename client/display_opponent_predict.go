package client

import (
	"math"
	"time"

	"github.com/lagkit/lagkit/game"
)

// OpponentPredict draws remote players at the received server time,
// each keeping its last input and velocity, without a cap, until the
// next update, then snapping to it: the simple opponent prediction of a
// top-down study (Liu, Xu and Claypool, 2022, prediction).
var OpponentPredict Display = opponentPredict{}

type opponentPredict struct{ historyOnly }

func (opponentPredict) Name() string { return "opponent-predict" }

func (opponentPredict) delay(*Config) time.Duration { return 0 }

func (opponentPredict) draw(_ *Config, r *remote, t time.Duration, out *game.PlayerState) {
	r.along(out, t, math.MaxInt64)
}
