package scaling

import (
	"math"
	"time"
)

// Model is a fitted model of hit accuracy against round trip and hitbox
// scale: logit(accuracy) = c + LatencyCoef x RTT + Latency2Coef x RTT² +
// (ScaleCoef + InteractionCoef x RTT) x log(scale), RTT in ms. Accuracy
// falls with latency and rises with the scale (ScaleCoef > 0), as
// Carlson et al. found for people ([carlson-scaling]); InteractionCoef
// lets the scale's effect change with latency. A scale's effect that is
// not positive at a round trip holds nothing there (Hold returns 1).
type Model struct {
	LatencyCoef, Latency2Coef, ScaleCoef, InteractionCoef float64
}

// DefaultModel is the model lagkit ships: fitted by the scaling
// experiment's grid part (latency 0 to 250 ms by hitbox scale 1 to 2,
// bots, policy none) on seeds held apart from those its comparison
// reports (lagkit experiment run scaling --seed 7: R² 0.976 over 90
// cells, docs/replications.md).
var DefaultModel = Model{LatencyCoef: -0.003962, Latency2Coef: -5.859e-6, ScaleCoef: 2.442, InteractionCoef: -0.002414}

// Hold returns the scale at which the model's accuracy at rtt equals its
// accuracy at no latency and scale 1: exp(-(LatencyCoef x RTT +
// Latency2Coef x RTT²) / (ScaleCoef + InteractionCoef x RTT)).
func (m Model) Hold(rtt time.Duration) float64 {
	ms := float64(rtt) / float64(time.Millisecond)
	per := m.ScaleCoef + m.InteractionCoef*ms
	if !(per > 0) {
		return 1
	}
	return math.Exp(-(m.LatencyCoef*ms + m.Latency2Coef*ms*ms) / per)
}

// accuracyHold scales each shooter's targets by the factor the model
// says holds its expected accuracy at the zero-latency value, capped.
type accuracyHold struct {
	m   Model
	max float64
}

func newAccuracyHold(cfg Config) (Mode, error) {
	m := DefaultModel
	if cfg.LatencyCoef != 0 || cfg.Latency2Coef != 0 || cfg.ScaleCoef != 0 || cfg.InteractionCoef != 0 {
		m = Model{LatencyCoef: cfg.LatencyCoef, Latency2Coef: cfg.Latency2Coef, ScaleCoef: cfg.ScaleCoef, InteractionCoef: cfg.InteractionCoef}
	}
	return accuracyHold{m, cfg.Max}, nil
}

func (accuracyHold) Name() string { return AccuracyHold }

func (a accuracyHold) Scale(rtt time.Duration) float64 { return capped(a.m.Hold(rtt), a.max) }
