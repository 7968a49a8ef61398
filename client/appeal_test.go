package client

import (
	"math"
	"testing"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/lagcomp"
	"github.com/lagkit/lagkit/wire"
	"github.com/lagkit/lagkit/world/worldtest"
)

// TestHitJudgedOnItsBody: the client judges a hit on the game's body
// (OnBody) on the body at its predicted pose, and a hit on lagkit's
// humanoid on the humanoid part, as lagcomp.BehindCover has it. The
// player stands beyond the wall of worldtest.Cover, 3 m high, from a
// shooter at the origin: the same impact, 1.6 m up and 30 cm towards
// the shooter, is behind the wall on a body whose origin is at its
// feet, and above it on the humanoid's head. The honest client denies
// the first and confirms the second; its sightings say the same.
func TestHitJudgedOnItsBody(t *testing.T) {
	c := connected(t, Config{Map: worldtest.Cover(t)})
	c.Ready()
	c.pred = game.PlayerState{Pos: geom.V(12, 1.5, 0), Yaw: game.YawUnits(math.Pi / 2), Flags: game.FlagOnGround}
	local := geom.V(0, 0.3, 1.6) // in the frame of a player facing +Y: towards -X
	eye := geom.V(0, 0, 1.625)
	if !lagcomp.BehindCoverBody(lagcomp.PoseOf(c.pred), local, eye, c.cfg.Map.Grid) {
		t.Fatal("the impact on the body is not behind the wall: the test proves nothing")
	}
	humanoid := lagcomp.BehindCover(c.pred, game.PartHead, local, eye, c.cfg.Map.Grid, c.cfg.Movement)
	if humanoid {
		t.Fatal("the impact on the head is behind the wall: the test proves nothing")
	}
	for i, onBody := range []bool{true, false} {
		h := wire.HitEvent{Shooter: 1, ShotTick: uint32(10 + i), Part: game.PartHead, Damage: 10, Local: local, ShooterEye: eye, Appeal: uint32(5 + i), OnBody: onBody}
		c.hit(tick, &h)
		rep := c.Ready().Hits
		if len(rep) != 1 || rep[0].OnBody != onBody || rep[0].SBC != onBody || rep[0].Denied != onBody {
			t.Errorf("on the body %v: reported %+v; want behind cover and denied exactly on the body", onBody, rep)
		}
		if len(c.sightings) != i+1 || c.sightings[i].s.SBC != onBody {
			t.Errorf("on the body %v: sightings %+v", onBody, c.sightings)
		}
	}
}
