package sim_test

import (
	"testing"
	"time"

	"github.com/lagkit/lagkit/netem"
	"github.com/lagkit/lagkit/server"
	"github.com/lagkit/lagkit/sim"
	"github.com/lagkit/lagkit/world"
)

// readyCounter sees the server's handovers alone: the other three
// methods are NoObserver's.
type readyCounter struct {
	sim.NoObserver
	ticks uint32
}

func (r *readyCounter) ServerReady(_ time.Duration, _ *server.Server, rd *server.Ready) {
	r.ticks += uint32(rd.Ticks)
}

// TestServerTicks: a function run as sim.ServerTicks is called once
// after each of the server's ticks, in order, at the tick's time; an
// observer embedding sim.NoObserver gets the one method it defines.
func TestServerTicks(t *testing.T) {
	link := netem.Config{Latency: 20 * time.Millisecond}
	d, err := sim.NewDriver(server.Config{Map: world.Field(), Seed: 1},
		[]sim.PlayerConfig{{Up: link, Down: link}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	var calls, last uint32
	var bad []string
	d.Run(time.Second, sim.ServerTicks(func(now time.Duration, s *server.Server) {
		calls++
		if s.Tick() != last+1 || now != s.Time() {
			bad = append(bad, now.String())
		}
		last = s.Tick()
	}))
	if len(bad) > 0 || calls == 0 || calls != d.Server.Tick() {
		t.Fatalf("%d calls for %d ticks; out of order at %v", calls, d.Server.Tick(), bad)
	}
	rc := &readyCounter{}
	d.Run(2*time.Second, rc)
	if want := d.Server.Tick() - calls; rc.ticks != want {
		t.Fatalf("the embedding observer saw %d ticks handed over, want %d", rc.ticks, want)
	}
}
