package client

import (
	"testing"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/internal/baseline"
	"github.com/lagkit/lagkit/wire"
)

// TestBaselinesKeepWhatTheServerMayName: a snapshot decodes against any
// baseline not older than one named before, for many times the slots
// kept; those older are forgotten, and a snapshot naming one is refused
// as malformed without harm to the next.
func TestBaselinesKeepWhatTheServerMayName(t *testing.T) {
	c := connected(t, Config{})
	sent := map[uint32]*wire.Snapshot{}
	send := func(tick, base uint32) error {
		t.Helper()
		s := &wire.Snapshot{Tick: tick, Baseline: base}
		s.SetSlots(wire.MaxEntities)
		s.Entities[1] = wire.EntityFromState(game.PlayerState{Pos: game.SnapPos(geom.V(float64(tick)/10, 0, 0)), Teleport: 1})
		s.Present[0] = 1 << 1
		b, err := wire.AppendSnapshot(nil, s, sent[base], wire.MaxDatagram)
		if err != nil {
			t.Fatal(err)
		}
		sent[tick] = s
		return c.Step(tick2time(tick), b)
	}
	if err := send(1, 0); err != nil {
		t.Fatal(err)
	}
	// The baseline trails by up to five ticks, never going back, for ten
	// times the slots kept.
	base := uint32(1)
	for tick := uint32(2); tick < 10*baseline.Window; tick++ {
		if tick%7 == 0 {
			base = max(base, tick-5)
		}
		if err := send(tick, base); err != nil {
			t.Fatalf("tick %d against %d: %v", tick, base, err)
		}
		if s, _ := c.Remote(1, tick2time(tick)); s.Pos.X != game.SnapPos(geom.V(float64(tick)/10, 0, 0)).X {
			t.Fatalf("tick %d: x=%v", tick, s.Pos.X)
		}
	}
	tick := uint32(10 * baseline.Window)
	if err := send(tick, base-1); err == nil {
		t.Fatalf("a snapshot against %d, older than the baseline %d named before, decoded", base-1, base)
	}
	if err := send(tick+1, base); err != nil {
		t.Fatalf("after a refused snapshot: %v", err)
	}
	if st := c.Stats(); st.Malformed != 1 || st.SnapshotsReceived != int(tick) {
		t.Fatalf("stats %+v, want 1 malformed and %d received", st, tick)
	}
}

func tick2time(n uint32) time.Duration { return time.Duration(n) * tick }
