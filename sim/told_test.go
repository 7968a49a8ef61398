package sim_test

import (
	"slices"
	"testing"
	"time"

	"github.com/lagkit/lagkit/client"
	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/netem"
	"github.com/lagkit/lagkit/server"
	lkshooter "github.com/lagkit/lagkit/shooter"
	"github.com/lagkit/lagkit/shooter/mode"
	"github.com/lagkit/lagkit/sim"
	"github.com/lagkit/lagkit/world"
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

// noter is a brain that stands still and keeps the sequence numbers of
// the reliable events its client's handovers delivered (a bot.Observer).
type noter struct{ seqs []uint32 }

func (*noter) Input(time.Duration, *client.Client) game.UserCmd { return game.UserCmd{} }

func (n *noter) Observe(_ time.Duration, _ *client.Client, r *client.Ready) {
	for _, e := range r.Notes {
		n.seqs = append(n.seqs, e.Seq)
	}
}

// TestBrainObservesHandovers: a brain that is a bot.Observer sees each
// of its client's handovers once, as the run's observer does: the
// reliable events its player was told, each once, in order.
func TestBrainObservesHandovers(t *testing.T) {
	link := netem.Config{Latency: 30 * time.Millisecond, Loss: 0.1}
	brains := []*noter{{}, {}}
	d, err := sim.NewDriver(server.Config{Map: world.Field(), Seed: 5, Rules: lkshooter.Rules(mode.Config{Mode: mode.TDM})},
		[]sim.PlayerConfig{{Brain: brains[0], Up: link, Down: link}, {Brain: brains[1], Up: link, Down: link, JoinAt: time.Second}}, 5)
	if err != nil {
		t.Fatal(err)
	}
	var seen [2][]uint32
	d.Run(4*time.Second, sim.ClientReadys(func(_ time.Duration, i int, _ *sim.Player, r *client.Ready) {
		for _, e := range r.Notes {
			seen[i] = append(seen[i], e.Seq)
		}
	}))
	for i, b := range brains {
		if len(b.seqs) < 3 || !slices.Equal(b.seqs, seen[i]) {
			t.Fatalf("player %d: the brain saw events %v, the run's observer %v", i, b.seqs, seen[i])
		}
		for k, s := range b.seqs {
			if s != uint32(k+1) {
				t.Fatalf("player %d: event %d has number %d", i, k, s)
			}
		}
	}
}
