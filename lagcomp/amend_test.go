package lagcomp

import (
	"reflect"
	"testing"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
)

// TestHistoryAmend: amending player 0's state at held ticks leaves the
// history as recording those ticks again, in order, with the new state
// would (states, presence, swept boxes, newest tick), and refuses ticks
// no longer held or not yet recorded.
func TestHistoryAmend(t *testing.T) {
	amended := NewHistory(dt, time.Second, 4)
	again := NewHistory(dt, time.Second, 4)
	record(amended, 1, 200)
	record(again, 1, 200)
	moved := func(n uint32) game.PlayerState {
		return game.PlayerState{Pos: geom.V(float64(n), 3, 1), Yaw: uint16(n * 7)}
	}
	for n := uint32(176); n <= 200; n++ { // across a sweep chunk's start (192)
		if !amended.Amend(n, 0, moved(n)) {
			t.Fatalf("tick %d held, not amended", n)
		}
		again.Begin(n)
		again.Set(0, moved(n))
		again.Set(1, game.PlayerState{Pos: geom.V(5, 5, 0)})
	}
	if !reflect.DeepEqual(amended, again) {
		t.Errorf("amended history differs from the one recorded again")
	}
	if st, ok := amended.At(0, 180*dt); !ok || st != moved(180) {
		t.Errorf("amended state %+v (ok %v), want %+v", st, ok, moved(180))
	}
	for _, n := range []uint32{100, 201} {
		if amended.Amend(n, 0, moved(n)) {
			t.Errorf("tick %d amended: not held", n)
		}
	}
	if amended.Amend(180, 4, moved(180)) || amended.Amend(180, -1, moved(180)) {
		t.Errorf("a player outside the history amended")
	}
}
