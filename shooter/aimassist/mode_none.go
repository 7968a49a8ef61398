package aimassist

import "time"

// none assists nothing.
type none struct{}

func newNone(Config) (Mode, error) { return none{}, nil }

func (none) Name() string                       { return None }
func (none) Cone(time.Duration) (float64, bool) { return 0, false }
