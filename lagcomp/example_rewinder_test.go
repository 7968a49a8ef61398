package lagcomp_test

import (
	"fmt"
	"time"

	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/lagcomp"
)

// A game's own server loop records its entities each tick and rewinds a
// shot to the time its shooter saw.
func ExampleRewinder() {
	const tick = time.Second / 64
	rw, err := lagcomp.NewRewinder(tick, time.Second, 16)
	if err != nil {
		panic(err)
	}
	// A 2D game's player: a disc of 25 cm; made a Body once.
	var disc lagcomp.Body = lagcomp.Parts{{Shape: lagcomp.Circle{R: 0.25}, Damage: 34}}
	for n := range 64 {
		rw.Begin(uint32(n))
		x := 4 * (time.Duration(n) * tick).Seconds() // running along +X at 4 m/s
		rw.Record(7, lagcomp.Pose{Pos: geom.V(x, 0, 0)}, disc)
	}
	now := 63 * tick
	seen := now - 150*time.Millisecond // what the shooter saw
	drawn, _, _ := rw.At(7, seen)
	shot := geom.Ray{Origin: geom.V(drawn.Pos.X, -10, 0), Dir: geom.V(0, 1, 0)}
	if h, ok := rw.Trace(shot, 50, seen, nil); ok {
		fmt.Printf("rewound: hit %d for %d at %.2f m\n", h.ID, h.Damage, h.Dist)
	}
	if _, ok := rw.Trace(shot, 50, now, nil); !ok {
		fmt.Println("live: miss")
	}
	// Output:
	// rewound: hit 7 for 34 at 9.75 m
	// live: miss
}
