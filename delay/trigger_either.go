package delay

import "github.com/lagkit/lagkit/game"

// either makes two players interact while either condition of the
// adaptive time delay study holds: proximity (on within On metres) or
// field of view (either sees the other) ([atd], section 3.2.2, Figure 13:
// any condition met turns the delay on, none met turns it off). The
// proximity condition keeps its hysteresis on the pair's state: a pair
// that interacts, by either condition, keeps interacting while within
// Off metres, and stops once beyond Off with neither seeing the other.
type either struct {
	near Trigger
	seen Trigger
}

func newEither(cfg Config, env Env) (Trigger, error) {
	near, err := newProximity(cfg, env)
	if err != nil {
		return nil, err
	}
	seen, err := newFOV(cfg, env)
	if err != nil {
		return nil, err
	}
	return either{near: near, seen: seen}, nil
}

func (e either) Interact(a, b *game.PlayerState, was bool) bool {
	return e.near.Interact(a, b, was) || e.seen.Interact(a, b, was)
}
