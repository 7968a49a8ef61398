package client

import (
	"slices"
	"testing"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/wire"
)

// feedEvents sends c a full snapshot of tick n carrying events, numbered
// from first.
func feedEvents(t *testing.T, c *Client, n, first uint32, events []wire.Event) {
	t.Helper()
	numbered := make([]wire.Event, len(events))
	for i, ev := range events {
		numbered[i] = wire.Event{Seq: first + uint32(i), Kind: ev.Kind, Data: ev.Data}
	}
	feedNumbered(t, c, n, numbered)
}

// feedNumbered sends c a full snapshot of tick n carrying events, whose
// sequence numbers are set.
func feedNumbered(t *testing.T, c *Client, n uint32, events []wire.Event) {
	t.Helper()
	var s wire.Snapshot
	s.Tick, s.Self = n, game.PlayerState{Pos: geom.V(5, 0, 0), Health: 100, Flags: game.FlagOnGround}
	s.Events = events
	if len(events) > 0 {
		s.FirstEventSeq = events[0].Seq
	}
	b, err := wire.AppendSnapshot(nil, &s, nil, wire.MaxDatagram)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Step(time.Duration(n)*tick, b); err != nil {
		t.Fatal(err)
	}
}

func event[E any](t *testing.T, kind uint16, e *E, enc func([]byte, *E) ([]byte, error)) wire.Event {
	t.Helper()
	b, err := enc(nil, e)
	if err != nil {
		t.Fatal(err)
	}
	return wire.Event{Kind: kind, Data: b}
}

// TestReportSBCNamesNewestHit checks that the report key's message names
// the newest hit the client heard of, with its SBC verdict, and names
// none before any hit.
func TestReportSBCNamesNewestHit(t *testing.T) {
	c, err := New(Config{Map: connected(t, Config{}).cfg.Map})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.ReportSBC(); err != ErrNotConnected {
		t.Errorf("report before connecting: %v", err)
	}
	c = connected(t, Config{})
	report := func() wire.Report {
		t.Helper()
		if err := c.ReportSBC(); err != nil {
			t.Fatal(err)
		}
		out := sent(c)
		if len(out) != 1 {
			t.Fatalf("%d datagrams, want the report", len(out))
		}
		var m wire.Report
		if err := wire.DecodeReport(out[0], &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	if m := report(); m != (wire.Report{}) {
		t.Errorf("report before any hit: %+v", m)
	}
	// Hits from the shooter at 9 m on the open map: in the open, not
	// behind cover.
	var evs []wire.Event
	for i, tickOf := range []uint32{40, 41} {
		h := wire.HitEvent{Shooter: 1, ShotTick: tickOf, Part: game.PartTorso, Damage: 20 + int16(i), ShooterEye: geom.V(14, 0, 1.640625)}
		evs = append(evs, event(t, wire.EventHit, &h, wire.AppendHitEvent))
	}
	feedEvents(t, c, 10, 1, evs)
	if hits := c.Ready().Hits; len(hits) != 2 || hits[1].SBC {
		t.Fatalf("hits %+v", hits)
	}
	if m := report(); m != (wire.Report{Seen: true, Shooter: 1, ShotTick: 41}) {
		t.Errorf("report %+v, want the hit of shot 41 not behind cover", m)
	}
	if c.Stats().Reports != 2 {
		t.Errorf("%d reports counted, want 2", c.Stats().Reports)
	}
}

// TestShownEvents checks that rewind, kill, projectile and explosion
// events reach the driver once each, in one handover, all of them in
// order however many arrive.
func TestShownEvents(t *testing.T) {
	c := connected(t, Config{})
	rw := wire.RewindEvent{Shooter: 0, Victim: 1, ShotTick: 7, Rewind: 80 * time.Millisecond, Pos: geom.V(1, 2, 0), Now: geom.V(1.5, 2, 0)}
	kill := wire.KillEvent{Killer: 1, Victim: 0}
	pr := wire.ProjectileEvent{ID: 3, Owner: 1, Tick: 9, Origin: geom.V(0, 0, 1.5)}
	ex := wire.ExplosionEvent{ID: 3, Tick: 12, Pos: geom.V(4, 0, 1), Radius: 3}
	evs := []wire.Event{
		event(t, wire.EventRewind, &rw, wire.AppendRewindEvent),
		event(t, wire.EventKill, &kill, wire.AppendKillEvent),
		event(t, wire.EventProjectile, &pr, wire.AppendProjectileEvent),
		event(t, wire.EventExplosion, &ex, wire.AppendExplosionEvent),
		{Kind: wire.EventRewind, Data: []byte{1}},
	}
	feedEvents(t, c, 10, 1, evs)
	feedEvents(t, c, 11, 1, evs) // repeated until acknowledged: seen once
	rd := c.Ready()
	if r := rd.Rewinds; len(r) != 1 || r[0] != rw {
		t.Errorf("rewinds %+v", r)
	}
	if k := rd.Kills; len(k) != 1 || k[0] != kill {
		t.Errorf("kills %+v", k)
	}
	if p := rd.Projectiles; len(p) != 1 || p[0] != pr {
		t.Errorf("projectiles %+v", p)
	}
	if e := rd.Explosions; len(e) != 1 || e[0] != ex {
		t.Errorf("explosions %+v", e)
	}
	if rd.Counts.Malformed != 1 || c.Stats().Malformed != 1 {
		t.Errorf("%d malformed, want the truncated rewind event", rd.Counts.Malformed)
	}
	if rd := c.Ready(); len(rd.Rewinds)+len(rd.Kills) != 0 || rd.Counts.Malformed != 0 {
		t.Error("events handed over twice")
	}
	seq := uint32(6)
	for n := uint32(12); n < 16; n++ {
		batch := make([]wire.Event, 0, wire.MaxEvents)
		for k := range wire.MaxEvents {
			e := wire.KillEvent{Killer: uint8(seq) + uint8(k), Victim: 2}
			batch = append(batch, event(t, wire.EventKill, &e, wire.AppendKillEvent))
		}
		feedEvents(t, c, n, seq, batch)
		seq += wire.MaxEvents
	}
	k := c.Ready().Kills
	if len(k) != int(seq-6) {
		t.Fatalf("%d kills handed over, want %d", len(k), seq-6)
	}
	for i, e := range k {
		if e.Killer != uint8(6+i) {
			t.Fatalf("kill %d by %d, want %d", i, e.Killer, uint8(6+i))
		}
	}
}

// TestEventsOutOfOrder checks that events reach the driver once each and
// in the order of their sequence numbers when snapshots bring them out of
// order, with gaps, and again (a server resends an event a round trip
// after it last sent it, so later events can pass it), and that an event
// further ahead than a server may be is ignored.
func TestEventsOutOfOrder(t *testing.T) {
	c := connected(t, Config{})
	kill := func(seq uint32) wire.Event {
		k := wire.KillEvent{Killer: uint8(seq), Victim: 0}
		ev := event(t, wire.EventKill, &k, wire.AppendKillEvent)
		ev.Seq = seq
		return ev
	}
	feedNumbered(t, c, 10, []wire.Event{kill(3), kill(5)})
	if k := c.Ready().Kills; len(k) != 0 {
		t.Fatalf("kills %+v before event 1 arrived", k)
	}
	feedNumbered(t, c, 11, []wire.Event{kill(1), kill(3)})
	feedNumbered(t, c, 12, []wire.Event{kill(1 + wire.MaxEventWindow)}) // beyond the window
	feedNumbered(t, c, 13, []wire.Event{kill(2), kill(4), kill(5), kill(6)})
	feedNumbered(t, c, 14, []wire.Event{kill(6)})
	var got []uint8
	for _, k := range c.Ready().Kills {
		got = append(got, k.Killer)
	}
	if want := []uint8{1, 2, 3, 4, 5, 6}; !slices.Equal(got, want) {
		t.Errorf("kills by %v, want %v", got, want)
	}
}
