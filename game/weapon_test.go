package game

import (
	"math"
	"testing"
	"time"
)

// hold fires the trigger of a fresh player for d in commands of one tick
// at rate and returns the number of shots.
func hold(w *Weapon, rate int, d time.Duration) int {
	s := PlayerState{Health: MaxHealth}.WithArms(Arms{Ammo: w.Magazine})
	cmd := UserCmd{Duration: TickDuration(rate), Buttons: BtnFire}
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
	tick := UserCmd{Duration: TickDuration(64), Buttons: BtnFire}
	cases := []struct {
		name   string
		s      PlayerState
		cmd    UserCmd
		fired  bool
		reload bool
	}{
		{"ready", PlayerState{}.WithArms(Arms{Ammo: 30}), tick, true, false},
		{"trigger released", PlayerState{}.WithArms(Arms{Ammo: 30}), UserCmd{Duration: tick.Duration}, false, false},
		{"dead", PlayerState{Flags: FlagDead}.WithArms(Arms{Ammo: 30}), tick, false, false},
		{"between shots", PlayerState{}.WithArms(Arms{Ammo: 30, Wait: 50 * time.Millisecond}), tick, false, false},
		{"empty magazine", PlayerState{}.WithArms(Arms{Ammo: 0}), tick, false, true},
		{"reloading", PlayerState{Flags: FlagReloading}.WithArms(Arms{Ammo: 0, Wait: time.Second}), tick, false, true},
		{"reload key", PlayerState{}.WithArms(Arms{Ammo: 10}), UserCmd{Duration: tick.Duration, Buttons: BtnReload}, false, true},
	}
	for _, tc := range cases {
		s, fired := Fire(tc.s, tc.cmd, &w)
		if fired != tc.fired || s.Has(FlagReloading) != tc.reload {
			t.Errorf("%s: fired %v, reloading %v; want %v, %v", tc.name, fired, s.Has(FlagReloading), tc.fired, tc.reload)
		}
		if fired && (s.Arms().Ammo != tc.s.Arms().Ammo-1 || s.Arms().Heat != tc.s.Arms().Heat+1) {
			t.Errorf("%s: ammo %d, heat %d after a shot", tc.name, s.Arms().Ammo, s.Arms().Heat)
		}
	}
	// A reload takes ReloadTime and refills the magazine.
	s, _ := Fire(PlayerState{}, tick, &w)
	for elapsed := tick.Duration; elapsed < w.ReloadTime; elapsed += tick.Duration {
		if s, _ = Fire(s, UserCmd{Duration: tick.Duration}, &w); !s.Has(FlagReloading) && elapsed+tick.Duration < w.ReloadTime {
			t.Fatalf("reload over after %v of %v", elapsed+tick.Duration, w.ReloadTime)
		}
	}
	if s, _ = Fire(s, UserCmd{Duration: tick.Duration}, &w); s.Has(FlagReloading) || s.Arms().Ammo != w.Magazine {
		t.Fatalf("after the reload: reloading %v, ammo %d", s.Has(FlagReloading), s.Arms().Ammo)
	}
}

// TestShotRaySpreadAndRecoil checks that a shot leaves the eye within the
// weapon's cone around the aim raised by recoil, both growing with the
// burst, and that the server and the shooter's client draw the same ray.
func TestShotRaySpreadAndRecoil(t *testing.T) {
	w := Rifle()
	p := DefaultParams()
	s := standing(3, 4)
	cmd := UserCmd{Tick: 77, Yaw: YawUnits(1), Pitch: PitchUnits(0.1)}
	for heat := 1; heat <= 40; heat++ {
		s.Arms().Heat = uint8(heat)
		n := float64(heat - 1)
		r := ShotRay(s, cmd, 5, 0, &w, &p)
		if r != ShotRay(s, cmd, 5, 0, &w, &p) {
			t.Fatal("the same shot drew two rays")
		}
		if r.Origin != EyePos(s, &p) {
			t.Fatalf("heat %d: ray from %v, want the eye %v", heat, r.Origin, EyePos(s, &p))
		}
		raised := AimDir(cmd.Yaw, PitchUnits(cmd.PitchRad()+math.Min(w.Recoil*n, w.RecoilMax)))
		cone := math.Min(w.Spread+w.SpreadGrowth*n, w.SpreadMax)
		// One angle unit of rounding in the raised aim, on top of the cone.
		if off := math.Acos(math.Min(1, r.Dir.Dot(raised))); off > cone+2*math.Pi/AngleUnits || math.Abs(r.Dir.Len()-1) > 1e-12 {
			t.Fatalf("heat %d: %.5f rad off the raised aim, cone %.5f (length %v)", heat, off, cone, r.Dir.Len())
		}
	}
	if ShotRay(s, cmd, 5, 0, &w, &p) == ShotRay(s, cmd, 6, 0, &w, &p) {
		t.Fatal("two shooters drew the same spread")
	}
}
