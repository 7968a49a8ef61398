package lagcomp

// tlc is traditional lag compensation: every player but the shooter is
// rewound to the time the shooter saw, and the first hit counts, as in
// Half-Life and Source (SPEC section 5, policy tlc).
type tlc struct{}

func newTLC(Config) (Policy, error) { return tlc{}, nil }

func (tlc) Name() string                { return "tlc" }
func (tlc) Traits() Traits              { return Traits{Rewinds: true} }
func (tlc) Rewind(*Shot) bool           { return true }
func (tlc) Judge(*Shot, *Found) Verdict { return Register }
