package client

import (
	"testing"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/wire"
)

// TestMessagesSayWhichAreCommands checks that a Ready's Messages mark
// the command packets and nothing else: a Connect retried before the
// Accept is not one, each tick's packet is, a Disconnect is not.
func TestMessagesSayWhichAreCommands(t *testing.T) {
	c := connected(t, Config{Redundancy: 2})
	var out []Datagram
	for i := range 3 {
		out = append(out, c.Tick(time.Duration(1+i)*tick, game.UserCmd{Forward: 127}).Messages...)
	}
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
	for _, d := range c.Ready().Messages {
		if typ, _ := wire.PeekType(d.Data); d.Commands != (typ == wire.MsgCommands) {
			t.Errorf("type %v marked Commands %v", typ, d.Commands)
		}
	}

	idle, err := New(Config{Map: c.cfg.Map})
	if err != nil {
		t.Fatal(err)
	}
	idle.Connect(0)
	out = idle.Tick(time.Second, game.UserCmd{}).Messages // retries the Connect
	if len(out) != 2 || out[0].Commands || out[1].Commands {
		t.Fatalf("connects: %+v, want two, neither marked Commands", out)
	}
}

// TestSnapshotsSayWhatTheDatagramsDid checks that a Ready's Snapshots
// hold each snapshot taken with its tick, the first once, and the
// corrections it made, and nothing for a stale or malformed datagram.
func TestSnapshotsSayWhatTheDatagramsDid(t *testing.T) {
	c := connected(t, Config{})
	if r := c.Ready(); len(r.Snapshots) != 0 {
		t.Fatalf("after the Accept: %+v", r.Snapshots)
	}
	self := game.PlayerState{Pos: geom.V(0, 0, 0), Flags: game.FlagOnGround, Health: 100}
	feed(t, c, 10*tick, 10, 2, 0, self, 0)
	if r := c.Ready(); len(r.Snapshots) != 1 || r.Snapshots[0] != (Snapshot{Tick: 10, First: true}) || r.Counts.SnapshotsReceived != 1 {
		t.Fatalf("first snapshot: %+v", r.Snapshots)
	}
	c.Tick(11*tick, game.UserCmd{Forward: 127})
	c.Tick(12*tick, game.UserCmd{Forward: 127})
	// The server has the player elsewhere after command 1: a correction.
	moved := self
	moved.Pos = geom.V(3, 0, 0)
	feed(t, c, 13*tick, 13, 2, 0, moved, 1)
	feed(t, c, 14*tick, 12, 2, 0, moved, 1) // older than the newest
	if err := c.Step(15*tick, []byte{0xff, 1, 2}); err == nil {
		t.Error("garbage taken")
	}
	r := c.Ready()
	if len(r.Snapshots) != 1 || r.Snapshots[0].First || r.Snapshots[0].Tick != 13 {
		t.Fatalf("snapshots %+v, want the one of tick 13 alone", r.Snapshots)
	}
	if got := r.Counts.Corrections; r.Snapshots[0].Corrections != got || got == 0 {
		t.Errorf("Corrections %d, the span counted %d (want the same, above 0)", r.Snapshots[0].Corrections, got)
	}
	if r.Counts.Stale != 1 || r.Counts.Malformed != 1 || r.Counts.SnapshotsReceived != 1 {
		t.Errorf("counts %+v, want a snapshot, a stale one and a malformed datagram", r.Counts)
	}
}
