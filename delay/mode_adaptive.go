package delay

import (
	"time"

	"github.com/lagkit/lagkit/game"
)

// adaptive is adaptive time delay: a player is held back only to match
// the slowest enemy it interacts with, as its trigger decides ([atd]).
type adaptive struct {
	trigger Trigger
	n       int
	// pairs holds, per ordered pair of slots, whether they interact
	// (symmetric).
	pairs []bool
}

func newAdaptive(cfg Config, env Env) (Mode, error) {
	mk, err := Triggers.Lookup(cfg.Trigger)
	if err != nil {
		return nil, err
	}
	tr, err := mk(cfg, env)
	if err != nil {
		return nil, err
	}
	return &adaptive{trigger: tr, n: env.Slots, pairs: make([]bool, env.Slots*env.Slots)}, nil
}

func (a *adaptive) Targets(players []Player, enemies func(i, j int) bool, targets []time.Duration) {
	n := a.n
	for i := range players {
		for j := i + 1; j < n; j++ {
			p, q := &players[i], &players[j]
			on := p.Present && q.Present && !p.State.Has(game.FlagDead) && !q.State.Has(game.FlagDead) &&
				enemies(i, j) && a.trigger.Interact(&p.State, &q.State, a.pairs[i*n+j])
			a.pairs[i*n+j], a.pairs[j*n+i] = on, on
		}
	}
	for i := range players {
		if !players[i].Present {
			continue
		}
		hi := players[i].Latency
		for j := range players {
			if players[j].Present && a.pairs[i*n+j] {
				hi = max(hi, players[j].Latency)
			}
		}
		targets[i] = hi - players[i].Latency
	}
}
