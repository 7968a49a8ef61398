package server

import (
	"testing"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/shooter/weapon"
	"github.com/lagkit/lagkit/wire"
	"github.com/lagkit/lagkit/world/worldtest"
)

func testServer(t testing.TB, cfg Config) *Server {
	t.Helper()
	if cfg.Map == nil {
		cfg.Map = worldtest.Open(t)
	}
	s, err := New(armed(cfg))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// join connects peer through the handshake (Connect, Challenge, Connect
// with its token, Accept) with session nonce 1 and returns its slot.
func join(t testing.TB, s *Server, now time.Duration, peer Peer) int {
	t.Helper()
	return joinSession(t, s, now, peer, 1)
}

// joinSession is join with a session nonce.
func joinSession(t testing.TB, s *Server, now time.Duration, peer Peer, nonce uint64) int {
	t.Helper()
	m := wire.Connect{Version: wire.Version, Nonce: nonce, Name: "p", InterpDelay: 100 * time.Millisecond}
	var ch wire.Challenge
	if reply := connectTo(t, s, now, peer, &m); wire.DecodeChallenge(reply, &ch) != nil || ch.Nonce != nonce {
		t.Fatalf("want a challenge for nonce %d, got %x", nonce, reply)
	}
	m.Token = ch.Token
	var a wire.Accept
	if reply := connectTo(t, s, now, peer, &m); wire.DecodeAccept(reply, &a) != nil {
		t.Fatalf("want an accept, got %x", reply)
	}
	return int(a.ClientID)
}

// connectTo sends Connect m from peer and returns the one reply to peer
// (nil if none), checking that it is no larger than the Connect.
func connectTo(t testing.TB, s *Server, now time.Duration, peer Peer, m *wire.Connect) []byte {
	t.Helper()
	if m.Game == 0 {
		m.Game = s.cfg.Game.Hash() // a client of the server's game
	}
	b, err := wire.AppendConnect(nil, m)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Step(now, peer, b); err != nil {
		t.Fatal(err)
	}
	var reply []byte
	for _, d := range s.Ready().Messages {
		if d.To != peer {
			continue
		}
		if reply != nil || len(d.Data) > len(b) {
			t.Fatalf("connect of %d bytes answered with %x and %x", len(b), reply, d.Data)
		}
		reply = d.Data
	}
	return reply
}

func sendCmds(t testing.TB, s *Server, now time.Duration, peer Peer, cmds []game.UserCmd) {
	t.Helper()
	b, err := wire.AppendCommands(nil, &wire.Commands{ClientTime: now + 1, Cmds: cmds})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Step(now, peer, b); err != nil {
		t.Fatal(err)
	}
}

func walk(tick uint32, d time.Duration) game.UserCmd {
	return game.UserCmd{Tick: tick, Duration: d, Forward: 127}
}

// TestMovementBudget checks that no pattern of commands moves a player
// further than walking speed allows over the elapsed time plus the
// jitter allowance (MoveSlack), while an honest client walks at full speed.
func TestMovementBudget(t *testing.T) {
	const seconds = 5
	cases := []struct {
		name string
		// cmds returns the commands sent at server tick n, given the next
		// command number.
		cmds   func(next uint32, dt time.Duration) []game.UserCmd
		honest bool
	}{
		{"honest one per tick", func(next uint32, dt time.Duration) []game.UserCmd {
			return []game.UserCmd{walk(next, dt)}
		}, true},
		{"ten times too many", func(next uint32, dt time.Duration) []game.UserCmd {
			out := make([]game.UserCmd, 0, 8)
			for i := range uint32(8) {
				out = append(out, walk(next+i, dt))
			}
			return out
		}, false},
		{"absurd durations", func(next uint32, dt time.Duration) []game.UserCmd {
			return []game.UserCmd{walk(next, 250*time.Millisecond)}
		}, false},
		{"sequence from the future", func(next uint32, dt time.Duration) []game.UserCmd {
			return []game.UserCmd{walk(next+1000, dt), walk(next+1001, dt)}
		}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// The window limit would disconnect the flooders; the budget
			// must hold without it.
			s := testServer(t, Config{Limits: Limits{OutOfWindow: 1 << 20}})
			dt := s.TickDuration()
			id := join(t, s, 0, 7)
			start, _ := s.Client(id)
			next := uint32(1)
			var now time.Duration
			for s.Tick() < seconds*64 {
				now = s.NextTick()
				cmds := tc.cmds(next, dt)
				sendCmds(t, s, now-time.Microsecond, 7, cmds)
				next = cmds[len(cmds)-1].Tick + 1
				s.Advance(now)
			}
			end, _ := s.Client(id)
			dist := end.State.Pos.Sub(start.State.Pos).Len()
			speed := game.DefaultParams().WalkSpeed
			limit := speed * (now.Seconds() + s.cfg.MoveSlack.Seconds())
			if dist > limit+1e-6 {
				t.Fatalf("moved %.3f m in %.2f s, limit %.3f m", dist, now.Seconds(), limit)
			}
			if tc.honest && dist < speed*(now.Seconds()-0.3) {
				t.Fatalf("honest client moved only %.3f m in %.2f s", dist, now.Seconds())
			}
		})
	}
}

func TestReplayedCommandsAreIgnored(t *testing.T) {
	s := testServer(t, Config{})
	dt := s.TickDuration()
	id := join(t, s, 0, 1)
	for n := uint32(1); n <= 64; n++ {
		now := s.NextTick()
		sendCmds(t, s, now, 1, []game.UserCmd{walk(n, dt)})
		s.Advance(now)
	}
	before, _ := s.Client(id)
	for range 64 {
		now := s.NextTick()
		sendCmds(t, s, now, 1, []game.UserCmd{walk(10, dt), walk(11, dt)})
		s.Advance(now)
	}
	after, _ := s.Client(id)
	if after.State.Pos != before.State.Pos || after.LastCmd != 64 {
		t.Fatalf("replayed commands moved the player: %v -> %v (last %d)", before.State.Pos, after.State.Pos, after.LastCmd)
	}
}

func TestConnectErrors(t *testing.T) {
	s := testServer(t, Config{MaxClients: 1})
	join(t, s, 0, 1)
	m := wire.Connect{Version: wire.Version, Name: "late"}
	var ch wire.Challenge
	if wire.DecodeChallenge(connectTo(t, s, 0, 2, &m), &ch) != nil {
		t.Fatal("no challenge")
	}
	m.Token = ch.Token
	var r wire.Reject
	if reply := connectTo(t, s, 0, 2, &m); wire.DecodeReject(reply, &r) != nil || r.Reason != "server full" {
		t.Fatalf("want reject 'server full', got %x", reply)
	}
	// A future client, padded: the version is the two bytes after the
	// type. Unpadded, it gets no answer larger than itself: none.
	b := make([]byte, wire.ConnectSize)
	copy(b, []byte{byte(wire.MsgConnect), wire.Version + 1, 0, 0xde, 0xad})
	if err := s.Step(0, 3, b); err != nil {
		t.Fatal(err)
	}
	out := s.Ready().Messages
	if len(out) != 1 || wire.DecodeReject(out[0].Data, &r) != nil || r.Reason == "" {
		t.Fatalf("want reject for version, got %+v", r)
	}
	if err := s.Step(0, 3, b[:5]); err != nil {
		t.Fatal(err)
	}
	if out := s.Ready().Messages; len(out) != 0 {
		t.Fatalf("a 5-byte connect of another version got %d replies", len(out))
	}
}

func TestMalformedDatagramsAreHarmless(t *testing.T) {
	s := testServer(t, Config{})
	id := join(t, s, 0, 1)
	inputs := [][]byte{nil, {}, {0xff}, {byte(wire.MsgCommands)}, {byte(wire.MsgSnapshot), 1, 2, 3}, make([]byte, 5000)}
	for _, in := range inputs {
		if err := s.Step(0, 1, in); err == nil {
			t.Errorf("datagram %x accepted", in)
		}
	}
	if _, ok := s.Client(id); !ok {
		t.Fatal("client lost after malformed input")
	}
	if s.Stats().Malformed == 0 {
		t.Fatal("malformed datagrams not counted")
	}
}

func TestSilentClientTimesOut(t *testing.T) {
	s := testServer(t, Config{Timeout: time.Second})
	id := join(t, s, 0, 1)
	ready := s.Advance(2 * time.Second)
	if _, ok := s.Client(id); ok {
		t.Fatal("silent client still connected")
	}
	var d wire.Disconnect
	found := false
	for _, o := range ready.Messages {
		if wire.DecodeDisconnect(o.Data, &d) == nil && d.Reason == "timed out" {
			found = true
		}
	}
	if !found {
		t.Fatal("no disconnect with reason sent")
	}
}

// TestRTTFromAcks checks the server's RTT estimate from snapshot
// acknowledgements, net of the client's declared hold time.
func TestRTTFromAcks(t *testing.T) {
	s := testServer(t, Config{})
	id := join(t, s, 0, 1)
	const rtt = 80 * time.Millisecond
	hold := 5 * time.Millisecond
	type ack struct {
		at time.Duration
		b  []byte
	}
	var acks []ack // in order of delivery
	for s.Tick() < 200 {
		now := s.NextTick()
		// Deliver the acknowledgements due before this tick, each the
		// round trip plus the hold after its snapshot left.
		for len(acks) > 0 && acks[0].at < now {
			if err := s.Step(acks[0].at, 1, acks[0].b); err != nil {
				t.Fatal(err)
			}
			acks = acks[1:]
		}
		for _, d := range s.Advance(now).Messages {
			var sn wire.Snapshot
			sn.SetGame(weapon.Layout)
			if d.To == 1 && wire.DecodeSnapshot(d.Data, &sn, func(uint32) *wire.Snapshot { return nil }) == nil {
				b, _ := wire.AppendCommands(nil, &wire.Commands{AckTick: sn.Tick, AckDelay: hold, ClientTime: now + rtt/2,
					Cmds: []game.UserCmd{{Tick: sn.Tick, Duration: s.TickDuration()}}})
				acks = append(acks, ack{now + rtt + hold, b})
			}
		}
	}
	info, _ := s.Client(id)
	if d := info.RTT - rtt; d < -2*time.Millisecond || d > 2*time.Millisecond {
		t.Fatalf("server RTT %v, want %v", info.RTT, rtt)
	}
}
