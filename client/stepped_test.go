package client

import (
	"testing"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/wire"
)

// TestOutgoingSaysWhichAreCommands checks that Outgoing marks the
// command packets and nothing else: a Connect retried before the Accept
// is not one, each tick's packet is, a report is not.
func TestOutgoingSaysWhichAreCommands(t *testing.T) {
	c := connected(t, Config{Redundancy: 2})
	for i := range 3 {
		c.Tick(time.Duration(1+i)*tick, game.UserCmd{Forward: 127})
	}
	out := c.Outgoing()
	if len(out) != 3 {
		t.Fatalf("%d datagrams from 3 ticks", len(out))
	}
	for i, d := range out {
		typ, err := wire.PeekType(d.Data)
		if err != nil || typ != wire.MsgCommands || !d.Commands {
			t.Errorf("datagram %d: type %v (%v), Commands %v; want a command packet marked so", i, typ, err, d.Commands)
		}
	}
	c.Disconnect("bye")
	for _, d := range c.Outgoing() {
		if typ, _ := wire.PeekType(d.Data); d.Commands != (typ == wire.MsgCommands) {
			t.Errorf("type %v marked Commands %v", typ, d.Commands)
		}
	}

	idle, err := New(Config{Map: c.cfg.Map})
	if err != nil {
		t.Fatal(err)
	}
	idle.Connect(0)
	idle.Tick(time.Second, game.UserCmd{}) // retries the Connect
	out = idle.Outgoing()
	if len(out) != 2 || out[0].Commands || out[1].Commands {
		t.Fatalf("connects: %+v, want two, neither marked Commands", out)
	}
}

// TestSteppedSaysWhatTheDatagramDid checks that Stepped reports a taken
// snapshot with its tick, the first once, the corrections it made and
// nothing for a stale or malformed datagram.
func TestSteppedSaysWhatTheDatagramDid(t *testing.T) {
	c := connected(t, Config{})
	if st := c.Stepped(); st.Snapshot {
		t.Fatalf("after the Accept: %+v", st)
	}
	self := game.PlayerState{Pos: geom.V(0, 0, 0), Flags: game.FlagOnGround, Health: 100}
	feed(t, c, 10*tick, 10, 2, 0, self, 0)
	if st := c.Stepped(); !st.Snapshot || !st.First || st.Tick != 10 {
		t.Fatalf("first snapshot: %+v", st)
	}
	c.Tick(11*tick, game.UserCmd{Forward: 127})
	c.Tick(12*tick, game.UserCmd{Forward: 127})
	before := c.Stats().Corrections
	// The server has the player elsewhere after command 1: a correction.
	moved := self
	moved.Pos = geom.V(3, 0, 0)
	feed(t, c, 13*tick, 13, 2, 0, moved, 1)
	st := c.Stepped()
	if !st.Snapshot || st.First || st.Tick != 13 {
		t.Fatalf("second snapshot: %+v", st)
	}
	if got := c.Stats().Corrections - before; st.Corrections != got || got == 0 {
		t.Errorf("Corrections %d, the counters moved %d (want the same, above 0)", st.Corrections, got)
	}
	feed(t, c, 14*tick, 12, 2, 0, moved, 1) // older than the newest
	if st := c.Stepped(); st.Snapshot {
		t.Errorf("stale snapshot: %+v", st)
	}
	if err := c.Step(15*tick, []byte{0xff, 1, 2}); err == nil {
		t.Error("garbage taken")
	}
	if st := c.Stepped(); st != (Stepped{}) {
		t.Errorf("garbage: %+v", st)
	}
}
