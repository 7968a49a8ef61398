package aimassist

import "time"

// magnetism bends a near miss onto the nearest hitbox within a cone that
// widens with the shooter's round trip: cone_deg + per_second_deg x RTT.
type magnetism struct{ base, perSecond float64 }

func newMagnetism(cfg Config) (Mode, error) {
	base, per := cfg.ConeDeg, cfg.PerSecondDeg
	if base == 0 {
		base = 0.5
	}
	if per == 0 {
		per = 2.5
	}
	return magnetism{deg(base), deg(per)}, nil
}

func (magnetism) Name() string { return Magnetism }

func (m magnetism) Cone(rtt time.Duration) (float64, bool) {
	return min(m.base+m.perSecond*rtt.Seconds(), deg(MaxConeDeg)), false
}
