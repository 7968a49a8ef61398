package lagcomp

// tlc is traditional lag compensation: every player but the shooter is
// rewound to the time the shooter saw, and the first hit counts, as in
// Half-Life and Source ([source]; policy tlc of [alc]).
type tlc struct{}

func newTLC(Config) (Policy, error) { return tlc{}, nil }

func (tlc) Name() string                { return "tlc" }
func (tlc) Traits() Traits              { return Traits{Rewinds: true} }
func (tlc) Rewind(*Shot) bool           { return true }
func (tlc) Judge(*Shot, *Found) Verdict { return Register }
