package study

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/lagkit/lagkit/bot"
	"github.com/lagkit/lagkit/client"
	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/record"
)

// idler is a game's bot that stands and looks along its seed's yaw.
type idler struct{ yaw uint16 }

func (b idler) Input(time.Duration, *client.Client) game.UserCmd { return game.UserCmd{Yaw: b.yaw} }

// TestSimulationBotPolicy: a simulated study seats the bots its
// Simulation.BotPolicy makes, each seat's bot with a seed of its own,
// in place of lagkit's shooters: standing bots fire no shot where
// lagkit's fire hundreds.
func TestSimulationBotPolicy(t *testing.T) {
	s, err := Parse("verdicts.toml", []byte(verdictStudy))
	if err != nil {
		t.Fatal(err)
	}
	shots := func(mem *record.Memory) int {
		n := 0
		for _, r := range mem.Records {
			if _, ok := r.(record.Shot); ok {
				n++
			}
		}
		return n
	}
	var lagkits record.Memory
	if err := Run(context.Background(), s, NewSimulation(epoch), &lagkits, Options{Seed: 11}); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	seeds := map[uint64]bool{}
	made := 0
	d := NewSimulation(epoch)
	d.BotPolicy = func(i int, seed uint64) (bot.Policy, error) {
		mu.Lock()
		defer mu.Unlock()
		made++
		seeds[seed] = true
		return idler{yaw: uint16(seed)}, nil
	}
	var idle record.Memory
	if err := Run(context.Background(), s, d, &idle, Options{Seed: 11}); err != nil {
		t.Fatal(err)
	}
	// Each technique's first round plays under the same seed
	// (Options.Seed), so the two rounds' bots draw the same eight.
	if made != 16 || len(seeds) != 8 {
		t.Errorf("%d bots made with %d seeds, want 16 (8 seats, 2 rounds) with 8, one a seat", made, len(seeds))
	}
	if n, m := shots(&idle), shots(&lagkits); n != 0 || m < 100 {
		t.Errorf("standing bots fired %d shots, lagkit's %d", n, m)
	}
}
