package scaling

import "time"

// linear scales by 1 + k x RTT, capped: hitbox_scale = 1 + k x RTT.
type linear struct{ k, max float64 }

func newLinear(cfg Config) (Mode, error) {
	k := cfg.PerSecond
	if k == 0 {
		k = 2.5
	}
	return linear{k, cfg.Max}, nil
}

func (linear) Name() string { return Linear }

func (m linear) Scale(rtt time.Duration) float64 { return capped(1+m.k*rtt.Seconds(), m.max) }
