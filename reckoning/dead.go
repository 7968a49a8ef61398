package reckoning

import (
	"time"

	"github.com/lagkit/lagkit/geom"
)

// Dead is dead reckoning: one threshold everywhere and one blend time.
// The zero Dead uses DefaultEta and the blend time led reckoning has at
// that threshold, K/η (56 ms).
type Dead struct {
	Threshold float64       // metres; default DefaultEta
	Blend     time.Duration // default BlendTime(DefaultK, Threshold)
}

// Eta returns the threshold.
func (d Dead) Eta(geom.Vec3, geom.Vec3) float64 {
	if d.Threshold > 0 {
		return d.Threshold
	}
	return DefaultEta
}

// BlendTime returns the blend time.
func (d Dead) BlendTime(eta float64) time.Duration {
	if d.Blend > 0 {
		return d.Blend
	}
	return BlendTime(DefaultK, eta)
}
