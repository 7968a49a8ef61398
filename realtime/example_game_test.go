package realtime_test

import (
	"context"
	"log/slog"

	"github.com/lagkit/lagkit/client"
	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/lagcomp"
	"github.com/lagkit/lagkit/realtime"
	"github.com/lagkit/lagkit/server"
	"github.com/lagkit/lagkit/transport"
	"github.com/lagkit/lagkit/world"
	"github.com/prometheus/client_golang/prometheus"
)

// discShots is a game's shot resolution: one ray along the shooter's
// aim, tested where the lag compensation policy says, for the damage of
// the disc it hits.
type discShots struct{}

func (discShots) Fire(w *server.ShotWorld) {
	f := &w.Shot
	ray := geom.Ray{Origin: f.Eye, Dir: game.AimDir(f.Cmd.Aimed().Yaw, f.Cmd.Aimed().Pitch)}
	if h, ok := w.Trace(ray, 100); ok {
		w.Hit(int16(h.Damage)) // judged by the policy, then health, death, the kill
	}
}

// tap is the game's step: lagkit's movement, and a shot at every
// command with the trigger held.
func tap(s game.PlayerState, cmd game.UserCmd, ctx *game.StepCtx) (game.PlayerState, bool) {
	s, _ = ctx.Step(s, cmd)
	return s, cmd.Buttons.Has(game.BtnFire) && s.Flags&game.FlagDead == 0
}

// A game of its own in a live match over UDP: its step and values on
// both ends, its players' bodies, and its shot resolution, each shot
// traced at the time its shooter saw.
func ExampleMatchConfig_game() {
	ctx := context.Background()
	m := world.Field()
	var disc lagcomp.Body = lagcomp.Parts{{Shape: lagcomp.Circle{R: 0.4}, Damage: 20}}
	host := realtime.NewHost(slog.Default(), realtime.NewMetrics(prometheus.NewRegistry()))
	if _, err := host.Start(realtime.MatchConfig{
		Map: m.Name, World: m, Mode: "ffa",
		Step: tap, Body: disc, Shots: discShots{},
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
		Client: client.Config{Map: m, Step: tap, Name: "me"},
	})
}
