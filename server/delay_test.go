package server

import (
	"encoding/binary"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lagkit/lagkit/delay"
	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/internal/rtt"
	"github.com/lagkit/lagkit/lagcomp"
	"github.com/lagkit/lagkit/shooter/weapon"
	"github.com/lagkit/lagkit/wire"
	"github.com/lagkit/lagkit/world"
	"github.com/lagkit/lagkit/world/worldtest"
)

// Peers of the delay tests: fast plays at 20 ms round trip (10 ms one
// way), slow at 150 ms (75 ms), so under time delay fast's added delay is
// 65 ms, a little over four 64 Hz ticks of 15.625 ms.
const (
	fastPeer Peer = 1
	slowPeer Peer = 2
)

// delayServer returns a server on map m (nil: the open test map) with
// fast and slow joined at time 0 and their round trips set.
func delayServer(t *testing.T, m *world.Map, cfg Config) (s *Server, fast, slow int) {
	t.Helper()
	if m == nil {
		m = worldtest.Open(t)
	}
	cfg.Map = m
	s, err := New(armed(cfg))
	if err != nil {
		t.Fatal(err)
	}
	fast, slow = join(t, s, 0, fastPeer), join(t, s, 0, slowPeer)
	setRTT(s, fast, 20*time.Millisecond)
	setRTT(s, slow, 150*time.Millisecond)
	return s, fast, slow
}

// setRTT makes the server's round-trip estimate for slot id exactly d.
func setRTT(s *Server, id int, d time.Duration) {
	c := s.clients[id]
	c.rtt = rtt.Estimator{}
	c.rtt.Add(d)
}

// play sends fast command n at server tick n's time for ticks 1 to last,
// each arriving just as its tick runs, and returns the server tick at
// which each command was executed.
func play(t *testing.T, s *Server, last uint32, script func(n uint32) game.UserCmd) map[uint32]uint32 {
	t.Helper()
	exec := map[uint32]uint32{}
	done := uint32(0)
	for n := uint32(1); n <= last; n++ {
		now := s.NextTick()
		cmd := script(n)
		cmd.Tick, cmd.Duration = n, s.TickDuration()
		sendCmds(t, s, now, fastPeer, []game.UserCmd{cmd})
		s.Advance(now)
		id, _ := s.ClientByPeer(fastPeer)
		info, _ := s.Client(id)
		for ; done < info.LastCmd; done++ {
			exec[done+1] = s.Tick()
		}
	}
	return exec
}

// pressAt returns a script that is idle but for one tap of fire at
// command 40, walks forward from command 100, and adds the buttons of
// extra from command 103 on.
func pressAt(extra game.Buttons) func(n uint32) game.UserCmd {
	return func(n uint32) game.UserCmd {
		var c game.UserCmd
		if n == 40 {
			c.Buttons = game.BtnFire
		}
		if n >= 100 {
			c.Forward = 127
		}
		if n >= 103 {
			c.Buttons |= extra
		}
		return c
	}
}

var instantDelay = Config{Delay: delay.Config{Mode: delay.Regular}}

// TestInputDelayIdleThenFullDelay: the server runs a new input after an
// idle gap at the end of the full hold the first input-delay rule gives
// it (the rule itself is tested in package delay). Command 100 arrives at 1562.5 ms, 59
// ticks after the previous new input; held 65 ms, it may run from
// 1627.5 ms, which is tick 105 (tick 100 without delay).
func TestInputDelayIdleThenFullDelay(t *testing.T) {
	for _, tc := range []struct {
		mode string
		want uint32
	}{{delay.None, 100}, {delay.Regular, 105}} {
		s, _, _ := delayServer(t, nil, Config{Delay: delay.Config{Mode: tc.mode}})
		exec := play(t, s, 110, pressAt(0))
		if exec[99] != 99 || exec[100] != tc.want {
			t.Errorf("%s: command 99 ran at tick %d, command 100 at tick %d; want 99 and %d", tc.mode, exec[99], exec[100], tc.want)
		}
	}
}

// TestInputDelayHeldInputContinues: the server runs the commands that
// continue a held input, which the second input-delay rule holds no
// further, behind it and on time again. Commands 101 to 105 continue the walk begun
// by command 100: they queue behind it and run in its tick, 105, on the
// movement budget banked during the hold (93.75 ms, six commands), so the
// walk is back on time at once and loses no movement.
func TestInputDelayHeldInputContinues(t *testing.T) {
	s, fast, _ := delayServer(t, nil, instantDelay)
	exec := play(t, s, 120, pressAt(0))
	for n := uint32(100); n <= 105; n++ {
		if exec[n] != 105 {
			t.Errorf("command %d ran at tick %d, want 105", n, exec[n])
		}
	}
	for n := uint32(106); n <= 120; n++ {
		if exec[n] != n {
			t.Errorf("command %d ran at tick %d, want %d: held input delayed again", n, exec[n], n)
		}
	}
	ref, refFast, _ := delayServer(t, nil, Config{})
	play(t, ref, 120, pressAt(0))
	got, _ := s.Client(fast)
	want, _ := ref.Client(refFast)
	if got.State.Pos != want.State.Pos {
		t.Errorf("after the catch-up the player is at %v, undelayed at %v", got.State.Pos, want.State.Pos)
	}
}

// TestInputDelayNewPressWithinWindow: the server runs a new press within
// the window of the previous one after the shorter hold the third
// input-delay rule gives it. Fire
// pressed with command 103, 46.875 ms after the walk began, is held
// 46.875 ms, not 65: it may run from 1656.25 ms, tick 106, where the full
// delay would make it tick 108.
func TestInputDelayNewPressWithinWindow(t *testing.T) {
	s, _, _ := delayServer(t, nil, instantDelay)
	exec := play(t, s, 110, pressAt(game.BtnFire))
	if exec[100] != 105 || exec[102] != 105 || exec[103] != 106 {
		t.Errorf("commands 100, 102, 103 ran at ticks %d, %d, %d; want 105, 105, 106", exec[100], exec[102], exec[103])
	}
}

// TestInputDelayBeyondMoveSlack: a hold longer than MoveSlack leaves the
// held stream late by the rest, as the Delay doc says. A walk begun with
// command 100 is held 200 ms, to tick 113; the 100 ms budget banked meanwhile
// runs commands 100 to 105 then, and the walk stays 8 ticks (125 ms: the
// 100 ms beyond the budget and the hold's rounding up to a tick) late.
func TestInputDelayBeyondMoveSlack(t *testing.T) {
	s, _, slow := delayServer(t, nil, Config{Delay: delay.Config{Mode: delay.Regular, Max: 200 * time.Millisecond}})
	setRTT(s, slow, 420*time.Millisecond) // 210 ms one way: 200 ms added, the cap
	exec := play(t, s, 130, func(n uint32) game.UserCmd {
		if n >= 100 {
			return game.UserCmd{Forward: 127}
		}
		return game.UserCmd{}
	})
	if exec[100] != 113 || exec[105] != 113 || exec[106] != 114 || exec[120] != 128 {
		t.Errorf("commands 100, 105, 106, 120 ran at ticks %d, %d, %d, %d; want 113, 113, 114, 128", exec[100], exec[105], exec[106], exec[120])
	}
}

// TestInputDelayKeepsMovementBudget: a client flooding new inputs under
// time delay moves no further than elapsed time plus MoveSlack allows.
func TestInputDelayKeepsMovementBudget(t *testing.T) {
	cfg := instantDelay
	cfg.Limits.OutOfWindow = 1 << 20 // the budget must hold without it
	s, fast, _ := delayServer(t, nil, cfg)
	start, _ := s.Client(fast)
	next := uint32(1)
	var now time.Duration
	for s.Tick() < 3*64 {
		now = s.NextTick()
		cmds := make([]game.UserCmd, 8)
		for i := range cmds {
			// Alternate the keys so every command is a new input.
			cmds[i] = game.UserCmd{Tick: next, Duration: s.TickDuration(), Forward: 127, Side: int8(127 * (next % 2))}
			next++
		}
		sendCmds(t, s, now, fastPeer, cmds)
		s.Advance(now)
	}
	end, _ := s.Client(fast)
	limit := game.DefaultParams().WalkSpeed * (now + s.cfg.MoveSlack).Seconds()
	if d := end.State.Pos.Sub(start.State.Pos).Len(); d > limit+1e-6 {
		t.Fatalf("moved %.3f m in %v, limit %.3f m", d, now, limit)
	}
}

// advanceTo runs the server's ticks up to tick n.
func advanceTo(s *Server, n uint32) *Ready {
	return s.Advance(time.Duration(n) * s.TickDuration())
}

// TestSnapshotHold: snapshots to the fast player wait its 65 ms,
// rounded to 4 ticks, and come out in order; their echo hold includes the
// wait, and the server's round-trip estimate takes the release as the
// send time, so both keep measuring the network only.
func TestSnapshotHold(t *testing.T) {
	s, fast, _ := delayServer(t, nil, instantDelay)
	b, _ := wire.AppendCommands(nil, &wire.Commands{ClientTime: time.Millisecond, Cmds: []game.UserCmd{{Tick: 1, Duration: s.TickDuration()}}})
	if err := s.Step(0, fastPeer, b); err != nil {
		t.Fatal(err)
	}
	got := map[Peer][]uint32{}
	var echo time.Duration
	for n := uint32(1); n <= 20; n++ {
		for _, d := range advanceTo(s, n).Messages {
			var sn wire.Snapshot
			sn.SetGame(weapon.Layout)
			if wire.DecodeSnapshot(d.Data, &sn, func(uint32) *wire.Snapshot { return nil }) != nil {
				continue
			}
			got[d.To] = append(got[d.To], sn.Tick)
			if d.To == fastPeer && n == 20 {
				echo = sn.EchoHold
			}
		}
	}
	// The delay is set by the first reading, at tick 2: snapshot 1 went
	// out at once, snapshot 2 at tick 6, and so on up to 16 at tick 20.
	want := []uint32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	if f := got[fastPeer]; !slices.Equal(f, want) {
		t.Errorf("fast got snapshots %v by tick 20, want %v", f, want)
	}
	if w := got[slowPeer]; len(w) != 20 || w[19] != 20 {
		t.Errorf("slow got snapshots %v; want every tick's at once", w)
	}
	// Snapshot 16 was built at tick 16 (250 ms), 250 ms after the
	// command's arrival at 0, and waited 4 ticks.
	if want := 250*time.Millisecond + 4*s.TickDuration(); echo != want {
		t.Errorf("echo hold %v, want %v", echo, want)
	}
	// An acknowledgement of snapshot 16, released at tick 20 (312.5 ms),
	// arriving 20 ms later: a 20 ms sample.
	now := 20*s.TickDuration() + 20*time.Millisecond
	b, _ = wire.AppendCommands(nil, &wire.Commands{AckTick: 16, ClientTime: now, Cmds: []game.UserCmd{{Tick: 2, Duration: s.TickDuration()}}})
	if err := s.Step(now, fastPeer, b); err != nil {
		t.Fatal(err)
	}
	if info, _ := s.Client(fast); info.RTT != 20*time.Millisecond {
		t.Errorf("round trip %v after a 20 ms sample, want 20ms: the hold leaked into it", info.RTT)
	}
}

// TestSnapshotHoldInputsOnly: under InputsOnly (the adaptive time delay
// study's rule) the fast player's inputs are held but its snapshots go
// out at once, as the slow player's do.
func TestSnapshotHoldInputsOnly(t *testing.T) {
	cfg := instantDelay
	cfg.Delay.InputsOnly = true
	s, _, _ := delayServer(t, nil, cfg)
	b, _ := wire.AppendCommands(nil, &wire.Commands{ClientTime: time.Millisecond, Cmds: []game.UserCmd{{Tick: 1, Duration: s.TickDuration()}}})
	if err := s.Step(0, fastPeer, b); err != nil {
		t.Fatal(err)
	}
	got := map[Peer][]uint32{}
	for n := uint32(1); n <= 20; n++ {
		for _, d := range advanceTo(s, n).Messages {
			var sn wire.Snapshot
			sn.SetGame(weapon.Layout)
			if wire.DecodeSnapshot(d.Data, &sn, func(uint32) *wire.Snapshot { return nil }) == nil {
				got[d.To] = append(got[d.To], sn.Tick)
			}
		}
	}
	for _, p := range []Peer{fastPeer, slowPeer} {
		if w := got[p]; len(w) != 20 || w[19] != 20 {
			t.Errorf("peer %v got snapshots %v; want every tick's at once", p, w)
		}
	}
	if s.delay.Added(0) == 0 && s.delay.Added(1) == 0 {
		t.Error("no delay added: the test shows nothing")
	}
}

// TestDelayConfig: the server fills in the delay's defaults, refuses
// bad ones and refuses time delay with time warp: time warp runs
// commands at their clients' ticks, delay runs them late.
func TestDelayConfig(t *testing.T) {
	if _, err := New(armed(Config{Map: worldtest.Open(t), Delay: delay.Config{Mode: "slow"}})); err == nil || !strings.Contains(err.Error(), `delay: unknown delay mode "slow"`) {
		t.Errorf("unknown mode: error %v", err)
	}
	for _, mode := range []string{delay.Regular, delay.Adaptive} {
		_, err := New(armed(Config{Map: worldtest.Open(t), Policy: lagcomp.Config{Name: "none"}, TimeWarp: 300 * time.Millisecond, Delay: delay.Config{Mode: mode}}))
		if err == nil || !strings.Contains(err.Error(), "time warp cannot be combined") {
			t.Errorf("%s with time warp: error %v", mode, err)
		}
	}
	s, err := New(armed(Config{Map: worldtest.Open(t), Delay: delay.Config{Mode: delay.Adaptive}}))
	if err != nil {
		t.Fatal(err)
	}
	if d := s.Config().Delay; d.Trigger != delay.Proximity || d.On != 20 || d.Off != 25 || d.Max != 100*time.Millisecond {
		t.Errorf("defaults %+v", d)
	}
}

// TestDelayDeterministic: the same inputs give the same states, digest
// and delay measurements.
func TestDelayDeterministic(t *testing.T) {
	run := func() (string, ClientInfo) {
		s, fast, _ := delayServer(t, nil, Config{Delay: delay.Config{Mode: delay.Adaptive, Adaptation: delay.DefaultAdaptation}})
		play(t, s, 300, func(n uint32) game.UserCmd {
			c := game.UserCmd{Forward: 127, Yaw: uint16(n * 300)}
			if n%37 < 5 {
				c.Buttons = game.BtnFire
			}
			return c
		})
		info, _ := s.Client(fast)
		return s.StateHash(), info
	}
	h1, i1 := run()
	h2, i2 := run()
	if h1 != h2 || i1 != i2 {
		t.Fatalf("two runs differ: %s %+v / %s %+v", h1, i1.Delay, h2, i2.Delay)
	}
	if i1.Delay.NewInputs == 0 || i1.Delay.Active == 0 {
		t.Fatalf("no delay measured: %+v", i1.Delay)
	}
}

// BenchmarkServerTickAdaptiveDelay is BenchmarkServerTick64 with adaptive
// delay under the fov trigger, the costlier one: 64 players at round
// trips from 20 to 335 ms, every pair tested for view and line of sight
// every 20 ms, snapshots held.
func BenchmarkServerTickAdaptiveDelay(b *testing.B) {
	s := testServer(b, Config{MaxClients: 64, Delay: delay.Config{Mode: delay.Adaptive, Trigger: delay.FOV, Adaptation: delay.DefaultAdaptation}})
	dt := s.TickDuration()
	for i := range 64 {
		join(b, s, 0, Peer(i))
	}
	next := uint32(1)
	acks := make([]uint32, 64)
	buf := make([]byte, 0, wire.MaxDatagram)
	tick := func() {
		now := s.NextTick()
		for i := range 64 {
			cmd := game.UserCmd{Tick: next, Duration: dt, Forward: 127, Yaw: uint16(i * 1000)}
			if next%16 == 0 {
				cmd.Buttons = game.BtnCrouch
			}
			var err error
			if buf, err = wire.AppendCommands(buf[:0], &wire.Commands{AckTick: acks[i], ClientTime: now, Cmds: []game.UserCmd{cmd}}); err != nil {
				b.Fatal(err)
			}
			if err := s.Step(now, Peer(i), buf); err != nil {
				b.Fatal(err)
			}
			// The acknowledgements come back at once; keep the round
			// trips the links would give.
			setRTT(s, i, time.Duration(20+5*i)*time.Millisecond)
		}
		next++
		for _, d := range s.Advance(now).Messages {
			// A snapshot's tick is the 32 bits after its type byte.
			acks[d.To] = binary.LittleEndian.Uint32(d.Data[1:5])
		}
	}
	for range 128 { // warm up: reach steady-state delta snapshots
		tick()
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		tick()
	}
}
