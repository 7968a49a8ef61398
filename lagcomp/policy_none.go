package lagcomp

// none tests every shot against the present server state: the shooter
// must lead its target by its own latency ([alc], no compensation).
type none struct{}

func newNone(Config) (Policy, error) { return none{}, nil }

func (none) Name() string                { return "none" }
func (none) Traits() Traits              { return Traits{} }
func (none) Rewind(*Shot) bool           { return false }
func (none) Judge(*Shot, *Found) Verdict { return Register }
