package server_test

import (
	"math"
	"testing"
	"time"

	"github.com/lagkit/lagkit/client"
	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/lagcomp"
	"github.com/lagkit/lagkit/server"
	"github.com/lagkit/lagkit/shooter/weapon"
	"github.com/lagkit/lagkit/sim"
	"github.com/lagkit/lagkit/world"
)

// Time warp for a game that hurts and edits its players between ticks
// (Damage, Edit).

// warpCircle is the game's body of a player.
var warpCircle lagcomp.Body = lagcomp.Parts{{Shape: lagcomp.Circle{R: 0.5}, Damage: 25}}

// warpGame returns a game's server under time warp with two idle
// players, connected.
func warpGame(t *testing.T) *sim.Driver {
	t.Helper()
	d, err := sim.NewDriver(server.Config{
		Map: world.Field(), Seed: 3, Policy: lagcomp.Config{Name: "none"}, TimeWarp: 200 * time.Millisecond,
		SpawnProtection: time.Millisecond, Body: warpCircle,
	}, []sim.PlayerConfig{{Brain: idle{}}, {Brain: idle{}}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	d.Run(400*time.Millisecond, nil)
	return d
}

// TestTimeWarpReplaysDamage: damage and an edit a game makes between
// ticks are facts of the tick just run, which a warp re-running the
// player through it applies again to the re-simulated state: the health
// taken and the field written stand, on the state re-simulated from the
// player's late (here: turned) commands, and a kill stays one kill.
func TestTimeWarpReplaysDamage(t *testing.T) {
	d := warpGame(t)
	s := d.Server
	if killed, err := s.Damage(1, 30, 0); killed || err != nil {
		t.Fatalf("damage under time warp: %v, %v", killed, err)
	}
	if err := s.Edit(1, func(st *game.PlayerState) { weapon.ArmsOf(st).Ammo = 3 }); err != nil {
		t.Fatalf("edit under time warp: %v", err)
	}
	d.Run(s.Time()+50*time.Millisecond, nil)
	before, _, _ := s.PlayerState(1)
	server.TurnWarpCmds(s, 1, 10)
	if n, err := s.Resimulate(1, 10); n != 10 || err != nil {
		t.Fatalf("resimulate: %d, %v", n, err)
	}
	after, _, _ := s.PlayerState(1)
	if after.Yaw == before.Yaw {
		t.Fatalf("the warp did not re-simulate player 1: yaw %d", after.Yaw)
	}
	if after.Health != game.MaxHealth-30 || weapon.ArmsOf(&after).Ammo != 3 {
		t.Errorf("after the warp: health %d, ammo %d; want %d and 3 (the damage and the edit replayed)", after.Health, weapon.ArmsOf(&after).Ammo, game.MaxHealth-30)
	}
	d.Run(s.Time()+50*time.Millisecond, nil)
	if st, _, _ := s.PlayerState(1); st.Health != game.MaxHealth-30 || weapon.ArmsOf(&st).Ammo != 3 {
		t.Errorf("ticks after the warp: health %d, ammo %d", st.Health, weapon.ArmsOf(&st).Ammo)
	}

	// A kill: the death is announced once, and no warp revives the
	// player or kills it again.
	if killed, err := s.Damage(1, 500, 0); !killed || err != nil {
		t.Fatalf("killing damage: %v, %v", killed, err)
	}
	d.Run(s.Time()+50*time.Millisecond, nil)
	server.TurnWarpCmds(s, 1, 10)
	if _, err := s.Resimulate(1, 10); err != nil {
		t.Fatal(err)
	}
	st, _, _ := s.PlayerState(1)
	k, _ := s.Client(0)
	v, _ := s.Client(1)
	if !st.Has(game.FlagDead) || st.Health != 0 || k.Kills != 1 || v.Deaths != 1 {
		t.Errorf("after a warp over the kill: dead %v, health %d, kills %d, deaths %d; want dead, 0, 1, 1", st.Has(game.FlagDead), st.Health, k.Kills, v.Deaths)
	}
}

// warpShooter fires every tick, aimed at the other player as drawn.
type warpShooter struct{}

func (warpShooter) Input(now time.Duration, c *client.Client) game.UserCmd {
	cmd := game.UserCmd{Buttons: game.BtnFire}
	if o, ok := c.Remote(1, now); ok {
		d := o.Pos.Sub(c.Predicted().Pos)
		cmd.Yaw = game.YawUnits(math.Atan2(d.Y, d.X))
	}
	return cmd
}

// warpStrafer strafes, so that each late command of its moves it in the
// past.
type warpStrafer struct{}

func (warpStrafer) Input(time.Duration, *client.Client) game.UserCmd {
	return game.UserCmd{Side: 127}
}
