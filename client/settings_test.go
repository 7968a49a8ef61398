package client

import (
	"testing"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/server"
	"github.com/lagkit/lagkit/world/worldtest"
)

// newPairWith is newPair with the server configured by cfg (its map set
// to the open test map).
func newPairWith(t *testing.T, delay time.Duration, cfg server.Config) *pair {
	t.Helper()
	m := worldtest.Open(t)
	cfg.Map = m
	s, err := server.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c, err := New(Config{Map: m})
	if err != nil {
		t.Fatal(err)
	}
	return &pair{t: t, s: s, c: c, delay: delay}
}

// serverPos returns where the server has the pair's player now.
func (p *pair) serverPos(t *testing.T) game.PlayerState {
	t.Helper()
	info, ok := p.s.Client(p.c.ID())
	if !ok {
		t.Fatal("the player is not on the server")
	}
	return info.State
}

// TestPauseHoldsPrediction: a client told of a pause stops predicting
// the movement the paused server discards. While the game stands still
// the predicted player stays exactly where the server froze it, with
// no prediction error and no correction, however the player pushes the
// keys; after the resume the player moves again and prediction is
// exact once more.
func TestPauseHoldsPrediction(t *testing.T) {
	p := newPairWith(t, 40*time.Millisecond, server.Config{})
	p.run(2*time.Second, busy)
	if p.c.Phase() != Connected || p.c.Paused() {
		t.Fatalf("phase %v, paused %v before the pause", p.c.Phase(), p.c.Paused())
	}

	corrections := p.c.Stats().Corrections
	p.s.Pause()
	p.run(300*time.Millisecond, busy) // the news takes one way, the last moving commands a round trip
	if !p.c.Paused() {
		t.Fatal("the client was not told of the pause")
	}
	// The pull-back to the frozen pose happens once, in the snapshot
	// that tells of the pause (its reconciliation, then the commands on
	// their way held), not again as each of those commands is discarded.
	if n := p.c.Stats().Corrections - corrections; n > 2 {
		t.Fatalf("%d corrections as the pause began, want the one pull-back", n)
	}
	frozen := p.serverPos(t)
	corrections = p.c.Stats().Corrections
	p.errs = p.errs[:0]
	for range 20 {
		p.run(100*time.Millisecond, busy)
		if got := p.c.Predicted(); got.Pos != frozen.Pos || got.Vel != frozen.Vel {
			t.Fatalf("paused: predicted %v moving %v, the server froze the player at %v", got.Pos, got.Vel, frozen.Pos)
		}
	}
	if p.serverPos(t).Pos != frozen.Pos {
		t.Fatal("the player moved on the paused server")
	}
	if len(p.errs) < 20 {
		t.Fatalf("%d prediction errors measured while paused", len(p.errs))
	}
	for i, e := range p.errs {
		if e != 0 {
			t.Fatalf("paused: prediction error %d is %v m, want exactly 0", i, e)
		}
	}
	if n := p.c.Stats().Corrections; n != corrections {
		t.Fatalf("%d corrections while paused", n-corrections)
	}
	if last := p.c.LastCmd(); last.Forward != 0 || last.Buttons != 0 {
		t.Fatalf("a command issued while paused moves or presses: %+v", last)
	}

	p.s.Resume()
	p.run(300*time.Millisecond, busy)
	if p.c.Paused() {
		t.Fatal("the client was not told of the resume")
	}
	p.errs = p.errs[:0]
	corrections = p.c.Stats().Corrections
	p.run(2*time.Second, busy)
	if p.serverPos(t).Pos.Dist(frozen.Pos) < 1 {
		t.Fatal("the player does not move after the resume")
	}
	for i, e := range p.errs {
		if e != 0 {
			t.Fatalf("after the resume: prediction error %d is %v m, want exactly 0", i, e)
		}
	}
	if n := p.c.Stats().Corrections; n != corrections {
		t.Fatalf("%d corrections after the resume", n-corrections)
	}
}

// TestServerMandatesPredictionAndDisplay: a server that turns
// prediction off has its clients show their player where the newest
// snapshot put it, behind the server by the round trip, never ahead as
// a predicting client is; a server that mandates a display mode has its
// clients draw with it, whatever their own choice.
func TestServerMandatesPredictionAndDisplay(t *testing.T) {
	walk := func(int) game.UserCmd { return game.UserCmd{Forward: 127} }
	off := newPairWith(t, 60*time.Millisecond, server.Config{Settings: server.Settings{PredictionOff: true, Display: Extrapolate.Name()}})
	on := newPairWith(t, 60*time.Millisecond, server.Config{})
	off.run(1500*time.Millisecond, walk)
	on.run(1500*time.Millisecond, walk)
	for _, p := range []*pair{off, on} {
		if p.c.Phase() != Connected || p.serverPos(t).Pos.Dist(p.c.ackState.Pos) == 0 {
			t.Fatalf("phase %v: the player is not walking", p.c.Phase())
		}
	}
	if got, acked := off.c.Predicted(), off.c.ackState; got != acked {
		t.Fatalf("prediction off: shown at %v, the newest snapshot has %v", got.Pos, acked.Pos)
	}
	if lag := off.serverPos(t).Pos.Dist(off.c.Predicted().Pos); lag < 0.2 {
		t.Fatalf("prediction off: %v m behind the server, want the round trip's walk", lag)
	}
	if off.c.Stats().Shots != 0 || len(off.errs) != 0 {
		t.Fatalf("prediction off: %d shots predicted, %d prediction errors measured", off.c.Stats().Shots, len(off.errs))
	}
	if ahead := on.c.Predicted().Pos.Dist(on.c.ackState.Pos); ahead < 0.2 {
		t.Fatalf("prediction on: %v m ahead of the newest snapshot, want the round trip's walk", ahead)
	}
	if got := off.c.cfg.Display.Name(); got != Extrapolate.Name() {
		t.Fatalf("mandated display extrapolate, drawn with %s", got)
	}
	if got := on.c.cfg.Display.Name(); got != Interpolate.Name() {
		t.Fatalf("no display mandated, drawn with %s", got)
	}
	now := off.now
	if off.c.ViewTime(now) != off.c.ServerTime(now) {
		t.Fatal("the mandated extrapolation draws behind the received server time")
	}
}
