package server

import (
	"math"
	"testing"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/lagcomp"
	"github.com/lagkit/lagkit/shooter/weapon"
	"github.com/lagkit/lagkit/wire"
	"github.com/lagkit/lagkit/world/worldtest"
)

// laser is a hitscan weapon without spread or recoil: its shot goes
// exactly where it is aimed.
func laser() weapon.Weapon {
	return weapon.Weapon{
		Name: "laser", Kind: weapon.Hitscan, FireInterval: 100 * time.Millisecond, Magazine: 30,
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
			r := newShootingRange(t, worldtest.Open(t), armed(Config{}, laser()), geom.V(0, 0, 0), geom.V(10, 0, 0))
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
	r := newShootingRange(t, worldtest.Open(t), armed(Config{}, testProjectile(50)), geom.V(0, 0, 0), geom.V(10, 5, 0))
	cmd := game.UserCmd{Yaw: game.AngleUnits / 4, HasPress: true, Press: game.Press{Offset: time.Millisecond, Yaw: 0}}
	r.fireOnce(cmd)
	p := r.s.Projectiles(nil)[0]
	if d := p.Velocity.Norm(); math.Abs(d.Y) > 1e-3 || d.X < 0.999 {
		t.Errorf("projectile direction %v, want +X (the press's aim)", d)
	}
}

// TestPressRewindsToItsViewTime checks that lag compensation rewinds a
// shot fired by a press to the world its shooter saw at the press, not
// at the tick, and a shot without one to the command's view time.
func TestPressRewindsToItsViewTime(t *testing.T) {
	for _, press := range []bool{false, true} {
		r := newShootingRange(t, worldtest.Open(t), armed(Config{Policy: lagcomp.Config{Name: "tlc"}}, laser()),
			geom.V(0, 0, 0), geom.V(10, 0, 0))
		// Acknowledge every snapshot a tick after it left, so the server
		// measures the shooter's round trip and rewinds its shots.
		var ack uint32
		for range 30 {
			r.cmd++
			now := r.s.NextTick()
			b, err := wire.AppendCommands(nil, &wire.Commands{AckTick: ack, ClientTime: now,
				Cmds: []game.UserCmd{{Tick: r.cmd, Duration: r.s.TickDuration()}}})
			if err != nil {
				t.Fatal(err)
			}
			if err := r.s.Step(now, 0, b); err != nil {
				t.Fatal(err)
			}
			for _, d := range r.s.Advance(now).Messages {
				var sn wire.Snapshot
				sn.SetGame(weapon.Layout)
				if d.To == 0 && wire.DecodeSnapshot(d.Data, &sn, func(uint32) *wire.Snapshot { return nil }) == nil {
					ack = sn.Tick
				}
			}
		}
		now := r.s.NextTick()
		view := now - 100*time.Millisecond - r.s.TickDuration() // the shooter's interpolation delay and round trip
		cmd := game.UserCmd{Buttons: game.BtnFire, ViewTime: view}
		want := view
		if press {
			cmd.HasPress = true
			cmd.Press = game.Press{Offset: 5 * time.Millisecond, ViewTime: view - 10*time.Millisecond}
			want = cmd.Press.ViewTime
		}
		r.tick(cmd)
		if len(r.records) != 1 {
			t.Fatalf("press %v: %d shot records, want 1", press, len(r.records))
		}
		if rec := r.records[0]; !rec.Rewound || rec.Tested != want {
			t.Errorf("press %v: tested at %v (rewound %v), want %v", press, rec.Tested, rec.Rewound, want)
		}
	}
}

// TestPressLeavesFromTheEyeShown checks where a press's shot leaves from:
// the eye of the shooter's state before the command, which its client
// drew at the press, while a shot at the tick leaves from the state after
// the command. The victim hears of the eye with the hit.
func TestPressLeavesFromTheEyeShown(t *testing.T) {
	for _, press := range []bool{false, true} {
		r := newShootingRange(t, worldtest.Open(t), armed(Config{}, laser()), geom.V(0, 0, 0), geom.V(10, 0, 0))
		for range 5 {
			r.tick(game.UserCmd{}) // settle on the ground
		}
		info, _ := r.s.Client(0)
		before := info.State
		// Stepping right (to -Y) while firing along +X.
		cmd := game.UserCmd{Side: 127, Buttons: game.BtnFire, Tick: r.cmd + 1, Duration: r.s.TickDuration()}
		if press {
			cmd.HasPress, cmd.Press = true, game.Press{Offset: 4 * time.Millisecond}
		}
		now := r.s.NextTick()
		sendCmds(t, r.s, now, 0, []game.UserCmd{cmd})
		ready := r.s.Advance(now)
		info, _ = r.s.Client(0)
		want := game.SnapPos(game.EyePos(info.State, nil))
		if press {
			want = game.SnapPos(game.EyePos(before, nil))
		}
		if info.State.Pos.Y == before.Pos.Y {
			t.Fatal("the shooter did not move")
		}
		var eye *geom.Vec3
		for _, d := range ready.Messages {
			var sn wire.Snapshot
			sn.SetGame(weapon.Layout)
			if d.To != 1 || wire.DecodeSnapshot(d.Data, &sn, func(uint32) *wire.Snapshot { return nil }) != nil {
				continue
			}
			for _, e := range sn.Events {
				var h wire.HitEvent
				if e.Kind == wire.EventHit && wire.DecodeHitEvent(e.Data, &h) == nil {
					eye = &h.ShooterEye
				}
			}
		}
		if eye == nil || *eye != want {
			t.Errorf("press %v: shooter's eye %v, want %v", press, eye, want)
		}
	}
}
