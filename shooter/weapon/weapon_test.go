package weapon

import (
	"math"
	"testing"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
)

// hold fires the trigger of a fresh player for d in commands of one tick
// at rate and returns the number of shots.
func hold(w *Weapon, rate int, d time.Duration) int {
	s := With(game.PlayerState{Health: game.MaxHealth}, Arms{Ammo: w.Magazine})
	cmd := game.UserCmd{Duration: game.TickDuration(rate), Buttons: game.BtnFire}
	shots := 0
	for elapsed := time.Duration(0); elapsed < d; elapsed += cmd.Duration {
		var fired bool
		s, fired = Fire(s, cmd, w)
		if fired {
			shots++
		}
	}
	return shots
}

// TestFireRate checks the rifle's 600 rounds a minute at every tick rate,
// including those whose tick does not divide the 100 ms interval.
func TestFireRate(t *testing.T) {
	w := Rifle()
	for _, rate := range []int{20, 30, 64, 128} {
		if got := hold(&w, rate, 2*time.Second); got != 20 {
			t.Errorf("%d Hz: %d shots in 2 s, want 20", rate, got)
		}
	}
}

// TestFireRules checks when the trigger fires.
func TestFireRules(t *testing.T) {
	w := Rifle()
	tick := game.UserCmd{Duration: game.TickDuration(64), Buttons: game.BtnFire}
	cases := []struct {
		name   string
		s      game.PlayerState
		cmd    game.UserCmd
		fired  bool
		reload bool
	}{
		{"ready", With(game.PlayerState{}, Arms{Ammo: 30}), tick, true, false},
		{"trigger released", With(game.PlayerState{}, Arms{Ammo: 30}), game.UserCmd{Duration: tick.Duration}, false, false},
		{"dead", With(game.PlayerState{Flags: game.FlagDead}, Arms{Ammo: 30}), tick, false, false},
		{"between shots", With(game.PlayerState{}, Arms{Ammo: 30, Wait: 50 * time.Millisecond}), tick, false, false},
		{"empty magazine", With(game.PlayerState{}, Arms{Ammo: 0}), tick, false, true},
		{"reloading", With(game.PlayerState{Flags: FlagReloading}, Arms{Ammo: 0, Wait: time.Second}), tick, false, true},
		{"reload key", With(game.PlayerState{}, Arms{Ammo: 10}), game.UserCmd{Duration: tick.Duration, Buttons: game.BtnReload}, false, true},
	}
	for _, tc := range cases {
		s, fired := Fire(tc.s, tc.cmd, &w)
		if fired != tc.fired || s.Has(FlagReloading) != tc.reload {
			t.Errorf("%s: fired %v, reloading %v; want %v, %v", tc.name, fired, s.Has(FlagReloading), tc.fired, tc.reload)
		}
		if fired && (ArmsOf(&s).Ammo != ArmsOf(&tc.s).Ammo-1 || ArmsOf(&s).Heat != ArmsOf(&tc.s).Heat+1) {
			t.Errorf("%s: ammo %d, heat %d after a shot", tc.name, ArmsOf(&s).Ammo, ArmsOf(&s).Heat)
		}
	}
	// A reload takes ReloadTime and refills the magazine.
	s, _ := Fire(game.PlayerState{}, tick, &w)
	for elapsed := tick.Duration; elapsed < w.ReloadTime; elapsed += tick.Duration {
		if s, _ = Fire(s, game.UserCmd{Duration: tick.Duration}, &w); !s.Has(FlagReloading) && elapsed+tick.Duration < w.ReloadTime {
			t.Fatalf("reload over after %v of %v", elapsed+tick.Duration, w.ReloadTime)
		}
	}
	if s, _ = Fire(s, game.UserCmd{Duration: tick.Duration}, &w); s.Has(FlagReloading) || ArmsOf(&s).Ammo != w.Magazine {
		t.Fatalf("after the reload: reloading %v, ammo %d", s.Has(FlagReloading), ArmsOf(&s).Ammo)
	}
}

// TestShotRaySpreadAndRecoil checks that a shot leaves the eye within the
// weapon's cone around the aim raised by recoil, both growing with the
// burst, and that the server and the shooter's client draw the same ray.
func TestShotRaySpreadAndRecoil(t *testing.T) {
	w := Rifle()
	p := game.DefaultParams()
	s := standing(3, 4)
	cmd := game.UserCmd{Tick: 77, Yaw: game.YawUnits(1), Pitch: game.PitchUnits(0.1)}
	for heat := 1; heat <= 40; heat++ {
		ArmsOf(&s).Heat = uint8(heat)
		n := float64(heat - 1)
		r := ShotRay(s, cmd, 5, 0, &w, &p)
		if r != ShotRay(s, cmd, 5, 0, &w, &p) {
			t.Fatal("the same shot drew two rays")
		}
		if r.Origin != game.EyePos(s, &p) {
			t.Fatalf("heat %d: ray from %v, want the eye %v", heat, r.Origin, game.EyePos(s, &p))
		}
		raised := game.AimDir(cmd.Yaw, game.PitchUnits(cmd.PitchRad()+math.Min(w.Recoil*n, w.RecoilMax)))
		cone := math.Min(w.Spread+w.SpreadGrowth*n, w.SpreadMax)
		// One angle unit of rounding in the raised aim, on top of the cone.
		if off := math.Acos(math.Min(1, r.Dir.Dot(raised))); off > cone+2*math.Pi/game.AngleUnits || math.Abs(r.Dir.Len()-1) > 1e-12 {
			t.Fatalf("heat %d: %.5f rad off the raised aim, cone %.5f (length %v)", heat, off, cone, r.Dir.Len())
		}
	}
	if ShotRay(s, cmd, 5, 0, &w, &p) == ShotRay(s, cmd, 6, 0, &w, &p) {
		t.Fatal("two shooters drew the same spread")
	}
}

// standing is a player at rest on the ground at (x, y).
func standing(x, y float64) game.PlayerState {
	return game.PlayerState{Pos: geom.V(x, y, 0), Flags: game.FlagOnGround}
}

// tick is one command of a 64 Hz server.
const tick = 15625 * time.Microsecond

// BenchmarkStep is one command of a player running on open ground with
// the trigger held: movement, then the rifle firing and reloading, as the
// server and the player's own client run it every tick.
func BenchmarkStep(b *testing.B) {
	p := game.DefaultParams()
	weapons := Defaults()
	s := standing(0, 0)
	ArmsOf(&s).Ammo = weapons[0].Magazine
	cmd := game.UserCmd{Forward: 127, Yaw: game.YawUnits(30 * math.Pi / 180), Duration: tick, Buttons: game.BtnFire}
	b.ReportAllocs()
	for b.Loop() {
		s, _ = Step(s, cmd, nil, &p, weapons)
		if s.Pos.X > 1000 {
			s.Pos = geom.Vec3{}
		}
	}
}
