package server

import (
	"math"
	"testing"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/lagcomp"
	"github.com/lagkit/lagkit/shooter/weapon"
	"github.com/lagkit/lagkit/wire"
	"github.com/lagkit/lagkit/world/worldtest"
)

// TestFarFutureCommandDoesNotFreezeSession: one datagram claiming a
// command tick far ahead of the session (here 2^32 - 4, as a spoofed
// packet might) is dropped and counted, and the honest commands that
// follow still move the player.
func TestFarFutureCommandDoesNotFreezeSession(t *testing.T) {
	s := testServer(t, Config{})
	dt := s.TickDuration()
	id := join(t, s, 0, 1)
	for n := uint32(1); n <= 10; n++ {
		now := s.NextTick()
		sendCmds(t, s, now, 1, []game.UserCmd{walk(n, dt)})
		s.Advance(now)
	}
	sendCmds(t, s, s.NextTick(), 1, []game.UserCmd{walk(1<<32-4, dt)})
	before, _ := s.Client(id)
	for n := uint32(11); n <= 40; n++ {
		now := s.NextTick()
		sendCmds(t, s, now, 1, []game.UserCmd{walk(n, dt)})
		s.Advance(now)
	}
	after, _ := s.Client(id)
	if after.LastCmd != 40 || after.State.Pos == before.State.Pos {
		t.Fatalf("honest commands after a far-future one: last executed %d (want 40), moved %v", after.LastCmd, after.State.Pos != before.State.Pos)
	}
	if got := s.Stats().CmdsDropped.OutOfWindow; got != 1 {
		t.Fatalf("out-of-window commands counted %d, want 1", got)
	}
}

// TestUnmeasuredOrLiedRoundTripCannotAppeal: the alc appeal is for
// victims within low ping ([alc]). A 250 ms victim that declares it held
// each snapshot for 250 ms before acknowledging it, and a victim that
// never acknowledges a snapshot (its round trip unmeasured), both take
// the hit without appeal; an honest low-ping victim may still appeal.
func TestUnmeasuredOrLiedRoundTripCannotAppeal(t *testing.T) {
	tick := game.TickDuration(64)
	for _, tc := range []struct {
		name   string
		lag    uint32 // ticks the acknowledged snapshot is behind
		claim  time.Duration
		silent bool
		appeal bool
	}{
		{name: "honest low ping", claim: tick, appeal: true},
		{name: "250 ms claiming a 250 ms hold", lag: 15, claim: 250 * time.Millisecond},
		{name: "never acknowledges", silent: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var silent []Peer
			if tc.silent {
				silent = append(silent, 2)
			}
			d := newDuel(t, Config{Policy: lagcomp.Config{Name: "alc"}}, silent...)
			d.ackLag[2], d.claim[2] = tc.lag, tc.claim
			d.run(500 * time.Millisecond)
			d.shoot(nil)
			// A client that acknowledges nothing gets a snapshot (and
			// the hit event in it) only every unackedInterval.
			d.run(unackedInterval)
			if len(d.hits[2]) != 1 {
				t.Fatalf("victim received %d hits, want 1", len(d.hits[2]))
			}
			if got := d.hits[2][0].Appeal != 0; got != tc.appeal {
				info, _ := d.s.Client(1)
				t.Fatalf("hit appealable %v, want %v (server RTT %v)", got, tc.appeal, info.RTT)
			}
		})
	}
}

// TestDenialCannotForgeStance: a victim standing in the open behind low
// cover (which hides a crouching head, not a standing one) denies a head
// shot claiming it crouches at its true position. The server has it
// standing throughout and no crouch on the way, so the denial is
// refuted and the hit stands ([alc]: the server re-runs SBC detection
// on the victim's state, which it must believe).
func TestDenialCannotForgeStance(t *testing.T) {
	d := newDuel(t, Config{Map: worldtest.Cover(t), Policy: lagcomp.Config{Name: "alc"}})
	d.s.Place(0, geom.V(0, -6, 0), 0)
	d.s.Place(1, geom.V(11.5, -6, 0), math.Pi)
	d.cmd[1] = game.UserCmd{}
	d.run(200 * time.Millisecond)
	d.shoot(nil)
	if len(d.hits[2]) != 1 || d.hits[2][0].Appeal == 0 || d.hits[2][0].Part != game.PartHead {
		t.Fatalf("victim received %+v, want one provisional head shot", d.hits[2])
	}
	victim, _ := d.s.Client(1)
	forged := victim.State
	forged.Flags |= game.FlagCrouched
	b, err := wire.AppendAppeal(nil, &wire.Appeal{ID: d.hits[2][0].Appeal, Deny: true, State: forged})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.s.Step(d.s.Time(), 2, b); err != nil {
		t.Fatal(err)
	}
	d.run(50 * time.Millisecond)
	if len(d.records) != 1 || d.records[0].Outcome != wire.OutcomeDeniedRefuted || !d.records[0].Registered {
		t.Fatalf("records %+v, want the forged denial refuted and the hit registered", d.records)
	}
}

// TestRestartedClientStartsNewSession: a client restarted on the same
// address connects with a new session nonce; the server ends the old
// session and starts a new one whose commands, numbered from 1 again,
// are executed. A repeat of the new Connect (the client retransmits until
// accepted) only repeats the Accept.
func TestRestartedClientStartsNewSession(t *testing.T) {
	s := testServer(t, Config{})
	dt := s.TickDuration()
	joinSession(t, s, 0, 1, 1)
	for n := uint32(1); n <= 64; n++ {
		now := s.NextTick()
		sendCmds(t, s, now, 1, []game.UserCmd{walk(n, dt)})
		s.Advance(now)
	}
	now := s.NextTick()
	id := joinSession(t, s, now, 1, 2)
	for n := uint32(1); n <= 10; n++ {
		now := s.NextTick()
		sendCmds(t, s, now, 1, []game.UserCmd{walk(n, dt)})
		s.Advance(now)
	}
	if info, _ := s.Client(id); info.LastCmd != 10 {
		t.Fatalf("restarted client: last command executed %d, want 10", info.LastCmd)
	}
	if got := joinSession(t, s, s.NextTick(), 1, 2); got != id {
		t.Fatalf("repeated connect moved the client from slot %d to %d", id, got)
	}
	if info, _ := s.Client(id); info.LastCmd != 10 {
		t.Fatalf("repeated connect reset the session: last command %d", info.LastCmd)
	}
	if st := s.Stats(); st.Restarts != 1 || st.Connects != 2 {
		t.Fatalf("restarts %d, connects %d; want 1 and 2", st.Restarts, st.Connects)
	}
}

// TestUnprovenAddressGetsNothingLarger: connects from addresses that
// never echo the token (spoofed ones) get one Challenge each, no larger
// than the Connect, and neither a slot nor a snapshot; an unpadded
// Connect gets no answer at all.
func TestUnprovenAddressGetsNothingLarger(t *testing.T) {
	s := testServer(t, Config{MaxClients: 2})
	in, out := 0, 0
	for peer := Peer(1); peer <= 100; peer++ {
		b, err := wire.AppendConnect(nil, &wire.Connect{Version: wire.Version, Nonce: uint64(peer), Name: "spoof", Game: weapon.Layout.Hash()})
		if err != nil {
			t.Fatal(err)
		}
		in += len(b)
		if err := s.Step(0, peer, b); err != nil {
			t.Fatal(err)
		}
		if s.Step(0, peer+1000, b[:7]) == nil {
			t.Fatal("unpadded connect accepted")
		}
		in += 7
		for _, d := range s.Advance(s.NextTick()).Messages {
			out += len(d.Data)
		}
	}
	for _, d := range s.Advance(time.Second).Messages {
		out += len(d.Data)
	}
	if out > in {
		t.Fatalf("sent %d bytes to unproven addresses that sent %d", out, in)
	}
	if st := s.Stats(); st.Connects != 0 || st.Challenged != 100 {
		t.Fatalf("connects %d, challenged %d; want 0 and 100", st.Connects, st.Challenged)
	}
	join(t, s, s.NextTick(), 5000) // a real client still gets a slot
}

// TestUnmeasuredShooterIsNotRewound: a shooter that never acknowledged a
// snapshot has no known round trip, so the server cannot check the view
// time it claims against its own estimate; its shots are tested against
// the present, not the past, until its round trip is measured.
func TestUnmeasuredShooterIsNotRewound(t *testing.T) {
	for _, silent := range []bool{false, true} {
		var peers []Peer
		if silent {
			peers = append(peers, 1)
		}
		d := newDuel(t, Config{Policy: lagcomp.Config{Name: "tlc"}}, peers...)
		d.shoot(nil)
		if len(d.records) != 1 || d.records[0].Rewound == silent {
			t.Fatalf("shooter silent %v: records %+v, want one rewound %v", silent, d.records, !silent)
		}
	}
}

// TestProvenConnect: Proven tells a Connect that echoes its address
// token (one that gets a slot if one is free) from one that does not, a
// forged token and garbage, and changes nothing.
func TestProvenConnect(t *testing.T) {
	s := testServer(t, Config{})
	m := wire.Connect{Version: wire.Version, Nonce: 9, Name: "p", Game: weapon.Layout.Hash()}
	first, _ := wire.AppendConnect(nil, &m)
	var ch wire.Challenge
	if reply := connectTo(t, s, 0, 1, &m); wire.DecodeChallenge(reply, &ch) != nil {
		t.Fatalf("want a challenge, got %x", reply)
	}
	m.Token = ch.Token
	proven, _ := wire.AppendConnect(nil, &m)
	m.Token = "forged-token-xxx"
	forged, _ := wire.AppendConnect(nil, &m)
	before := s.Stats()
	for _, tc := range []struct {
		name string
		from Peer
		b    []byte
		want bool
	}{
		{"echoed token", 1, proven, true},
		{"echoed token from another address", 2, proven, false},
		{"no token", 1, first, false},
		{"forged token", 1, forged, false},
		{"garbage", 1, []byte{byte(wire.MsgConnect), 1}, false},
	} {
		if _, got := s.Proven(0, tc.from, tc.b); got != tc.want {
			t.Errorf("%s: proven %v, want %v", tc.name, got, tc.want)
		}
	}
	if after := s.Stats(); after != before || len(s.Ready().Messages) != 0 {
		t.Fatalf("Proven changed the server: stats %+v -> %+v", before, after)
	}
}
