package sim_test

import (
	"fmt"
	"time"

	"github.com/lagkit/lagkit/client"
	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/netem"
	"github.com/lagkit/lagkit/server"
	"github.com/lagkit/lagkit/sim"
	"github.com/lagkit/lagkit/wire"
	"github.com/lagkit/lagkit/world"
)

// eventPrinter prints the game events the server and the client hand
// over, and counts the predictions the client measured and those that
// had the field Ticks wrong; the driver's other calls are
// sim.NoObserver's.
type eventPrinter struct {
	sim.NoObserver
	wrong, of int
}

func (p *eventPrinter) Delivered(_ time.Duration, _ int, _ *sim.Player, r *client.Ready) {
	for _, ev := range r.GameEvents {
		fmt.Printf("client got %q\n", ev.Data)
	}
	p.wrong += r.Mispredicted("Ticks")
	p.of += r.Predictions
}
func (*eventPrinter) ServerReady(_ time.Duration, _ *server.Server, r *server.Ready) {
	for _, ev := range r.GameEvents {
		fmt.Printf("server got %q from %d\n", ev.Data, ev.Client)
	}
}

// A game's movement (lagkit's, plus a tick counter in its declared
// state), a
// game event each way, over a 100 ms round trip: the server and client
// cores are what any Go game drives, here on the simulator's clock.
func ExampleNewDriver() {
	type alive struct {
		Ticks uint32 `lagkit:"owner"` // ticks alive, predicted like the position
	}
	decl := game.MustDeclare[alive]()
	counting := func(s game.PlayerState, cmd game.UserCmd, ctx *game.StepCtx) (game.PlayerState, bool) {
		s, fired := ctx.Step(s, cmd)
		decl.Of(&s).Ticks++
		return s, fired
	}
	const hello = wire.EventGameMin + 1
	link := netem.Config{Latency: 50 * time.Millisecond}
	d, err := sim.NewDriver(server.Config{Map: world.Field(), Step: counting, Game: decl.Layout},
		[]sim.PlayerConfig{{Up: link, Down: link}}, 1)
	if err != nil {
		panic(err)
	}
	p := &eventPrinter{}
	d.Run(time.Second, p)
	c := d.Players[0].Client
	fmt.Println(c.Phase() == client.Connected)
	c.SendEvent(hello, []byte("hi server"))
	d.Server.SendEvent(c.ID(), hello, []byte("hi client"))
	d.Run(2*time.Second, p)
	fmt.Println("ticks mispredicted:", p.wrong, "of many:", p.of > 50)
	// Output:
	// true
	// client got "hi client"
	// server got "hi server" from 0
	// ticks mispredicted: 0 of many: true
}
