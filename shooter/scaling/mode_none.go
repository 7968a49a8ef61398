package scaling

import "time"

// none leaves hitboxes as they are.
type none struct{}

func newNone(Config) (Mode, error) { return none{}, nil }

func (none) Name() string                { return None }
func (none) Scale(time.Duration) float64 { return 1 }
