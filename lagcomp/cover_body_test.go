package lagcomp

import (
	"math"
	"testing"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
)

// TestCoveredOnBody: SBC detection of a hit on a game's body re-applies
// the spot hit, in the body's frame, to the body where the victim now
// stands: a victim stepped behind a wall is covered, one in the open is
// not, and one turned in place carries the spot round with it.
// alc-predict discards the covered hit on a low-ping victim and
// registers the other.
func TestCoveredOnBody(t *testing.T) {
	// A wall 2 m tall from x 4.5 to 5.5, along y from 1 to 10.
	grid := geom.NewGrid([]geom.AABB{geom.Box(geom.V(4.5, 1, 0), geom.V(5.5, 10, 2))}, 4)
	p := game.DefaultParams()
	eye := geom.V(0, 0, 1.6)
	// The shooter's ray met a disc of 30 cm at the victim's side facing
	// it, about 1 m up: the spot (-0.3, 0, z) in the frame of a victim at
	// (10, 0) facing +X.
	body := Parts{{Shape: Circle{R: 0.3}}}
	st := game.PlayerState{Pos: geom.V(10, 0, 0)}
	ray := geom.Ray{Origin: eye, Dir: geom.V(10, 0, 1).Sub(eye).Norm()}
	hit, ok := body.Raycast(toLocal(ray, PoseOf(st)), 100)
	if !ok || math.Abs(hit.Local.X+0.3) > 1e-9 || hit.Local.Y != 0 {
		t.Fatalf("hit %+v %v, want the spot at x -0.3", hit, ok)
	}
	if w := PoseOf(st).ToWorld(hit.Local); w.Dist(ray.At(hit.Dist)) > 1e-9 {
		t.Fatalf("ToWorld %v, want the impact %v", w, ray.At(hit.Dist))
	}
	found := Found{Hit: Hit{Victim: 1, Local: hit.Local}, OnBody: true, Grid: grid, Params: &p}
	if found.Covered(st, eye) {
		t.Fatal("covered in the open")
	}
	hidden := st
	hidden.Pos = geom.V(10, 3, 0) // behind the wall as the shooter sees it
	if !found.Covered(hidden, eye) {
		t.Fatal("not covered behind the wall")
	}
	// Turned half round in place, the victim carries the spot hit to its
	// far side.
	turned := st
	turned.Yaw = game.YawUnits(math.Pi)
	if got, want := PoseOf(turned).ToWorld(hit.Local), geom.V(10.3, 0, hit.Local.Z); got.Dist(want) > 1e-9 {
		t.Fatalf("turned: spot at %v, want %v", got, want)
	}

	pol, err := New(Config{Name: "alc-predict"})
	if err != nil {
		t.Fatal(err)
	}
	shot := &Shot{Shooter: 0, Now: time.Second, Target: time.Second - 100*time.Millisecond, Eye: eye}
	found.VictimRTT = 10 * time.Millisecond
	found.VictimNow = hidden
	if v := pol.Judge(shot, &found); v != Discard {
		t.Fatalf("alc-predict on the covered body: %v, want Discard", v)
	}
	found.VictimNow = st
	if v := pol.Judge(shot, &found); v != Register {
		t.Fatalf("alc-predict on the body in the open: %v, want Register", v)
	}
}
