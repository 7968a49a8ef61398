package delay

import "time"

// regular is time delay: every player's inputs and updates are held so
// that they take effect as late as the highest-latency player's ([atd]).
type regular struct{}

func newRegular(Config, Env) (Mode, error) { return regular{}, nil }

func (regular) Targets(players []Player, _ func(i, j int) bool, targets []time.Duration) {
	var top time.Duration
	for i := range players {
		if players[i].Present {
			top = max(top, players[i].Latency)
		}
	}
	for i := range players {
		if players[i].Present {
			targets[i] = top - players[i].Latency
		}
	}
}
