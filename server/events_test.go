package server

import (
	"slices"
	"testing"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/shooter/weapon"
	"github.com/lagkit/lagkit/wire"
)

// TestEventsResentAfterRoundTrip checks that an unacknowledged event is
// sent again only once the retransmission timeout has passed since it
// was last sent (two snapshot intervals before any round trip is
// measured, the measured round trip plus four deviations after), not in
// every snapshot, and never again once a snapshot carrying it is
// acknowledged.
func TestEventsResentAfterRoundTrip(t *testing.T) {
	s := testServer(t, Config{})
	join(t, s, 0, 1)
	next := uint32(1)
	got := map[uint32]*wire.Snapshot{} // by tick, the baselines
	// step runs one tick, acknowledging ack (0: none), and returns the
	// snapshot the client got.
	step := func(ack uint32, hold time.Duration) wire.Snapshot {
		t.Helper()
		now := s.NextTick()
		b, err := wire.AppendCommands(nil, &wire.Commands{AckTick: ack, AckDelay: hold, ClientTime: now,
			Cmds: []game.UserCmd{{Tick: next, Duration: s.TickDuration()}}})
		if err != nil {
			t.Fatal(err)
		}
		next++
		if err := s.Step(now, 1, b); err != nil {
			t.Fatal(err)
		}
		ready := s.Advance(now)
		var sn wire.Snapshot
		sn.SetGame(weapon.Layout)
		for _, d := range ready.Messages {
			if wire.DecodeSnapshot(d.Data, &sn, func(tick uint32) *wire.Snapshot { return got[tick] }) == nil {
				kept := sn
				got[sn.Tick] = &kept
				return sn
			}
		}
		t.Fatalf("no snapshot at tick %d", s.Tick())
		return sn
	}
	carries := func(sn *wire.Snapshot, seq uint32) bool {
		for _, ev := range sn.Events {
			if ev.Seq == seq {
				return true
			}
		}
		return false
	}
	// The settings event (1) goes in the first snapshot, then every second
	// one (two snapshot intervals at one snapshot a tick) while no round
	// trip is known.
	var sent []bool
	first := s.Tick() + 1
	for range 8 {
		sn := step(0, 0)
		sent = append(sent, carries(&sn, 1))
	}
	if want := []bool{true, false, true, false, true, false, true, false}; !slices.Equal(sent, want) {
		t.Fatalf("event 1 carried %v, want %v", sent, want)
	}
	// A snapshot without it acknowledged 4 ticks after it was sent gives
	// a round trip, and the event then waits resendAfter between
	// sendings, several snapshots.
	for s.Tick() < first+4 {
		step(0, 0)
	}
	step(first+1, 0)
	c := s.clients[0]
	if c.rtt.Samples() != 1 {
		t.Fatalf("%d round-trip samples, want 1", c.rtt.Samples())
	}
	wait := uint32((s.resendAfter(c) + s.TickDuration() - 1) / s.TickDuration())
	if wait < 8 {
		t.Fatalf("resend after %d ticks, want a round trip of 4 ticks and more", wait)
	}
	last, sends := uint32(0), 0
	for range 2 * wait {
		sn := step(0, 0)
		if !carries(&sn, 1) {
			continue
		}
		if last != 0 && sn.Tick-last != wait {
			t.Fatalf("event 1 sent at ticks %d and %d, want %d ticks apart", last, sn.Tick, wait)
		}
		last = sn.Tick
		sends++
	}
	if sends < 2 {
		t.Fatalf("event 1 sent %d times in %d ticks, want every %d ticks", sends, 2*wait, wait)
	}
	// Acknowledging a snapshot that carried it settles it.
	step(last, 0)
	for range 2 * wait {
		if sn := step(0, 0); carries(&sn, 1) {
			t.Fatalf("event 1 carried at tick %d after a snapshot carrying it was acknowledged", s.Tick())
		}
	}
}

// TestEventBacklogDropsClient checks that a client is dropped once its
// oldest unacknowledged event is wire.MaxEventWindow sequence numbers
// behind the next, however few are queued, and that until then its
// snapshots still carry both ends of the window.
func TestEventBacklogDropsClient(t *testing.T) {
	s := testServer(t, Config{})
	join(t, s, 0, 1)
	c := s.clients[0]
	oldest := c.events[0].seq // the settings event, never acknowledged
	for c.nextEventSeq-oldest < wire.MaxEventWindow {
		s.sendEvent(c, 999, []byte{1})
		// Every later event is acknowledged at once: two stay queued.
		c.events = append(c.events[:1], c.events[len(c.events)-1])
	}
	for i := range c.events {
		c.events[i].sent = false // due again
	}
	ready := s.Advance(s.NextTick())
	var sn wire.Snapshot
	sn.SetGame(weapon.Layout)
	got := false
	for _, d := range ready.Messages {
		if wire.DecodeSnapshot(d.Data, &sn, func(uint32) *wire.Snapshot { return nil }) == nil {
			got = len(sn.Events) == 2 && sn.Events[0].Seq == oldest && sn.Events[1].Seq == oldest+wire.MaxEventWindow-1
		}
	}
	if !got {
		t.Fatalf("no snapshot carrying events %d and %d (last: %+v)", oldest, oldest+wire.MaxEventWindow-1, sn.Events)
	}
	if c.overflow {
		t.Fatal("dropped within the window")
	}
	s.sendEvent(c, 999, []byte{1})
	if !c.overflow {
		t.Fatalf("not dropped with events %d to %d unacknowledged", oldest, c.nextEventSeq-1)
	}
	s.Advance(s.NextTick())
	if _, ok := s.Client(0); ok {
		t.Error("client still connected")
	}
}
