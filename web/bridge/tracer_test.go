package bridge

import (
	"math"
	"testing"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/server"
	"github.com/lagkit/lagkit/shooter/weapon"
	"github.com/lagkit/lagkit/world"
)

// TestRemoteMissDrawsTracer plays two pages over a 40 ms one-way link
// with a server that shows tracers: one player fires once at a wall, away
// from the other. The other page draws the shot as a "shot" tracer from
// the shooter's eye along its aim to the point where the ray meets the
// wall; the shooter's page draws only its own tracer.
func TestRemoteMissDrawsTracer(t *testing.T) {
	l := newLoopWith(t, 2, 40*time.Millisecond, server.Config{ShowTracers: true})
	l.run(time.Second, func(int) Input { return Input{} })
	shooter, watcher := l.sessions[0].State(l.now), l.sessions[1].State(l.now)
	l.s.Place(shooter.ID, geom.Vec3{X: -3, Y: 7.5}, 0)
	l.s.Place(watcher.ID, geom.Vec3{X: 3, Y: 7.5}, math.Pi)
	l.run(400*time.Millisecond, func(int) Input { return Input{} })
	l.sessions[0].State(l.now)
	l.sessions[1].State(l.now)

	// Aim level at the nearest wall behind the shooter, away from the
	// watcher.
	m, err := world.Load("metro")
	if err != nil {
		t.Fatal(err)
	}
	info, _ := l.s.Client(shooter.ID)
	eye := game.EyePos(info.State, nil)
	aim, wall := 0.0, math.Inf(1)
	for deg := 100; deg <= 260; deg += 5 {
		yaw := float64(deg) * math.Pi / 180
		dir := game.AimDir(game.YawUnits(yaw), 0)
		if h, ok := m.Grid.Raycast(geom.Ray{Origin: eye, Dir: dir}, 100); ok && h.Dist > 2 && h.Dist < wall {
			aim, wall = yaw, h.Dist
		}
	}
	if math.IsInf(wall, 1) {
		t.Fatal("no wall within 100 m behind the shooter")
	}
	l.run(50*time.Millisecond, func(int) Input { return Input{Yaw: aim} })
	fired := false
	l.run(400*time.Millisecond, func(i int) Input {
		if i == 0 && !fired {
			fired = true
			return Input{Yaw: aim, Fire: true}
		}
		if i == 0 {
			return Input{Yaw: aim}
		}
		return Input{Yaw: math.Pi}
	})
	if rec := l.shots; len(rec) != 1 || rec[0].Hit {
		t.Fatalf("server records %+v, want one miss", rec)
	}
	mine, theirs := l.sessions[0].State(l.now).Tracers, l.sessions[1].State(l.now).Tracers
	for _, tr := range mine {
		if tr.Kind != "own" {
			t.Errorf("the shooter's page drew %+v, want only its own tracer", tr)
		}
	}
	if len(theirs) != 1 || theirs[0].Kind != "shot" {
		t.Fatalf("the watcher's page drew %+v, want one shot tracer", theirs)
	}
	tr := theirs[0]
	// The shooter's page predicted its eye exactly on this clean link:
	// its own tracer starts where the shot left.
	if len(mine) != 1 {
		t.Fatalf("the shooter's page drew %d tracers, want 1", len(mine))
	}
	eye = geom.V(mine[0].From[0], mine[0].From[1], mine[0].From[2])
	from, to := geom.V(tr.From[0], tr.From[1], tr.From[2]), geom.V(tr.To[0], tr.To[1], tr.To[2])
	if d := from.Dist(eye); d > 0.01 {
		t.Errorf("tracer from %v, %.3f m from the shooter's eye %v", from, d, eye)
	}
	dir := to.Sub(from).Norm()
	aimDir := game.AimDir(game.YawUnits(aim), 0)
	if a := math.Acos(min(1, dir.Dot(aimDir))); a > weapon.Rifle().Spread+1e-3 {
		t.Errorf("tracer leaves %.4f rad off the aim, beyond the first shot's spread", a)
	}
	h, ok := m.Grid.Raycast(geom.Ray{Origin: from, Dir: dir}, 200)
	if !ok || math.Abs(h.Dist-to.Dist(from)) > 0.02 {
		t.Errorf("tracer ends %.3f m from the eye; its ray meets the map at %.3f m (%v)", to.Dist(from), h.Dist, ok)
	}
	t.Logf("tracer %v to %v, wall %.2f m along the aim", from, to, wall)
}
