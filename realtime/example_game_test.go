package realtime_test

import (
	"context"
	"log/slog"

	"github.com/lagkit/lagkit/client"
	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/lagcomp"
	"github.com/lagkit/lagkit/realtime"
	"github.com/lagkit/lagkit/server"
	"github.com/lagkit/lagkit/transport"
	"github.com/lagkit/lagkit/world"
	"github.com/prometheus/client_golang/prometheus"
)

// A game of its own in a live match over UDP: its step and values on
// both ends, its players' bodies, and its server logic after each tick,
// resolving the shots lagkit hands it at the time each shooter saw.
func ExampleMatchConfig_game() {
	ctx := context.Background()
	m := world.Field()
	var disc lagcomp.Body = lagcomp.Parts{{Shape: lagcomp.Circle{R: 0.4}, Damage: 20}}
	referee := func(s *server.Server, r *server.Ready) {
		for _, f := range r.Fired {
			ray := game.ShotRay(f.State, f.Cmd, f.Shooter, 0, &s.Config().Weapons[0], s.Config().Movement)
			if h, ok := s.TraceAt(ray, 100, f.Target, func(id int) bool { return id == f.Shooter }); ok {
				s.SendEvent(h.ID, 1<<14, []byte{byte(f.Shooter)}) // a game event: you were hit
			}
		}
	}
	host := realtime.NewHost(slog.Default(), realtime.NewMetrics(prometheus.NewRegistry()))
	if _, err := host.Start(realtime.MatchConfig{
		Map: m.Name, World: m, Mode: "ffa",
		Step: game.DefaultStep, Body: disc, GameShots: true, OnTick: referee,
	}); err != nil {
		panic(err)
	}
	l, err := transport.ListenUDP("127.0.0.1:4000", transport.UDPOptions{})
	if err != nil {
		panic(err)
	}
	go host.Serve(ctx, l)

	// A player: the same map and step.
	conn, err := transport.Dial(ctx, "udp://127.0.0.1:4000", transport.DialOptions{})
	if err != nil {
		panic(err)
	}
	realtime.RunClient(ctx, conn, realtime.ClientConfig{
		Client: client.Config{Map: m, Step: game.DefaultStep, Name: "me"},
	})
}
