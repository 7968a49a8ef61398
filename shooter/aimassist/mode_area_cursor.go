package aimassist

import "time"

// areaCursor treats the crosshair as a disc of area_deg's radius: a shot
// hits the part whose centre lies nearest the disc's middle within it,
// whatever the latency.
type areaCursor struct{ radius float64 }

func newAreaCursor(cfg Config) (Mode, error) {
	r := cfg.AreaDeg
	if r == 0 {
		r = 1
	}
	return areaCursor{deg(r)}, nil
}

func (areaCursor) Name() string { return AreaCursor }

func (a areaCursor) Cone(time.Duration) (float64, bool) { return a.radius, true }
