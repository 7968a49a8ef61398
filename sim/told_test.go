package sim_test

import (
	"time"

	"github.com/lagkit/lagkit/client"
	"github.com/lagkit/lagkit/sim"
)

// told keeps what the clients' handovers said that the tests count, by
// player: the prediction errors and, field by field, the
// mispredictions, of how many predictions. Its observe is a
// sim.ClientReadys.
type told struct {
	errs  [][]float64
	wrong []map[string]int
	of    []int
}

func newTold(players int) *told {
	t := &told{errs: make([][]float64, players), of: make([]int, players)}
	for range players {
		t.wrong = append(t.wrong, map[string]int{})
	}
	return t
}

func (t *told) observe(_ time.Duration, i int, _ *sim.Player, r *client.Ready) {
	t.errs[i] = append(t.errs[i], r.PredictionErrors...)
	for _, m := range r.Mispredictions {
		t.wrong[i][m.Field] += m.Wrong
	}
	t.of[i] += r.Predictions
}

// reset forgets what was counted: counting starts again.
func (t *told) reset() {
	for i := range t.of {
		t.errs[i], t.of[i] = t.errs[i][:0], 0
		clear(t.wrong[i])
	}
}
