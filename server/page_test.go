package server

import (
	"testing"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/shooter/mode"
	"github.com/lagkit/lagkit/wire"
)

// connectAs connects m (its version and challenge filled in) from peer and
// returns the slot it gets.
func connectAs(t *testing.T, s *Server, peer Peer, m wire.Connect) int {
	t.Helper()
	m.Version, m.Nonce = wire.Version, uint64(peer)
	var ch wire.Challenge
	if reply := connectTo(t, s, s.Time(), peer, &m); wire.DecodeChallenge(reply, &ch) != nil {
		t.Fatalf("want a challenge, got %x", reply)
	}
	m.Token = ch.Token
	var a wire.Accept
	if reply := connectTo(t, s, s.Time(), peer, &m); wire.DecodeAccept(reply, &a) != nil {
		t.Fatalf("want an accept, got %x", reply)
	}
	return int(a.ClientID)
}

// queuedOf returns the events of kind queued for slot id, decoded by dec.
func queuedOf[E any](t *testing.T, s *Server, id int, kind uint16, dec func([]byte, *E) error) []E {
	t.Helper()
	var out []E
	for _, ev := range s.clients[id].events {
		if ev.kind != kind {
			continue
		}
		var e E
		if err := dec(ev.data, &e); err != nil {
			t.Fatal(err)
		}
		out = append(out, e)
	}
	return out
}

// TestNameEvents: every client hears every player's name, its own
// included, once, whether it came before or after them.
func TestNameEvents(t *testing.T) {
	s := testServer(t, Config{MaxClients: 4})
	names := []string{"ann", "ben", "bot3"}
	for i, n := range names {
		if id := connectAs(t, s, Peer(i+1), wire.Connect{Name: n}); id != i {
			t.Fatalf("%s got slot %d, want %d", n, id, i)
		}
	}
	for id := range names {
		got := map[uint8]string{}
		for _, e := range queuedOf(t, s, id, wire.EventName, wire.DecodeNameEvent) {
			if _, twice := got[e.Player]; twice {
				t.Errorf("slot %d heard slot %d's name twice", id, e.Player)
			}
			got[e.Player] = e.Name
		}
		if len(got) != len(names) || got[0] != "ann" || got[1] != "ben" || got[2] != "bot3" {
			t.Errorf("slot %d heard the names %v", id, got)
		}
	}
}

// TestPlaceEvents: a client hears the way the server turned it at its
// spawn and at a placement, with the Teleport count of its state then,
// even when its next command turns it elsewhere.
func TestPlaceEvents(t *testing.T) {
	s := testServer(t, Config{MaxClients: 2})
	id := connectAs(t, s, 1, wire.Connect{Name: "ann"})
	spawn := s.clients[id].state
	s.Place(id, geom.V(1, 2, 0), 2.0)
	placed := s.clients[id].state
	cmd := game.UserCmd{Tick: 1, Duration: s.TickDuration(), Yaw: game.YawUnits(0.5)}
	if err := s.Step(s.Time(), 1, mustCommands(t, cmd)); err != nil {
		t.Fatal(err)
	}
	s.Advance(s.NextTick())
	got := queuedOf(t, s, id, wire.EventPlace, wire.DecodePlaceEvent)
	want := []wire.PlaceEvent{
		{Teleport: spawn.Teleport, Yaw: spawn.Yaw, Pitch: spawn.Pitch},
		{Teleport: placed.Teleport, Yaw: game.YawUnits(2.0)},
	}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("place events %+v, want %+v", got, want)
	}
	if st := s.clients[id].state; st.Yaw == game.YawUnits(2.0) {
		t.Errorf("the command did not turn the player (yaw %d): the test shows nothing", st.Yaw)
	}
}

func mustCommands(t *testing.T, cmds ...game.UserCmd) []byte {
	t.Helper()
	b, err := wire.AppendCommands(nil, &wire.Commands{ClientTime: 1, Cmds: cmds})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestServerEvents: no server events until the driver reports its
// ticks; then one a second to each client, with the longest tick and
// latest start reported since the last, the policy in force, the
// emulated latency of the client's own slot, and the share of its
// commands lost on the way.
func TestServerEvents(t *testing.T) {
	d := newDuel(t, Config{})
	var got [2][]wire.ServerEvent
	d.s.SetEventNotes(func(n *EventNote) {
		if n.Kind != wire.EventServer || n.Acked {
			return
		}
		var e wire.ServerEvent
		if err := wire.DecodeServerEvent(n.Data, &e); err != nil {
			t.Fatal(err)
		}
		got[n.Seat] = append(got[n.Seat], e)
	})
	d.run(2 * time.Second)
	if len(got[0])+len(got[1]) != 0 {
		t.Fatalf("server events %+v before any load was reported", got)
	}
	d.s.SetEmulated(1, 30*time.Millisecond, 50*time.Millisecond)
	d.s.SetEmulated(7, time.Second, time.Second) // no such slot: ignored
	d.s.SetLoad(2*time.Millisecond, 5*time.Millisecond)
	d.s.SetLoad(time.Millisecond, 7*time.Millisecond)
	// The shooter (peer 1, slot 0) skips every other command from now on.
	for end := d.s.Time() + 2*time.Second; d.s.Time() < end; {
		d.next[1]++
		d.tick(nil)
	}
	if len(got[0]) < 2 || len(got[1]) < 2 || len(got[0]) > 3 {
		t.Fatalf("%d and %d server events in 2 s, want one a second", len(got[0]), len(got[1]))
	}
	want := wire.ServerEvent{TickTime: 2 * time.Millisecond, TickLate: 7 * time.Millisecond, Policy: d.s.Policy().Name()}
	if e := got[1][0]; e.TickTime != want.TickTime || e.TickLate != want.TickLate || e.Policy != want.Policy ||
		e.EmulatedUp != 30*time.Millisecond || e.EmulatedDown != 50*time.Millisecond || e.LossOut != 0 {
		t.Errorf("slot 1's server event %+v, want %+v with 30 ms up, 50 down, nothing lost", e, want)
	}
	if e := got[1][1]; e.TickTime != 0 || e.TickLate != 0 {
		t.Errorf("slot 1's second server event %+v: want no load, none reported since the first", e)
	}
	if e := got[0][1]; e.EmulatedUp != 0 || e.EmulatedDown != 0 || e.LossOut < 400 || e.LossOut > 600 {
		t.Errorf("slot 0's server event %+v, want no emulation and about half its commands lost", e)
	}
}

// TestRejoinSeatAndTeam: a client coming back asks for its seat and team
// and gets the seat when it is free, and the team when that keeps the
// teams even; a server that places players itself (Config.Seat) decides
// alone.
func TestRejoinSeatAndTeam(t *testing.T) {
	s := testServer(t, Config{MaxClients: 6, Rules: modeRules(mode.Config{Mode: mode.TDM})})
	a := connectAs(t, s, 1, wire.Connect{Name: "a"})
	ta := s.clients[a].team
	if id := connectAs(t, s, 2, wire.Connect{Name: "b", Rejoin: wire.Rejoin{Asked: true, Seat: 4, Team: uint8(1 - ta)}}); id != 4 || s.clients[4].team != 1-ta {
		t.Errorf("b asked for seat 4, team %d: got seat %d, team %d", 1-ta, id, s.clients[id].team)
	}
	if id := connectAs(t, s, 3, wire.Connect{Name: "c", Rejoin: wire.Rejoin{Asked: true, Seat: 4, Team: uint8(ta)}}); id != 1 || s.clients[id].team != ta {
		t.Errorf("c asked for the taken seat 4, team %d: got seat %d, team %d; want the first free seat", ta, id, s.clients[id].team)
	}
	// Teams now 2 to 1: asking for the bigger team gets the smaller.
	if id := connectAs(t, s, 4, wire.Connect{Name: "d", Rejoin: wire.Rejoin{Asked: true, Seat: 5, Team: uint8(ta)}}); id != 5 || s.clients[id].team != 1-ta {
		t.Errorf("d asked for seat 5 on the bigger team: got seat %d, team %d", id, s.clients[id].team)
	}

	seated := testServer(t, Config{MaxClients: 4, Seat: func(Identity) Placement { return Placement{Slot: -1, Team: -1} }})
	if id := connectAs(t, seated, 1, wire.Connect{Name: "a", Rejoin: wire.Rejoin{Asked: true, Seat: 3, Team: 1}}); id != 0 {
		t.Errorf("with Config.Seat, a rejoin asking for seat 3 got seat %d, want the first free", id)
	}
}

// TestProvenSaysTheSeatAsked checks that Proven tells a driver which
// seat a proving Connect asks to come back to, so that no driver decodes
// the Connect itself: -1 for none, and nothing for a Connect that does
// not prove its address.
func TestProvenSaysTheSeatAsked(t *testing.T) {
	s := testServer(t, Config{MaxClients: 8})
	for _, tc := range []struct {
		rejoin wire.Rejoin
		echo   bool
		seat   int
		ok     bool
	}{
		{wire.Rejoin{Asked: true, Seat: 5}, true, 5, true},
		{wire.Rejoin{}, true, -1, true},
		{wire.Rejoin{Asked: true, Seat: 5}, false, -1, false},
	} {
		m := wire.Connect{Version: wire.Version, Nonce: 7, Name: "back", Rejoin: tc.rejoin}
		var ch wire.Challenge
		if err := wire.DecodeChallenge(connectTo(t, s, 0, Peer(9), &m), &ch); err != nil {
			t.Fatal(err)
		}
		if tc.echo {
			m.Token = ch.Token
		}
		b, err := wire.AppendConnect(nil, &m)
		if err != nil {
			t.Fatal(err)
		}
		if seat, ok := s.Proven(0, Peer(9), b); seat != tc.seat || ok != tc.ok {
			t.Errorf("rejoin %+v, token echoed %v: Proven %d, %v; want %d, %v", tc.rejoin, tc.echo, seat, ok, tc.seat, tc.ok)
		}
	}
}
