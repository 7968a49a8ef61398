package reckoning

import (
	"time"

	"github.com/lagkit/lagkit/geom"
)

// Led is led reckoning (Reference: [led], docs/references.md): the
// threshold of each step comes from how well the receiver's blended
// velocity agrees with the trend under the entity,
// η = ηmin + C (ηmax - ηmin), and the blend time is B = K/η. Zero fields
// take the defaults.
type Led struct {
	Trend *TrendMap
	// EtaMin and EtaMax bound the threshold; EtaMid is the threshold
	// where the trend map has no trend (outside it, or a cell no one
	// crossed) or the receiver's model has no horizontal velocity to
	// compare with it, dead reckoning's: there is nothing to lead with.
	EtaMin, EtaMid, EtaMax float64
	K                      float64 // metre-seconds
}

// Eta returns the threshold for an entity at pos with blended velocity
// vb.
func (l Led) Eta(pos, vb geom.Vec3) float64 {
	lo, mid, hi := or(l.EtaMin, DefaultEtaMin), or(l.EtaMid, DefaultEta), or(l.EtaMax, DefaultEtaMax)
	if l.Trend == nil {
		return mid
	}
	vp, ok := l.Trend.Lookup(pos)
	if !ok || vb.X == 0 && vb.Y == 0 {
		// No trend here, or a receiver model that stands still and so
		// has no direction to compare with one (C = |Vb·Vp| is
		// undefined): nothing to lead with either way.
		return mid
	}
	return Threshold(Correlation(vb, vp), lo, hi)
}

// BlendTime returns K/η.
func (l Led) BlendTime(eta float64) time.Duration { return BlendTime(or(l.K, DefaultK), eta) }

func or(v, def float64) float64 {
	if v > 0 {
		return v
	}
	return def
}
