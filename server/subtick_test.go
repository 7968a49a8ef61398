package server

import (
	"math"
	"testing"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/world/worldtest"
)

// laser is a hitscan weapon without spread or recoil: its shot goes
// exactly where it is aimed.
func laser() game.Weapon {
	return game.Weapon{
		Name: "laser", Kind: game.Hitscan, FireInterval: 100 * time.Millisecond, Magazine: 30,
		ReloadTime: time.Second, Range: 100, Pellets: 1, Damage: [game.NumParts]int16{40, 20, 15, 15},
	}
}

// TestPressAimsTheShot checks that a command carrying a fire press is
// traced with the aim at the press, not the aim at the tick: the player
// flicked across the target and clicked on it (Counter-Strike 2's
// sub-tick commands), and by the tick looked away.
func TestPressAimsTheShot(t *testing.T) {
	away := game.UserCmd{Yaw: game.AngleUnits / 4, Buttons: game.BtnFire} // looking along +Y
	pressed := away
	pressed.HasPress = true
	pressed.Press = game.Press{Offset: 6 * time.Millisecond, Yaw: 0, Pitch: -200}
	for _, tt := range []struct {
		name string
		cmd  game.UserCmd
		hit  bool
		yaw  uint16
	}{
		{"aim at the tick", away, false, game.AngleUnits / 4},
		{"aim at the press", pressed, true, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := newShootingRange(t, worldtest.Open(t), Config{Weapons: []game.Weapon{laser()}}, geom.V(0, 0, 0), geom.V(10, 0, 0))
			r.tick(tt.cmd)
			if len(r.records) != 1 {
				t.Fatalf("%d shot records, want 1", len(r.records))
			}
			rec := r.records[0]
			if rec.Hit != tt.hit || (rec.Victim == 1) != tt.hit {
				t.Errorf("hit %v (victim %d), want hit %v", rec.Hit, rec.Victim, tt.hit)
			}
			if rec.Yaw != tt.yaw || rec.Tested != rec.Time {
				t.Errorf("traced yaw %d at %v (shot at %v), want yaw %d in the present", rec.Yaw, rec.Tested, rec.Time, tt.yaw)
			}
			if got, want := r.health(1) < game.MaxHealth, tt.hit; got != want {
				t.Errorf("target hurt %v, want %v", got, want)
			}
		})
	}
}

// TestPressAimsTheProjectile checks that a projectile leaves along the
// press's aim, from the eye at the tick.
func TestPressAimsTheProjectile(t *testing.T) {
	r := newShootingRange(t, worldtest.Open(t), Config{Weapons: []game.Weapon{testProjectile(50)}}, geom.V(0, 0, 0), geom.V(10, 5, 0))
	cmd := game.UserCmd{Yaw: game.AngleUnits / 4, HasPress: true, Press: game.Press{Offset: time.Millisecond, Yaw: 0}}
	r.fireOnce(cmd)
	p := r.s.Projectiles(nil)[0]
	if d := p.Velocity.Norm(); math.Abs(d.Y) > 1e-3 || d.X < 0.999 {
		t.Errorf("projectile direction %v, want +X (the press's aim)", d)
	}
}
