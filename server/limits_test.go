package server

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/wire"
)

// disconnectTo returns the Disconnect in out addressed to peer, if any.
func disconnectTo(out []Datagram, peer Peer) (wire.Disconnect, bool) {
	for _, d := range out {
		var m wire.Disconnect
		if d.To == peer && wire.DecodeDisconnect(d.Data, &m) == nil {
			return m, true
		}
	}
	return wire.Disconnect{}, false
}

// TestLimitsDisconnectWithReason: a client that goes over one of its
// limits within a second is disconnected with that limit's code and a
// reason naming it, which the server's log keeps and Stats.Kicked
// counts; an honest client playing beside it stays, and the same abuse
// spread below the limit is tolerated.
func TestLimitsDisconnectWithReason(t *testing.T) {
	const abuser, honest = Peer(1), Peer(2)
	appeal, err := wire.AppendAppeal(nil, &wire.Appeal{ID: 12345, Deny: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		limits Limits
		code   wire.DisconnectCode
		// send sends the i-th abusive datagram at now.
		send func(s *Server, now time.Duration, i int) error
	}{
		{"malformed", Limits{Malformed: 5}, wire.DisconnectMalformed, func(s *Server, now time.Duration, i int) error {
			return s.Step(now, abuser, []byte{byte(wire.MsgCommands), 0xff, 0xff})
		}},
		{"out of window", Limits{OutOfWindow: 16}, wire.DisconnectOutOfWindow, func(s *Server, now time.Duration, i int) error {
			b, _ := wire.AppendCommands(nil, &wire.Commands{Cmds: []game.UserCmd{walk(uint32(1<<31+i), s.TickDuration())}})
			return s.Step(now, abuser, b)
		}},
		{"appeals", Limits{Appeals: 8}, wire.DisconnectAppeals, func(s *Server, now time.Duration, i int) error {
			return s.Step(now, abuser, appeal)
		}},
		{"bytes", Limits{BytesPerSecond: 4096}, wire.DisconnectBytes, func(s *Server, now time.Duration, i int) error {
			b, _ := wire.AppendCommands(nil, &wire.Commands{Cmds: []game.UserCmd{walk(1, s.TickDuration())}})
			return s.Step(now, abuser, b)
		}},
		{"reports", Limits{Reports: 6}, wire.DisconnectReports, func(s *Server, now time.Duration, i int) error {
			b, _ := wire.AppendReport(nil, &wire.Report{})
			return s.Step(now, abuser, b)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, rate := range []int{1, 200} { // per tick: below the limit, far above it
				s := testServer(t, Config{Limits: tc.limits})
				join(t, s, 0, abuser)
				good := join(t, s, 0, honest)
				var got wire.Disconnect
				var ready *Ready
				kicked, i, failed := false, 0, false
				for n := uint32(1); n <= 128 && !kicked; n++ {
					now := s.NextTick()
					sendCmds(t, s, now, honest, []game.UserCmd{walk(n, s.TickDuration())})
					if n%16 == 0 || rate > 1 {
						for range rate {
							err := tc.send(s, now, i)
							i++
							if errors.Is(err, ErrOverLimit) {
								failed = true
								break
							}
						}
					}
					ready = s.Advance(now)
					got, kicked = disconnectTo(ready.Messages, abuser)
				}
				if rate == 1 {
					if kicked || failed {
						t.Fatalf("abuse below the limit (%d in 2 s) disconnected: %+v", i, got)
					}
					continue
				}
				if !kicked || !failed || got.Code != tc.code || !strings.HasPrefix(got.Reason, "too many ") {
					t.Fatalf("over the limit: disconnect %+v (sent %v, Step said so %v), want code %v", got, kicked, failed, tc.code)
				}
				if _, ok := s.ClientByPeer(abuser); ok {
					t.Fatal("abuser still has a session")
				}
				if info, ok := s.Client(good); !ok || info.LastCmd == 0 {
					t.Fatal("the honest client was dropped or stalled")
				}
				if st := s.Stats(); st.Kicked[tc.code] != 1 {
					t.Fatalf("kicked by code %v, want one %v", st.Kicked, tc.code)
				}
				var logged bool
				for _, e := range ready.Log {
					logged = logged || e.Kind == "disconnect" && e.Code == tc.code && e.Reason == got.Reason
				}
				if !logged {
					t.Fatalf("log %+v has no disconnect with code %v", ready.Log, tc.code)
				}
			}
		})
	}
}

// TestChargedCountsAreExposed: what a client was charged shows in its
// ClientInfo.
func TestChargedCountsAreExposed(t *testing.T) {
	s := testServer(t, Config{})
	id := join(t, s, 0, 1)
	for range 3 {
		_ = s.Step(0, 1, []byte{byte(wire.MsgAppeal)})
	}
	info, _ := s.Client(id)
	if info.Charged.Malformed != 3 || info.Charged.Bytes != 3 {
		t.Fatalf("charged %+v, want 3 malformed datagrams of 1 byte", info.Charged)
	}
}

// TestNeverAckingClientIsSlowedAndTimesOut: a client that sends its
// commands every tick but acknowledges no snapshot gets the full stream
// for unackedGrace, then one snapshot per unackedInterval, and is
// dropped with DisconnectNoAcks after Limits.AckTimeout; a client that
// acknowledges keeps its full stream.
func TestNeverAckingClientIsSlowedAndTimesOut(t *testing.T) {
	s := testServer(t, Config{Limits: Limits{AckTimeout: 3 * time.Second}})
	const silent, acking = Peer(1), Peer(2)
	join(t, s, 0, silent)
	join(t, s, 0, acking)
	snaps := map[Peer][]time.Duration{}
	var gone wire.Disconnect
	var goneAt time.Duration
	for n := uint32(1); goneAt == 0 && n < 5*64; n++ {
		now := s.NextTick()
		sendCmds(t, s, now, silent, []game.UserCmd{walk(n, s.TickDuration())})
		b, _ := wire.AppendCommands(nil, &wire.Commands{AckTick: s.Tick(), Cmds: []game.UserCmd{walk(n, s.TickDuration())}})
		if err := s.Step(now, acking, b); err != nil {
			t.Fatal(err)
		}
		out := s.Advance(now).Messages
		for _, d := range out {
			if typ, _ := wire.PeekType(d.Data); typ == wire.MsgSnapshot {
				snaps[d.To] = append(snaps[d.To], now)
			}
		}
		if m, ok := disconnectTo(out, silent); ok {
			gone, goneAt = m, now
		}
	}
	if gone.Code != wire.DisconnectNoAcks || goneAt < 3*time.Second || goneAt > 3*time.Second+50*time.Millisecond {
		t.Fatalf("silent client dropped at %v with %+v, want code %v just after 3 s", goneAt, gone, wire.DisconnectNoAcks)
	}
	late := 0
	for _, at := range snaps[silent] {
		if at > unackedGrace+s.TickDuration() {
			late++
		}
	}
	// 2 s of slowed stream at one per 250 ms.
	if want := int((goneAt - unackedGrace) / unackedInterval); late > want+1 {
		t.Fatalf("silent client got %d snapshots after the grace, want at most %d", late, want+1)
	}
	if n := len(snaps[acking]); n < int(goneAt/s.TickDuration())-2 {
		t.Fatalf("acknowledging client got %d snapshots in %v", n, goneAt)
	}
}

// TestLimitsValidated: a negative limit is a configuration error.
func TestLimitsValidated(t *testing.T) {
	for _, l := range []Limits{{Malformed: -1}, {BytesPerSecond: -1}, {AckTimeout: -time.Second}} {
		if _, err := New(armed(Config{Map: testServer(t, Config{}).cfg.Map, Limits: l})); err == nil || !strings.Contains(err.Error(), "limits") {
			t.Errorf("limits %+v: error %v", l, err)
		}
	}
	c := testServer(t, Config{Timeout: 4 * time.Second}).Config().Limits
	if c.Malformed != 10 || c.OutOfWindow != 64 || c.BytesPerSecond != 64<<10 || c.AckTimeout != 4*time.Second {
		t.Fatalf("defaults %+v", c)
	}
}

// TestLyingAckDelayCannotHideTheRoundTrip: a client on an 80 ms path
// that answers each snapshot the moment it arrives while declaring the
// longest hold the server accepts (a tick plus maxAckSlack) is measured
// at no less than its true round trip minus one tick, the interval
// between its packets (plus a millisecond for the estimator's
// smoothing); before the declared hold was bounded by that interval it
// looked 40 ms faster. An honest client on the same path, answering at
// its next tick and declaring the true hold, is measured within a
// millisecond of the truth.
func TestLyingAckDelayCannotHideTheRoundTrip(t *testing.T) {
	const oneWay = 40 * time.Millisecond
	const trueRTT = 2 * oneWay
	for _, liar := range []bool{true, false} {
		s := testServer(t, Config{})
		tick := s.TickDuration()
		id := join(t, s, 0, 1)
		phase := tick / 3 // the honest client's ticks lie this far after the server's
		type packet struct {
			at   time.Duration
			data []byte
		}
		var up []packet
		var newest uint32
		var newestAt time.Duration
		next := uint32(1)
		send := func(at time.Duration, ack uint32, hold time.Duration) {
			b, err := wire.AppendCommands(nil, &wire.Commands{AckTick: ack, AckDelay: hold, Cmds: []game.UserCmd{walk(next, tick)}})
			if err != nil {
				t.Fatal(err)
			}
			next++
			up = append(up, packet{at + oneWay, b})
		}
		for s.Tick() < 3*64 {
			now := s.NextTick()
			for len(up) > 0 && up[0].at <= now {
				if err := s.Step(up[0].at, 1, up[0].data); err != nil {
					t.Fatal(err)
				}
				up = up[1:]
			}
			for _, d := range s.Advance(now).Messages {
				if typ, _ := wire.PeekType(d.Data); typ != wire.MsgSnapshot {
					continue
				}
				arrive := now + oneWay
				if liar {
					send(arrive, s.Tick(), tick+maxAckSlack)
					continue
				}
				newest, newestAt = s.Tick(), arrive
				// The client's first tick at or after the arrival.
				at := (arrive-phase+tick-1)/tick*tick + phase
				send(at, newest, at-newestAt)
			}
		}
		info, _ := s.Client(id)
		if liar && info.RTT < trueRTT-tick-time.Millisecond {
			t.Fatalf("lying client measured at %v, true round trip %v: more than a tick (%v) faster", info.RTT, trueRTT, tick)
		}
		if !liar && (info.RTT < trueRTT-time.Millisecond || info.RTT > trueRTT+time.Millisecond) {
			t.Fatalf("honest client measured at %v, true round trip %v", info.RTT, trueRTT)
		}
	}
}
