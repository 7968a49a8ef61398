// Package scaling is attribute scaling, a world adjustment technique
// ([taxonomy]): the server tests a shot against its targets' hitboxes
// scaled up by a factor that depends on the shooter's measured latency,
// in the same (rewound, under a rewinding policy) world it tests any
// shot in. A shot that misses the true hitboxes but meets the scaled
// ones, with a clear line of fire to the scaled part, hits.
//
// Modes decide the factor (Modes lists them): none; fixed, one factor for
// every shooter; linear, 1 + k x RTT capped; and accuracy-hold, the
// factor a fitted model of hit accuracy against latency and scale says
// holds the shooter's expected accuracy at its zero-latency value
// ([carlson-scaling], [lee-target]). The package is sans-IO: the server
// asks a Mode for a factor and calls Trace with its own poses.
package scaling

import (
	"fmt"
	"math"
	"time"

	"github.com/lagkit/lagkit/internal/registry"
)

// Mode decides the hitbox scale for a shooter. Modes are chosen by name
// (Config.Name); adding one takes one file and one line in the registry.
type Mode interface {
	// Name is the mode's name in configurations and records.
	Name() string
	// Scale returns the factor the hitboxes a shot by a shooter with
	// round trip rtt is tested against are scaled by: at least 1.
	Scale(rtt time.Duration) float64
}

// Config selects a mode and its parameters as a match configuration
// states them. Zero parameters take their defaults.
type Config struct {
	Name string `toml:"name" json:"name"`
	// Factor is fixed's scale (default 1.5).
	Factor float64 `toml:"factor" json:"factor,omitempty"`
	// PerSecond is linear's k: the scale grows by k per second of round
	// trip (default 2.5: 1.5 at 200 ms).
	PerSecond float64 `toml:"per_second" json:"per_second,omitempty"`
	// Max caps every mode's scale (default 2).
	Max float64 `toml:"max" json:"max,omitempty"`
	// LatencyCoef, Latency2Coef, ScaleCoef and InteractionCoef are
	// accuracy-hold's model (see Model; default DefaultModel, all four
	// taken together when any is set).
	LatencyCoef     float64 `toml:"latency_coef" json:"latency_coef,omitempty"`
	Latency2Coef    float64 `toml:"latency2_coef" json:"latency2_coef,omitempty"`
	ScaleCoef       float64 `toml:"scale_coef" json:"scale_coef,omitempty"`
	InteractionCoef float64 `toml:"interaction_coef" json:"interaction_coef,omitempty"`
}

// Mode names.
const (
	None         = "none"
	Fixed        = "fixed"
	Linear       = "linear"
	AccuracyHold = "accuracy-hold"
)

// Modes is the registry of attribute scaling modes, by name, in the
// order help lists them.
var Modes = registry.New("scaling mode",
	registry.Entry[func(Config) (Mode, error)]{Name: None, Item: newNone},
	registry.Entry[func(Config) (Mode, error)]{Name: Fixed, Item: newFixed},
	registry.Entry[func(Config) (Mode, error)]{Name: Linear, Item: newLinear},
	registry.Entry[func(Config) (Mode, error)]{Name: AccuracyHold, Item: newAccuracyHold},
)

// MaxScale bounds every factor: hitboxes four times their size would
// make aiming moot.
const MaxScale = 4.0

// New returns the mode cfg names (none when the name is empty), with its
// parameters checked.
func New(cfg Config) (Mode, error) {
	if cfg.Name == "" {
		cfg.Name = None
	}
	mk, err := Modes.Lookup(cfg.Name)
	if err != nil {
		return nil, fmt.Errorf("scaling: %w", err)
	}
	if cfg.Max == 0 {
		cfg.Max = 2
	}
	for _, f := range []struct {
		name string
		v    float64
		ok   bool
	}{
		{"factor", cfg.Factor, cfg.Factor == 0 || cfg.Factor >= 1 && cfg.Factor <= MaxScale},
		{"per_second", cfg.PerSecond, cfg.PerSecond >= 0 && cfg.PerSecond <= 100},
		{"max", cfg.Max, cfg.Max >= 1 && cfg.Max <= MaxScale},
		{"latency_coef", cfg.LatencyCoef, cfg.LatencyCoef > -1 && cfg.LatencyCoef < 1},
		{"latency2_coef", cfg.Latency2Coef, cfg.Latency2Coef > -1 && cfg.Latency2Coef < 1},
		{"scale_coef", cfg.ScaleCoef, cfg.ScaleCoef >= 0 && cfg.ScaleCoef < 100},
		{"interaction_coef", cfg.InteractionCoef, cfg.InteractionCoef > -1 && cfg.InteractionCoef < 1},
	} {
		if !f.ok || math.IsNaN(f.v) {
			return nil, fmt.Errorf("scaling: mode %s: %s is %v: want factor 1 to %v, per_second 0 to 100, max 1 to %v, latency_coef and latency2_coef in (-1, 1), scale_coef in [0, 100), interaction_coef in (-1, 1)",
				cfg.Name, f.name, f.v, MaxScale, MaxScale)
		}
	}
	return mk(cfg)
}

// capped limits a factor to [1, max].
func capped(f, max float64) float64 { return math.Min(math.Max(f, 1), max) }
