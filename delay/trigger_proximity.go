package delay

import "github.com/lagkit/lagkit/game"

// proximity makes two players interact from when they come within On
// metres until they part beyond Off: hysteresis, so a pair at the edge
// does not flicker (20 and 25 m in the study, [atd]).
type proximity struct{ on, off float64 }

func newProximity(cfg Config, _ Env) (Trigger, error) { return proximity{cfg.On, cfg.Off}, nil }

func (p proximity) Interact(a, b *game.PlayerState, was bool) bool {
	d := a.Pos.Dist(b.Pos)
	if was {
		return d <= p.off
	}
	return d <= p.on
}
