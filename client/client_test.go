package client

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/wire"
	"github.com/lagkit/lagkit/world/worldtest"
)

const tick = time.Second / 64

// connected returns a client that the server accepted at tick 0 as slot 0,
// on cfg.Map or, by default, the open test map.
func connected(t testing.TB, cfg Config) *Client {
	t.Helper()
	if cfg.Map == nil {
		cfg.Map = worldtest.Open(t)
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c.Connect(0)
	if len(sent(c)) != 1 {
		t.Fatal("no connect sent")
	}
	b, _ := wire.AppendAccept(nil, &wire.Accept{ClientID: 0, TickRate: 64, Map: cfg.Map.Name})
	if err := c.Step(0, b); err != nil {
		t.Fatal(err)
	}
	if c.Phase() != Connected {
		t.Fatalf("phase %v", c.Phase())
	}
	return c
}

// sent hands over what c has to send (Ready's Messages).
func sent(c *Client) [][]byte { return bodies(c.Ready().Messages) }

// bodies returns the datagrams' bytes.
func bodies(out []Datagram) [][]byte {
	var b [][]byte
	for _, d := range out {
		b = append(b, d.Data)
	}
	return b
}

// feed sends c a full snapshot of tick n with remote player 1 at x and
// the local player at self after command lastCmd.
func feed(t *testing.T, c *Client, now time.Duration, n uint32, x float64, teleport uint8, self game.PlayerState, lastCmd uint32) {
	t.Helper()
	feedMoving(t, c, now, n, x, 0, 0, teleport, self, lastCmd)
}

// feedMoving is feed with remote player 1 moving at vx m/s, its state
// stamped with tick stamp (0: the snapshot's).
func feedMoving(t *testing.T, c *Client, now time.Duration, n uint32, x, vx float64, stamp uint32, teleport uint8, self game.PlayerState, lastCmd uint32) {
	t.Helper()
	var s wire.Snapshot
	s.Tick, s.LastCmd, s.Self = n, lastCmd, self
	s.SetSlots(wire.MaxEntities)
	s.Entities[1] = wire.EntityFromState(game.PlayerState{Pos: game.SnapPos(geom.V(x, 0, 0)), Vel: geom.V(vx, 0, 0), Teleport: teleport})
	s.Entities[1].Stamp = stamp
	s.Present[0] = 1 << 1
	b, err := wire.AppendSnapshot(nil, &s, nil, wire.MaxDatagram)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Step(now, b); err != nil {
		t.Fatal(err)
	}
}

func TestCommandsRepeatUnacknowledged(t *testing.T) {
	c := connected(t, Config{Redundancy: 3})
	for i := range 6 {
		out := bodies(c.Tick(time.Duration(1+i)*tick, game.UserCmd{Forward: 127}).Messages)
		if len(out) != 1 {
			t.Fatalf("tick %d: %d packets", i, len(out))
		}
		var m wire.Commands
		if err := wire.DecodeCommands(out[0], &m); err != nil {
			t.Fatal(err)
		}
		want := min(i+1, 4)
		if len(m.Cmds) != want || m.Cmds[len(m.Cmds)-1].Tick != uint32(i+1) {
			t.Fatalf("tick %d: %d commands ending %d, want %d ending %d", i, len(m.Cmds), m.Cmds[len(m.Cmds)-1].Tick, want, i+1)
		}
	}
}

// TestTicksKeepEachPacket checks that each Tick hands over its own
// packet, valid until the handover after the next: the packet of one
// tick still ends with its own command after the next tick, rather than
// being a copy of the last one built in the reused command buffer.
func TestTicksKeepEachPacket(t *testing.T) {
	c := connected(t, Config{Redundancy: 1})
	var out [][]byte
	for i := range 4 {
		r := c.Tick(time.Duration(1+i)*tick, game.UserCmd{Forward: 127})
		if len(r.Messages) != 1 || !r.Messages[0].Commands {
			t.Fatalf("tick %d handed over %d datagrams, want its command packet", i, len(r.Messages))
		}
		out = append(out, r.Messages[0].Data)
	}
	for i, b := range out[2:] {
		i += 2
		var m wire.Commands
		if err := wire.DecodeCommands(b, &m); err != nil {
			t.Fatal(err)
		}
		if last := m.Cmds[len(m.Cmds)-1].Tick; last != uint32(i+1) {
			t.Errorf("packet %d ends with command %d, want %d", i, last, i+1)
		}
	}
}

// TestNoPredictionErrorBeforeFirstSnapshot: a client issues commands
// before its first snapshot, with no state of its own player to predict
// them from (the spawn, 57 m from the origin, is the server's to choose).
// On a clean link, where the server executes each command as it comes,
// no prediction error is reported, neither for those commands nor for
// the ones predicted afterwards from the server's state, and nothing is
// corrected.
func TestNoPredictionErrorBeforeFirstSnapshot(t *testing.T) {
	c := connected(t, Config{Map: worldtest.Cover(t)})
	srv := game.PlayerState{Pos: geom.V(-40, -40, 0), Flags: game.FlagOnGround, Health: 100}
	var executed uint32
	// serve executes the commands c sent and, if snap, answers with a
	// snapshot of tick n.
	serve := func(now time.Duration, n uint32, snap bool, r *Ready) {
		for _, b := range bodies(r.Messages) {
			var m wire.Commands
			if err := wire.DecodeCommands(b, &m); err != nil {
				t.Fatal(err)
			}
			for _, cmd := range m.Cmds {
				if cmd.Tick == executed+1 {
					srv, _ = c.cfg.Step(srv, cmd, &game.StepCtx{Grid: c.cfg.Map.Grid, Params: c.cfg.Movement})
					executed = cmd.Tick
				}
			}
		}
		if snap {
			var s wire.Snapshot
			s.Tick, s.LastCmd, s.Self = n, executed, srv
			b, err := wire.AppendSnapshot(nil, &s, nil, wire.MaxDatagram)
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Step(now, b); err != nil {
				t.Fatal(err)
			}
		}
	}
	var errs []float64
	for n := uint32(1); n <= 40; n++ {
		now := time.Duration(n) * tick
		r := c.Tick(now, game.UserCmd{Forward: 127, Side: 60})
		serve(now, n, n >= 6, r) // the first snapshot answers command 6
		errs = append(errs, c.Ready().PredictionErrors...)
	}
	if executed != 40 || srv.Pos.Dist(geom.V(-40, -40, 0)) < 1 {
		t.Fatalf("server executed %d commands and moved to %v: the player should have walked", executed, srv.Pos)
	}
	// The commands issued before the first snapshot (1 to 6) are not
	// scored; each later one is, once.
	if len(errs) != 34 {
		t.Errorf("%d prediction errors, want 34 (commands 7 to 40)", len(errs))
	}
	for i, e := range errs {
		if e > 1e-6 {
			t.Fatalf("prediction error %d: %v m on a clean link", i, e)
		}
	}
	if p := c.Predicted(); p.Pos.Dist(srv.Pos) > 1e-6 {
		t.Errorf("predicted %v, server %v", p.Pos, srv.Pos)
	}
	if n := c.Stats().Corrections; n != 0 {
		t.Errorf("%d corrections on a clean link", n)
	}
}

func TestRejectAndGarbage(t *testing.T) {
	c, _ := New(Config{Map: worldtest.Open(t)})
	c.Connect(0)
	for _, b := range [][]byte{nil, {0xee}, {byte(wire.MsgAccept), 1}} {
		if err := c.Step(0, b); err == nil {
			t.Errorf("garbage %x accepted", b)
		}
	}
	r, _ := wire.AppendReject(nil, &wire.Reject{Reason: "server full"})
	if err := c.Step(0, r); err != nil {
		t.Fatal(err)
	}
	if c.Phase() != Closed || c.Reason() != "rejected: server full" {
		t.Fatalf("phase %v reason %q", c.Phase(), c.Reason())
	}
}

// TestDisconnectCodeReachesTheDriver: the code of the server's
// Disconnect (which limit the client went over) is handed over with the
// reason, for the driver to read. A Disconnect naming another session
// (an earlier one at this address) is ignored and counted.
func TestDisconnectCodeReachesTheDriver(t *testing.T) {
	c := connected(t, Config{Nonce: 5})
	if s := c.Ready().Session; len(s) != 1 || s[0] != (SessionChange{Kind: SessionConnected, ID: 0}) {
		t.Fatalf("session changes %+v, want the acceptance", s)
	}
	stale, _ := wire.AppendDisconnect(nil, &wire.Disconnect{Nonce: 4, Reason: "timed out", Code: wire.DisconnectTimedOut})
	if err := c.Step(tick, stale); err != nil {
		t.Fatal(err)
	}
	if c.Phase() != Connected || c.Stats().ForeignGoodbyes != 1 {
		t.Fatalf("a Disconnect for another session: phase %v, foreign goodbyes %d", c.Phase(), c.Stats().ForeignGoodbyes)
	}
	b, _ := wire.AppendDisconnect(nil, &wire.Disconnect{Nonce: 5, Reason: "too many bytes", Code: wire.DisconnectBytes})
	if err := c.Step(tick, b); err != nil {
		t.Fatal(err)
	}
	r := c.Ready()
	want := SessionChange{Kind: SessionEnded, Reason: "disconnected by server: too many bytes", ByServer: true, Code: wire.DisconnectBytes}
	if c.Phase() != Closed || len(r.Session) != 1 || r.Session[0] != want || c.Reason() != want.Reason {
		t.Fatalf("phase %v, session changes %+v, reason %q; want %+v", c.Phase(), r.Session, c.Reason(), want)
	}
	if r.Counts.ForeignGoodbyes != 1 {
		t.Errorf("counted %+v, want the foreign goodbye", r.Counts)
	}
}

// TestStampedStatesAreSamplesAtTheirTime: a state repeated under
// threshold replication is one sample, at the tick it is from.
func TestStampedStatesAreSamplesAtTheirTime(t *testing.T) {
	c := connected(t, Config{})
	feedMoving(t, c, 10*tick, 10, 10, 0, 10, 1, game.PlayerState{}, 0)
	feedMoving(t, c, 11*tick, 11, 10, 0, 10, 1, game.PlayerState{}, 0) // repeated
	feedMoving(t, c, 14*tick, 14, 13, 0, 14, 1, game.PlayerState{}, 0)
	// Between the stamps (10 and 14) the player moves evenly, not first
	// standing still until tick 11.
	if s, _ := c.Remote(1, 12*tick); math.Abs(s.Pos.X-11.5) > 1e-9 {
		t.Fatalf("x=%v at tick 12, want 11.5", s.Pos.X)
	}
}

// TestDeadReckonBlendsIntoEachState: between states the view moves along
// the last velocity; a new state is blended into, not jumped to.
func TestDeadReckonBlendsIntoEachState(t *testing.T) {
	c := connected(t, Config{Display: DeadReckon})
	feedMoving(t, c, 10*tick, 10, 10, 4, 10, 1, game.PlayerState{}, 0)
	s, _ := c.Remote(1, 10*tick+250*time.Millisecond)
	if math.Abs(s.Pos.X-11) > 1e-9 {
		t.Fatalf("250 ms on: x=%v, want 11", s.Pos.X)
	}
	// The player stopped at 10.5: the view starts from where it was
	// drawn and converges on the new state by the end of the blend.
	at := 10*tick + 125*time.Millisecond
	before, _ := c.Remote(1, at)
	feedMoving(t, c, at, 18, 10.5, 0, 18, 1, game.PlayerState{}, 0)
	after, _ := c.Remote(1, 18*tick)
	if math.Abs(after.Pos.X-before.Pos.X) > 0.05 {
		t.Fatalf("jumped from %v to %v on the update, want a blend", before.Pos.X, after.Pos.X)
	}
	if s, _ := c.Remote(1, 18*tick+time.Second); math.Abs(s.Pos.X-10.5) > 1e-9 {
		t.Fatalf("after the blend x=%v, want 10.5", s.Pos.X)
	}
}

// TestDisplayRegistry: every listed display mode parses back to itself,
// only interpolation draws behind the received server time, the zero
// Config interpolates, and an unknown name is refused with the known
// ones.
func TestDisplayRegistry(t *testing.T) {
	names := Displays.Names()
	if !slices.Equal(names, []string{"interpolate", "extrapolate", "opponent-predict", "dead-reckon"}) {
		t.Fatalf("names %v", names)
	}
	for _, name := range names {
		d, err := Displays.Lookup(name)
		if err != nil || d.Name() != name {
			t.Fatalf("Displays.Lookup(%q) = %v, %v", name, d, err)
		}
		c := connected(t, Config{Display: d, InterpDelay: 80 * time.Millisecond})
		want := c.ServerTime(time.Second)
		if d == Interpolate {
			want -= 80 * time.Millisecond
		}
		if got := c.ViewTime(time.Second); got != want {
			t.Errorf("%s: view time %v, want %v", name, got, want)
		}
	}
	if c := connected(t, Config{}); c.cfg.Display != Interpolate {
		t.Errorf("default display %v, want interpolate", c.cfg.Display.Name())
	}
	if _, err := Displays.Lookup("psychic"); err == nil || !strings.Contains(err.Error(), "dead-reckon") {
		t.Errorf("unknown display mode: error %v, want one listing the known modes", err)
	}
}

// TestChallengeIsAnsweredWithPaddedConnect: the client pads every
// Connect to wire.ConnectSize, answers its server's Challenge at once
// with the same session nonce and the challenged token, and ignores a
// Challenge for another session.
func TestChallengeIsAnsweredWithPaddedConnect(t *testing.T) {
	c, err := New(Config{Map: worldtest.Open(t), Nonce: 9})
	if err != nil {
		t.Fatal(err)
	}
	c.Connect(0)
	out := sent(c)
	var m wire.Connect
	if len(out) != 1 || len(out[0]) != wire.ConnectSize || wire.DecodeConnect(out[0], &m) != nil || m.Nonce != 9 || m.Token != "" {
		t.Fatalf("first connect %x", out)
	}
	other, _ := wire.AppendChallenge(nil, &wire.Challenge{Nonce: 8, Token: "stale"})
	if err := c.Step(time.Millisecond, other); err != nil || len(sent(c)) != 0 {
		t.Fatalf("a challenge for another session was answered (%v)", err)
	}
	ch, _ := wire.AppendChallenge(nil, &wire.Challenge{Nonce: 9, Token: "\x01\x02"})
	if err := c.Step(2*time.Millisecond, ch); err != nil {
		t.Fatal(err)
	}
	out = sent(c)
	if len(out) != 1 || wire.DecodeConnect(out[0], &m) != nil || m.Nonce != 9 || m.Token != "\x01\x02" {
		t.Fatalf("answer to the challenge: %x", out)
	}
}
