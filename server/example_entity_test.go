package server_test

import (
	"fmt"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/lagcomp"
	"github.com/lagkit/lagkit/server"
	"github.com/lagkit/lagkit/world"
)

// A game's crate slides along X at 3.2 m/s; a shot traced at the time a
// shooter saw, 200 ms ago, hits it where it was then.
func ExampleServer_TraceAt() {
	srv, err := server.New(server.Config{Map: world.Field()})
	if err != nil {
		panic(err)
	}
	crate := lagcomp.Body(lagcomp.Parts{{Shape: lagcomp.Box{Min: geom.V(-0.5, -0.5, 0), Max: geom.V(0.5, 0.5, 1)}, Damage: 25}})
	id := srv.MaxClients() // the first slot above the players
	for n := 1; n <= 64; n++ {
		srv.SetEntity(id, game.PlayerState{Pos: geom.V(float64(n)*0.05, 0, 0)}, crate)
		srv.Advance(time.Duration(n) * srv.TickDuration())
	}
	now := srv.Time()
	seen := now - 200*time.Millisecond
	was, _ := srv.BodyAt(id, seen)
	shot := geom.Ray{Origin: geom.V(was.Pos.X, -10, 0.5), Dir: geom.V(0, 1, 0)}
	if h, ok := srv.TraceAt(shot, 50, seen, nil); ok {
		fmt.Printf("hit entity %d for %d, %.2f m away\n", h.ID-id, h.Damage, h.Dist)
	}
	if _, ok := srv.TraceAt(shot, 50, now, nil); !ok {
		fmt.Println("the crate as it is now: missed")
	}
	// Output:
	// hit entity 0 for 25, 9.50 m away
	// the crate as it is now: missed
}
