package reckoning

import (
	"math"
	"time"

	"github.com/lagkit/lagkit/geom"
)

// GameUnit is the length in metres of one game unit of the led
// reckoning study, CS:GO's: 1.905 cm (Reference: [led], section IX,
// docs/references.md). The study prints its thresholds both in units
// and in centimetres; lagkit takes the centimetres as printed.
const GameUnit = 0.01905

// The defaults of dead and led reckoning, from the led reckoning study
// (Reference: [led], section IX, docs/references.md): thresholds
// ηmin, η, ηmax of 5, 20 and 35 units, printed as 9.5, 38.1 and
// 66.7 cm, dead reckoning using the middle one. The study's player and
// lagkit's are both about 1.8 m tall, so the thresholds carry over
// unscaled.
const (
	DefaultEtaMin = 0.095 // m: 5 units, printed as 9.5 cm
	DefaultEta    = 0.381 // m: 20 units, printed as 38.1 cm
	DefaultEtaMax = 0.667 // m: 35 units, printed as 66.7 cm
	// DefaultK is the blend constant K of B = K/η (m·s) where none is
	// calibrated: 0.0415, so blends last from 62 ms at ηmax to 437 ms at
	// ηmin (109 ms at η). The study gives K no value (its blend time was
	// tuned by hand, [led] section VII-A), and no figure lagkit compares
	// with sets it: it is CalibrateK's K, first order with recorded
	// velocities as live threshold replication reckons, at η, on one
	// 3-minute capture-the-flag match of 12 bots on metro at 64 Hz under
	// seed 1 (the first of the shipped trend maps' seeds; no experiment
	// replays that match), rounded to three figures. TestDefaultK plays
	// that match again and checks it.
	DefaultK = 0.0415
	// DefaultHeartbeat is the longest an owner stays quiet: lagkit's
	// default, which bounds how long a lost update leaves a receiver on
	// a stale trajectory while the entity itself follows the one it sent.
	DefaultHeartbeat = 5 * time.Second
)

// Threshold returns led reckoning's error threshold
// η = ηmin + C (ηmax - ηmin), with c clamped to [0, 1].
func Threshold(c, etaMin, etaMax float64) float64 {
	if !(c > 0) {
		c = 0
	}
	return etaMin + min(c, 1)*(etaMax-etaMin)
}

// BlendTime returns led reckoning's blend time B = K / η seconds, or 0
// (no blending) when eta is not positive.
func BlendTime(k, eta float64) time.Duration {
	if !(eta > 0) || !(k > 0) {
		return 0
	}
	return time.Duration(math.Min(k/eta, math.MaxInt64/1e9) * 1e9)
}

// Correlation returns C = |Vb · Vp| of the unit vectors along vb (the
// blended velocity) and vp (the trend), or 0 when either is zero.
func Correlation(vb, vp geom.Vec3) float64 {
	a, b := vb.Norm(), vp.Norm()
	return min(math.Abs(a.Dot(b)), 1)
}
