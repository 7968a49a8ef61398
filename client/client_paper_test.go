package client

// This file holds the tests of the client-side techniques as lagkit's
// design states them, in the manner of etcd raft's raft_paper_test.go:
// each test quotes the statement it checks and names its source.
// Prediction runs against a real server over a clean link (see pair);
// interpolation, extrapolation and opponent prediction are fed
// snapshots directly (see feed and feedMoving in client_test.go).

import (
	"math"
	"testing"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/server"
	"github.com/lagkit/lagkit/wire"
	"github.com/lagkit/lagkit/world/worldtest"
)

// pair is a client and a real server on the open test map, joined by a
// clean link: a fixed delay each way, no jitter, nothing reordered.
// dropUp, when set, loses the command packets (numbered from 1) it
// returns true for.
type pair struct {
	t        *testing.T
	s        *server.Server
	c        *Client
	delay    time.Duration
	dropUp   func(n int) bool
	sent     int
	up, down []inFlight
	errs     []float64 // prediction errors, in the order measured
	now      time.Duration
	ticks    int // client ticks so far
}

type inFlight struct {
	at   time.Duration
	data []byte
}

const peer = server.Peer(1)

func newPair(t *testing.T, delay time.Duration) *pair {
	t.Helper()
	m := worldtest.Open(t)
	s, err := server.New(server.Config{Map: m})
	if err != nil {
		t.Fatal(err)
	}
	c, err := New(Config{Map: m})
	if err != nil {
		t.Fatal(err)
	}
	return &pair{t: t, s: s, c: c, delay: delay}
}

// run plays d of virtual time, the client ticking two fifths of a tick
// after each server tick with the command input(k) on its kth tick.
func (p *pair) run(d time.Duration, input func(k int) game.UserCmd) {
	p.t.Helper()
	dt := p.s.TickDuration()
	step := dt / 5
	for end := p.now + d; p.now < end; p.now += step {
		now := p.now
		for len(p.up) > 0 && p.up[0].at <= now {
			if err := p.s.Step(now, peer, p.up[0].data); err != nil {
				p.t.Fatal(err)
			}
			p.up = p.up[1:]
		}
		for len(p.down) > 0 && p.down[0].at <= now {
			if err := p.c.Step(now, p.down[0].data); err != nil {
				p.t.Fatal(err)
			}
			p.errs = append(p.errs, p.c.Ready().PredictionErrors...)
			p.down = p.down[1:]
		}
		for _, dg := range p.s.Advance(now).Messages {
			p.down = append(p.down, inFlight{now + p.delay, append([]byte(nil), dg.Data...)})
		}
		if now%dt == 2*step {
			var r *Ready
			if p.c.Phase() == Idle {
				p.c.Connect(now)
				r = p.c.Ready()
			} else {
				r = p.c.Tick(now, input(p.ticks))
				p.ticks++
			}
			for _, b := range bodies(r.Messages) {
				if p.c.Phase() == Connected {
					p.sent++
					if p.dropUp != nil && p.dropUp(p.sent) {
						continue
					}
				}
				p.up = append(p.up, inFlight{now + p.delay, append([]byte(nil), b...)})
			}
		}
	}
}

// busy is a player's input on its kth tick: running, strafing one way
// then the other, turning, jumping and crouching now and then, and
// firing.
func busy(k int) game.UserCmd {
	cmd := game.UserCmd{Forward: 127, Yaw: uint16(k * 97)}
	if k/40%2 == 1 {
		cmd.Side = 90
	}
	if k%50 == 10 {
		cmd.Buttons |= game.BtnJump
	}
	if k%90 > 70 {
		cmd.Buttons |= game.BtnCrouch
	}
	if k%7 == 0 {
		cmd.Buttons |= game.BtnFire
	}
	return cmd
}

// TestPredictionOnACleanLinkIsExact checks that a client predicting its
// player with the server's own movement code agrees with the server
// exactly unless a command is lost:
//
//	"Player movement and weapon logic are one package used by the
//	server, by native clients and bots [...] so prediction runs exactly
//	the server's code."
//
// Over 6 s of running, strafing, turning, jumping, crouching and firing
// at 80 ms round trip, every prediction error is exactly zero and no
// correction is made. Then five command packets in a row are lost, more
// than the three earlier commands each packet repeats, so the server
// never runs one command: the error is no longer zero, and once the
// client has reconciled past the loss it is zero again.
//
// Reference: [quake3], bg_pmove.c shared by game and client; [source],
// client-side prediction (docs/references.md).
func TestPredictionOnACleanLinkIsExact(t *testing.T) {
	p := newPair(t, 40*time.Millisecond)
	p.run(6*time.Second, busy)
	if p.c.Phase() != Connected || len(p.errs) < 300 {
		t.Fatalf("phase %v, %d prediction errors measured", p.c.Phase(), len(p.errs))
	}
	for i, e := range p.errs {
		if e != 0 {
			t.Fatalf("clean link: prediction error %d is %v m, want exactly 0", i, e)
		}
	}
	if n := p.c.Stats().Corrections; n != 0 {
		t.Fatalf("clean link: %d corrections, want none", n)
	}

	from := p.sent + 1
	p.dropUp = func(n int) bool { return n >= from && n < from+5 }
	p.errs = p.errs[:0]
	p.run(time.Second, busy)
	lost := 0
	for _, e := range p.errs {
		if e > 0 {
			lost++
		}
	}
	if lost == 0 {
		t.Fatal("a lost command left no prediction error")
	}
	p.errs = p.errs[:0]
	p.run(2*time.Second, busy)
	for i, e := range p.errs {
		if e != 0 {
			t.Fatalf("after the loss: prediction error %d is %v m, want exactly 0 again", i, e)
		}
	}
}

// TestReconciliationReplaysPendingCommands checks reconciliation:
//
//	"Keep unacknowledged commands; on each snapshot, restart from the
//	acknowledged authoritative state and re-run the pending commands
//	through the shared movement code. [...] Small corrections are
//	smoothed out over a short time instead of snapping."
//
// A server state equal to the prediction for the acknowledged command
// changes nothing; one 10 cm off moves the replayed present by 10 cm,
// and the drawn view blends the correction out instead of jumping.
//
// Reference: [source], client-side prediction (docs/references.md).
func TestReconciliationReplaysPendingCommands(t *testing.T) {
	c := connected(t, Config{})
	start := game.PlayerState{Flags: game.FlagOnGround}
	feed(t, c, tick, 1, 0, 1, start, 0)
	walk := game.UserCmd{Forward: 127}
	for i := range 20 {
		c.Tick(time.Duration(2+i)*tick, walk)
	}
	predicted := c.Predicted()
	if predicted.Pos.X < 0.5 {
		t.Fatalf("prediction did not move: %v", predicted.Pos)
	}
	// The server reports command 8 executed with exactly the predicted
	// state: nothing changes and the error is zero.
	p := game.DefaultParams()
	st := start
	for i := 1; i <= 8; i++ {
		st = game.Move(st, game.UserCmd{Tick: uint32(i), Duration: game.TickDuration(64), Forward: 127}, c.cfg.Map.Grid, &p)
	}
	feed(t, c, 22*tick, 22, 0, 1, st, 8)
	if errs := c.Ready().PredictionErrors; len(errs) != 1 || errs[0] != 0 {
		t.Fatalf("prediction errors %v, want [0]", errs)
	}
	if c.Predicted() != predicted || c.Stats().Corrections != 0 {
		t.Fatalf("exact server state changed the prediction")
	}
	// Now the server disagrees by 10 cm (say, it was pushed): the replay
	// moves the present by the same amount, and the view blends it out.
	st.Pos = game.SnapPos(st.Pos.Add(geom.V(0, 0.1, 0)))
	before := c.DisplayPos()
	feed(t, c, 23*tick, 23, 0, 1, st, 8)
	if d := c.Predicted().Pos.Y - predicted.Pos.Y; math.Abs(d-0.1) > 0.002 {
		t.Fatalf("replayed present moved %v in y, want 0.1", d)
	}
	if c.Stats().Corrections != 1 {
		t.Fatalf("corrections %d, want 1", c.Stats().Corrections)
	}
	if d := c.DisplayPos().Dist(before); d > 1e-9 {
		t.Fatalf("display jumped %v m; small corrections must be smoothed", d)
	}
	for i := range 30 {
		c.Tick(time.Duration(24+i)*tick, game.UserCmd{})
	}
	if d := c.DisplayPos().Dist(c.Predicted().Pos); d > 0.01 {
		t.Fatalf("correction not blended out after 30 ticks: %v m left", d)
	}
}

// TestInterpolationUsesStraddlingSamples checks where remote players are
// drawn:
//
//	"Remote entities are drawn at (estimated server time - interpolation
//	delay), default 100 ms or two snapshot intervals, between the two
//	history samples that straddle that time (not just the last two)."
//
// With samples at ticks 10, 11 and 14 (12 and 13 lost), the view time is
// 100 ms behind the received server time, and times between ticks 11 and
// 14 are drawn between those two samples, not between 11 and an older
// one nor projected from the newest two.
//
// Reference: [source], entity interpolation; [taxonomy], other-prediction
// (docs/references.md).
func TestInterpolationUsesStraddlingSamples(t *testing.T) {
	c := connected(t, Config{})
	feed(t, c, 10*tick, 10, 10, 1, game.PlayerState{}, 0)
	feed(t, c, 11*tick, 11, 10.5, 1, game.PlayerState{}, 0)
	feed(t, c, 14*tick, 14, 12, 1, game.PlayerState{}, 0)
	if got, want := c.ViewTime(14*tick), c.ServerTime(14*tick)-100*time.Millisecond; got != want {
		t.Fatalf("view time %v, want the received server time less 100 ms, %v", got, want)
	}
	cases := []struct {
		at   time.Duration
		want float64
	}{
		{10 * tick, 10},
		{10*tick + tick/2, 10.25},
		{12 * tick, 10.5 + 1.5/3},   // between 11 and 14, not the last two
		{13 * tick, 10.5 + 2*1.5/3}, // likewise
		{5 * tick, 10},              // older than all: the oldest
	}
	for _, tc := range cases {
		s, ok := c.Remote(1, tc.at)
		if !ok || math.Abs(s.Pos.X-tc.want) > 1e-9 {
			t.Errorf("at %v: x=%v (ok %v), want %v", tc.at, s.Pos.X, ok, tc.want)
		}
	}
}

// TestTeleportResetsHistory checks the teleport flag:
//
//	"A teleport flag (or an implausible jump) resets history instead of
//	sliding across the map."
//
// A player respawning 70 m away is drawn there from the moment of the
// new state on, never between the two places, and is not extrapolated
// from the old place either.
//
// Reference: [source], entity interpolation (docs/references.md).
func TestTeleportResetsHistory(t *testing.T) {
	c := connected(t, Config{})
	feed(t, c, 10*tick, 10, 10, 1, game.PlayerState{}, 0)
	feed(t, c, 11*tick, 11, 11, 1, game.PlayerState{}, 0)
	feed(t, c, 12*tick, 12, 80, 2, game.PlayerState{}, 0) // respawned far away
	for _, at := range []time.Duration{11*tick + tick/2, 12 * tick, 12*tick + 50*time.Millisecond} {
		s, _ := c.Remote(1, at)
		if s.Pos.X != 80 {
			t.Errorf("at %v: x=%v, want 80 (no sliding, no extrapolation from the old place)", at, s.Pos.X)
		}
	}
}

// TestImplausibleJumpResetsHistory checks the other half of the same
// statement:
//
//	"A teleport flag (or an implausible jump) resets history instead of
//	sliding across the map."
//
// A jump across the map without the teleport flag, further than any
// movement covers in the time between the states, is not slid across,
// under interpolation or dead reckoning. The fastest ordinary movement
// is: falling with every velocity component at MaxVelocity, a step up a
// ledge within one tick, and a walk across snapshots lost for a second.
//
// Reference: [source], lag compensation's teleport distance
// (docs/references.md).
func TestImplausibleJumpResetsHistory(t *testing.T) {
	for _, d := range []Display{Interpolate, DeadReckon} {
		c := connected(t, Config{Display: d})
		feed(t, c, 10*tick, 10, -40, 1, game.PlayerState{}, 0)
		feed(t, c, 11*tick, 11, -39.9375, 1, game.PlayerState{}, 0)
		feed(t, c, 12*tick, 12, 60, 1, game.PlayerState{}, 0) // same teleport count
		// Dead reckoning draws the present, from the newest state's time
		// on; interpolation also draws the time before it.
		times := []time.Duration{12 * tick, 13 * tick}
		if d == Interpolate {
			times = append(times, 11*tick+tick/2)
		}
		for _, at := range times {
			if s, _ := c.Remote(1, at); s.Pos.X != 60 {
				t.Errorf("%s at %v: x=%v, want 60 (no sliding across the map)", d.Name(), at, s.Pos.X)
			}
		}
	}

	p := game.DefaultParams()
	v := p.MaxVelocity
	ordinary := []struct {
		name       string
		gap        time.Duration
		from, step geom.Vec3
	}{
		{"falling at the velocity cap", tick, geom.V(0, 0, 8), geom.V(v, v, -v).Scale(tick.Seconds())},
		{"stepping up a ledge", tick, geom.V(0, 0, 0), geom.V(p.WalkSpeed*tick.Seconds(), 0, p.StepHeight)},
		{"walking across a second of lost snapshots", 64 * tick, geom.V(0, 0, 0), geom.V(p.WalkSpeed, 0, 0)},
	}
	for _, o := range ordinary {
		c := connected(t, Config{})
		a := game.PlayerState{Pos: game.SnapPos(o.from), Teleport: 1}
		b := game.PlayerState{Pos: game.SnapPos(o.from.Add(o.step)), Teleport: 1}
		ea, eb := wire.EntityFromState(a), wire.EntityFromState(b)
		c.addSample(1, 10*tick, &ea, nil)
		c.addSample(1, 10*tick+o.gap, &eb, nil)
		mid, _ := c.Remote(1, 10*tick+o.gap/2)
		if want := a.Pos.Lerp(b.Pos, 0.5); mid.Pos.Dist(want) > 1e-9 {
			t.Errorf("%s: drawn at %v halfway, want %v (interpolated, not reset)", o.name, mid.Pos, want)
		}
	}
}

// TestExtrapolationIsCappedThenHolds checks what happens when the
// interpolation buffer runs dry:
//
//	"Extrapolation when the buffer runs dry, capped (default 250 ms),
//	then hold."
//
// Past the newest state, the default client projects it along the
// velocity that state carries for 250 ms, then holds it there however
// long the buffer stays dry.
//
// Reference: [taxonomy], other-prediction (docs/references.md).
func TestExtrapolationIsCappedThenHolds(t *testing.T) {
	c := connected(t, Config{})
	feedMoving(t, c, 10*tick, 10, 10, 4, 0, 1, game.PlayerState{}, 0)
	feedMoving(t, c, 11*tick, 11, 10.0625, 4, 0, 1, game.PlayerState{}, 0)
	newest := 11 * tick
	s, _ := c.Remote(1, newest+100*time.Millisecond)
	if want := 10.0625 + 0.4; math.Abs(s.Pos.X-want) > 1e-9 {
		t.Errorf("100 ms ahead: x=%v, want %v", s.Pos.X, want)
	}
	for _, ahead := range []time.Duration{250 * time.Millisecond, time.Second, 10 * time.Second} {
		s, _ = c.Remote(1, newest+ahead)
		if want := 10.0625 + 1.0; math.Abs(s.Pos.X-want) > 1e-9 {
			t.Errorf("%v ahead: x=%v, want %v (capped at 250 ms)", ahead, s.Pos.X, want)
		}
	}
}

// TestOpponentPredictionKeepsGoingThenSnaps checks opponent prediction:
//
//	"keep a remote player's last input and velocity until the next
//	update, then snap."
//
// Drawn at the received server time, a remote player keeps its last
// velocity for 2 s, past any extrapolation cap, and on the next update
// is drawn where that update says at once.
//
// Reference: [taxonomy], other-prediction (docs/references.md).
func TestOpponentPredictionKeepsGoingThenSnaps(t *testing.T) {
	c := connected(t, Config{Display: OpponentPredict})
	feedMoving(t, c, 10*tick, 10, 10, 4, 0, 1, game.PlayerState{}, 0)
	if got := c.ViewTime(10 * tick); got != 10*tick {
		t.Fatalf("view time %v, want the received server time %v (no interpolation delay)", got, 10*tick)
	}
	s, _ := c.Remote(1, 10*tick+2*time.Second)
	if math.Abs(s.Pos.X-18) > 1e-9 {
		t.Fatalf("2 s on: x=%v, want 18 (no cap)", s.Pos.X)
	}
	feedMoving(t, c, 12*tick, 12, 9, 0, 0, 1, game.PlayerState{}, 0)
	if s, _ := c.Remote(1, 12*tick); s.Pos.X != 9 {
		t.Fatalf("after the update x=%v, want a snap to 9", s.Pos.X)
	}
}
