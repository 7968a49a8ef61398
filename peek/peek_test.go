package peek

import (
	"testing"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
)

const ms = time.Millisecond

// TestTrackerDuel: one duel, each client's first sight and first shot
// once, the first hit and the killer, and the advantage from both sides.
func TestTrackerDuel(t *testing.T) {
	var tr Tracker
	tr.Shot(5*ms, 3, 1) // before any sighting: no duel to count it in
	tr.Sight(10*ms, 3, 1)
	tr.Sight(20*ms, 3, 1)
	tr.Shot(40*ms, 3, 1)
	tr.Sight(90*ms, 1, 3)
	tr.Shot(60*ms, 3, 1) // a later shot does not move the first
	tr.Hit(100*ms, 3, 1)
	tr.Shot(110*ms, 1, 3)
	tr.Hit(120*ms, 1, 3) // not the first hit
	if d := tr.Duels(); len(d) != 0 {
		t.Fatalf("closed duels before a death: %+v", d)
	}
	tr.Killed(150*ms, 1, 3)
	ds := tr.Duels()
	if len(ds) != 1 {
		t.Fatalf("%d duels, want 1", len(ds))
	}
	d := ds[0]
	want := Duel{A: 1, B: 3, Start: 10 * ms, End: 150 * ms, SightA: 90 * ms, SightB: 10 * ms, ShotA: 110 * ms, ShotB: 40 * ms,
		FirstHit: 3, FirstHitAt: 100 * ms, Killer: 3}
	if d != want {
		t.Fatalf("duel %+v\nwant %+v", d, want)
	}
	if a, ok := d.Advantage(); !ok || a != -80*ms {
		t.Errorf("A's advantage %v %v, want -80ms", a, ok)
	}
	if a, ok := d.AdvantageOf(3); !ok || a != 80*ms {
		t.Errorf("B's advantage %v %v, want 80ms", a, ok)
	}
	if len(tr.Duels()) != 0 {
		t.Error("Duels returned the same duel twice")
	}
}

// TestTrackerGap: a pair out of each other's sight for longer than the
// gap starts a new duel; one side that never drew the other has no
// advantage.
func TestTrackerGap(t *testing.T) {
	tr := Tracker{Gap: 100 * ms}
	tr.Sight(0, 0, 1)
	tr.Sight(50*ms, 0, 1)
	tr.Sight(300*ms, 1, 0)
	tr.Expire(500 * ms)
	ds := tr.Duels()
	if len(ds) != 2 {
		t.Fatalf("%d duels, want 2: %+v", len(ds), ds)
	}
	if ds[0].End != 50*ms || ds[0].SightB != Never || ds[1].SightA != Never || ds[1].SightB != 300*ms {
		t.Errorf("duels %+v", ds)
	}
	if _, ok := ds[0].Advantage(); ok {
		t.Error("an advantage for a duel only one side saw")
	}
	tr.Sight(600*ms, 2, 2) // oneself: no duel
	tr.Sight(600*ms, -1, 2)
	tr.Close(time.Second)
	if ds := tr.Duels(); len(ds) != 0 {
		t.Errorf("duels with oneself or no one: %+v", ds)
	}
}

// TestExpected: Riot's sum, part by part.
func TestExpected(t *testing.T) {
	p := Path{PeekerFrame: 7 * ms, PeekerOneWay: 20 * ms, ServerFrame: 8 * ms, DefenderOneWay: 30 * ms, DefenderInterp: 100 * ms}
	if got := Expected(p); got != 165*ms {
		t.Errorf("Expected %v, want 165ms", got)
	}
}

// TestDrawn: in front and in the clear, drawn; behind the viewer, behind
// a wall or dead, not.
func TestDrawn(t *testing.T) {
	params := game.DefaultParams()
	wall := geom.NewGrid([]geom.AABB{{Min: geom.V(4, -1, 0), Max: geom.V(5, 1, 3)}}, 4)
	open := geom.NewGrid([]geom.AABB{{Min: geom.V(4, 10, 0), Max: geom.V(5, 11, 3)}}, 4)
	eye := geom.V(0, 0, 1.6)
	st := game.PlayerState{Pos: geom.V(10, 0, 0)}
	if !Drawn(open, eye, 0, 1.5, st, &params) {
		t.Error("a player straight ahead in the open is not drawn")
	}
	if Drawn(open, eye, 3.1, 1.5, st, &params) {
		t.Error("a player behind the viewer is drawn")
	}
	if Drawn(wall, eye, 0, 1.5, st, &params) {
		t.Error("a player behind a wall is drawn")
	}
	st.Flags |= game.FlagDead
	if Drawn(open, eye, 0, 1.5, st, &params) {
		t.Error("a dead player is drawn")
	}
	if a := AimedAt(eye, 0, 0, game.PlayerState{Pos: geom.V(10, 0, 0)}, &params); a > 0.1 {
		t.Errorf("aim straight at a player is %v rad off", a)
	}
}
