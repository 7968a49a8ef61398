package scaling

import "time"

// fixed scales every shooter's targets by one factor, whatever its
// latency: the experiment's way to measure accuracy against scale.
type fixed struct{ f float64 }

func newFixed(cfg Config) (Mode, error) {
	f := cfg.Factor
	if f == 0 {
		f = 1.5
	}
	return fixed{capped(f, cfg.Max)}, nil
}

func (fixed) Name() string                  { return Fixed }
func (m fixed) Scale(time.Duration) float64 { return m.f }
