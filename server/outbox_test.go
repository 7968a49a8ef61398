package server

import (
	"testing"

	"github.com/lagkit/lagkit/shooter/weapon"
	"github.com/lagkit/lagkit/wire"
)

// TestOutboxSurvivesSeveralTicks checks that every snapshot of an Advance
// that runs several ticks (a real-time driver catching up after a stall)
// reaches the outbox whole, not overwritten by the next tick's snapshot
// built in the same buffer.
func TestOutboxSurvivesSeveralTicks(t *testing.T) {
	s := testServer(t, Config{})
	tick := s.TickDuration()
	join(t, s, 0, 1)
	join(t, s, 0, 2)
	var ticks []uint32
	for _, d := range s.Advance(6 * tick).Messages {
		if d.To != 1 {
			continue
		}
		if typ, err := wire.PeekType(d.Data); err != nil || typ != wire.MsgSnapshot {
			continue
		}
		var sn wire.Snapshot
		sn.SetGame(weapon.Layout)
		if err := wire.DecodeSnapshot(d.Data, &sn, func(uint32) *wire.Snapshot { return nil }); err != nil {
			t.Fatalf("snapshot %d: %v", len(ticks), err)
		}
		ticks = append(ticks, sn.Tick)
	}
	if len(ticks) < 2 {
		t.Fatalf("%d snapshots from six ticks, want several", len(ticks))
	}
	for i := 1; i < len(ticks); i++ {
		if ticks[i] <= ticks[i-1] {
			t.Fatalf("snapshot ticks %v: want each newer than the one before", ticks)
		}
	}
}
