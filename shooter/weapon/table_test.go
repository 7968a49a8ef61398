package weapon

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/lagkit/lagkit/game"
)

// TestShippedWeapons checks the built-in weapons against the studies'
// numbers: the ALC study's rifle ([alc]) and the time warp study's
// projectile pistol ([timewarp]).
func TestShippedWeapons(t *testing.T) {
	ws := Defaults()
	var names []string
	for _, w := range ws {
		names = append(names, w.Name)
	}
	if got := strings.Join(names, " "); got != "rifle sniper pistol shotgun rocket p250" {
		t.Fatalf("shipped weapons %q, want rifle sniper pistol shotgun rocket p250", got)
	}
	rifle, sniper, pistol, shotgun, rocket, p250 := ws[0], ws[1], ws[2], ws[3], ws[4], ws[5]
	if rifle != Rifle() {
		t.Errorf("Rifle() = %+v, want the shipped rifle %+v", Rifle(), rifle)
	}
	checks := []struct {
		what string
		ok   bool
	}{
		{"rifle: hitscan, 600 rounds/min", rifle.Kind == Hitscan && rifle.FireInterval == 100*time.Millisecond},
		{"rifle: 25 damage to the body, 50 to the head", rifle.Damage == [game.NumParts]int16{50, 25, 25, 25}},
		{"rifle: spread and recoil grow with continuous fire", rifle.SpreadGrowth > 0 && rifle.SpreadMax > rifle.Spread && rifle.Recoil > 0 && rifle.RecoilMax > rifle.Recoil},
		{"rifle: the ALC game's spread of 0.002 rad", math.Abs(rifle.Spread-0.002) < 1e-9 && math.Abs(rifle.RecoilMax-0.03) < 1e-9},
		{"rifle: a 30 round magazine and a 2 s reload", rifle.Magazine == 30 && rifle.ReloadTime == 2*time.Second},
		{"sniper: hitscan, 40 rounds/min", sniper.Kind == Hitscan && sniper.FireInterval == 1500*time.Millisecond},
		{"sniper: a body hit kills", sniper.Damage[game.PartTorso] >= game.MaxHealth && sniper.Spread < rifle.Spread},
		{"pistol: a projectile at 60 m/s", pistol.Kind == Projectile && pistol.Speed == 60},
		{"pistol: 20 damage, 300 rounds/min, 12 rounds", pistol.Damage[game.PartTorso] == 20 && pistol.FireInterval == 200*time.Millisecond && pistol.Magazine == 12},
		{"shotgun: 9 pellets in a 4 degree cone", shotgun.Kind == Hitscan && shotgun.Pellets == 9 && math.Abs(shotgun.Spread-4*math.Pi/180) < 1e-12},
		{"shotgun: 60 rounds/min, 12 a pellet", shotgun.FireInterval == time.Second && shotgun.Damage[game.PartTorso] == 12},
		{"rocket: a projectile at 25 m/s with 100 direct damage", rocket.Kind == Projectile && rocket.Speed == 25 && rocket.Damage[game.PartTorso] == 100},
		{"rocket: splash of 100 over 4 m", rocket.SplashRadius == 4 && rocket.SplashDamage == 100},
		{"rocket: 50 rounds/min, one round and a reload", rocket.FireInterval == 1200*time.Millisecond && rocket.Magazine == 1 && rocket.ReloadTime > 0},
		{"p250: hitscan, 400 rounds/min, 13 rounds, 2.2 s reload", p250.Kind == Hitscan && p250.FireInterval == 150*time.Millisecond && p250.Magazine == 13 && p250.ReloadTime == 2200*time.Millisecond},
		{"p250: 38 to the body, x4 to the head, x0.75 to the legs", p250.Damage == [game.NumParts]int16{152, 38, 28, 28}},
		{"p250: 4096 units of range at 1.905 cm", math.Abs(p250.Range-4096*0.01905) < 0.05},
		{"p250: the projectile pistol's spread and recoil", p250.Spread == pistol.Spread && p250.SpreadMax == pistol.SpreadMax && p250.RecoilMax == pistol.RecoilMax},
	}
	for _, c := range checks {
		if !c.ok {
			t.Errorf("%s: not so", c.what)
		}
	}
	ws[0].Name = "changed"
	if Defaults()[0].Name != "rifle" {
		t.Error("changing Defaults' result changed the defaults")
	}
}

// TestRifleKillsIn300ms checks the ALC study's time to kill: holding the
// trigger on a body, the fourth hit lands 0.3 s after the first and takes
// the last of 100 health ("600 rounds/min, 25 damage: 0.3 s to kill".
// Reference: [alc], the game's assault rifle (docs/references.md).)
func TestRifleKillsIn300ms(t *testing.T) {
	w := Rifle()
	for _, rate := range []int{20, 64, 128} {
		cmd := game.UserCmd{Duration: game.TickDuration(rate), Buttons: game.BtnFire}
		s := With(game.PlayerState{}, Arms{Ammo: w.Magazine})
		health := int16(game.MaxHealth)
		var first, killed time.Duration = -1, -1
		for now := time.Duration(0); killed < 0 && now < time.Second; now += cmd.Duration {
			var fired bool
			if s, fired = Fire(s, cmd, &w); !fired {
				continue
			}
			if first < 0 {
				first = now
			}
			if health -= w.Damage[game.PartTorso]; health <= 0 {
				killed = now
			}
		}
		// Shots happen on command boundaries: within one command of the
		// exact 100 ms rhythm.
		if ttk := killed - first; ttk < 300*time.Millisecond-cmd.Duration || ttk > 300*time.Millisecond+cmd.Duration {
			t.Errorf("%d Hz: killed %v after the first hit, want 0.3 s", rate, ttk)
		}
	}
}

// minimal is a valid weapon table; tests append fields to it.
func TestSelectWeapons(t *testing.T) {
	all := Defaults()
	got, err := Select(all, []string{"rocket", "rifle"})
	if err != nil || len(got) != 2 || got[0].Name != "rocket" || got[1].Name != "rifle" {
		t.Fatalf("got %v, %v; want rocket then rifle", got, err)
	}
	tests := []struct {
		names []string
		want  string
	}{
		{[]string{"rifle", "laser"}, `weapon: unknown weapon "laser" (known: rifle, sniper, pistol, shotgun, rocket, p250)`},
		{[]string{"rifle", "rifle"}, `weapon "rifle" selected twice`},
		{nil, `weapon: 0 weapons selected, want 1 to 32`},
	}
	for _, tt := range tests {
		if _, err := Select(all, tt.names); err == nil || err.Error() != tt.want {
			t.Errorf("%q: got %v, want %s", tt.names, err, tt.want)
		}
	}
}

func TestValidateNamesTheField(t *testing.T) {
	tests := []struct {
		change func(w *Weapon)
		want   string
	}{
		{func(w *Weapon) { w.FireInterval = 0 }, `weapon "rifle": rpm: +Inf, want 1 to 6000`},
		{func(w *Weapon) { w.Damage[game.PartLegR] = -1 }, `weapon "rifle": damage.legs: -1, want 0 to 1000`},
		{func(w *Weapon) { w.Kind = 7 }, `weapon "rifle": kind: Kind(7), want hitscan or projectile`},
		{func(w *Weapon) { w.Kind = Projectile }, `weapon "rifle": speed_mps: 0, want 1 to 2000`},
		{func(w *Weapon) { w.Range = math.NaN() }, `weapon "rifle": range_m: NaN, want above 0 up to 4000`},
		{func(w *Weapon) { w.Kind, w.Speed, w.SplashDamage = Projectile, 20, 5 }, `weapon "rifle": splash_damage: 5 without a splash_radius_m`},
	}
	for _, tt := range tests {
		w := Rifle()
		tt.change(&w)
		if err := w.Validate(); err == nil || err.Error() != tt.want {
			t.Errorf("got %v, want %s", err, tt.want)
		}
	}
}

// TestShotgunCone checks that a shotgun's pellets leave the eye within its
// cone around the aim, each on its own ray, the same for the same command
// (server and shooter's client agree) and different for another.
func TestShotgunCone(t *testing.T) {
	w := Defaults()[3]
	p := game.DefaultParams()
	s := standing(1, 2)
	ArmsOf(&s).Heat = 1
	cmd := game.UserCmd{Tick: 500, Yaw: game.YawUnits(0.7), Pitch: game.PitchUnits(-0.05)}
	aim := game.AimDir(cmd.Yaw, cmd.Pitch)
	var widest float64
	for i := range w.Pellets {
		r := ShotRay(s, cmd, 3, i, &w, &p)
		if r != ShotRay(s, cmd, 3, i, &w, &p) {
			t.Fatalf("pellet %d: two rays for one command", i)
		}
		off := math.Acos(math.Min(1, r.Dir.Dot(aim)))
		if off > w.Spread+1e-9 {
			t.Fatalf("pellet %d: %.4f rad off the aim, cone %.4f", i, off, w.Spread)
		}
		widest = max(widest, off)
		for j := range i {
			if r == ShotRay(s, cmd, 3, j, &w, &p) {
				t.Fatalf("pellets %d and %d share a ray", i, j)
			}
		}
		next := cmd
		next.Tick++
		if r == ShotRay(s, next, 3, i, &w, &p) {
			t.Fatalf("pellet %d: the next command drew the same ray", i)
		}
	}
	// Nine uniform points on the cone's disc: the widest lies well out.
	if widest < w.Spread/2 {
		t.Fatalf("widest pellet %.4f rad off the aim of a %.4f rad cone", widest, w.Spread)
	}
}

// stepUntilFired runs commands of one 64 Hz tick from s with input cmd
// until one fires, returning the state and the time taken (-1: not
// within 10 s).
func stepUntilFired(s game.PlayerState, cmd game.UserCmd, weapons []Weapon) (game.PlayerState, time.Duration) {
	cmd.Duration = tick
	for elapsed := time.Duration(0); elapsed < 10*time.Second; elapsed += tick {
		var fired bool
		if s, fired = Step(s, cmd, nil, nil, weapons); fired {
			return s, elapsed
		}
	}
	return s, -1
}

// TestSwitchCostsReloadTime checks that drawing a weapon takes exactly as
// long as reloading it, that it is drawn loaded, and that switching away
// and back is no faster reload.
func TestSwitchCostsReloadTime(t *testing.T) {
	loadout := []Weapon{Rifle(), Defaults()[1]}
	sniper := &loadout[1]
	rifleReady := With(game.PlayerState{Health: game.MaxHealth, Flags: game.FlagOnGround}, Arms{Ammo: loadout[0].Magazine})

	// Switching to the sniper with the trigger held: the first shot comes
	// when a sniper reload started at the same command would have ended.
	switched, tSwitch := stepUntilFired(rifleReady, game.UserCmd{Weapon: 1, Buttons: game.BtnFire}, loadout)
	reloading := With(game.PlayerState{Health: game.MaxHealth, Flags: game.FlagOnGround}, Arms{Weapon: 1, Ammo: 0})
	reloading, _ = Step(reloading, game.UserCmd{Weapon: 1, Buttons: game.BtnReload, Duration: tick}, nil, nil, loadout)
	_, tReload := stepUntilFired(reloading, game.UserCmd{Weapon: 1, Buttons: game.BtnFire}, loadout)
	tReload += tick // the command that started the reload
	if tSwitch != tReload || tSwitch < sniper.ReloadTime || tSwitch >= sniper.ReloadTime+tick {
		t.Fatalf("first sniper shot %v after switching, %v after reloading; want both the reload time %v", tSwitch, tReload, sniper.ReloadTime)
	}
	if ArmsOf(&switched).Weapon != 1 || ArmsOf(&switched).Ammo != sniper.Magazine-1 {
		t.Fatalf("after the first shot: slot %d, %d rounds; want slot 1, %d", ArmsOf(&switched).Weapon, ArmsOf(&switched).Ammo, sniper.Magazine-1)
	}

	// An empty rifle: switching to the sniper and straight back costs
	// more than reloading the rifle.
	empty := rifleReady
	ArmsOf(&empty).Ammo = 0
	away, _ := Step(empty, game.UserCmd{Weapon: 1, Duration: tick}, nil, nil, loadout)
	_, tBack := stepUntilFired(away, game.UserCmd{Weapon: 0, Buttons: game.BtnFire}, loadout)
	_, tEmpty := stepUntilFired(empty, game.UserCmd{Weapon: 0, Buttons: game.BtnFire}, loadout)
	if tBack+tick <= tEmpty {
		t.Fatalf("switching away and back fired after %v, an empty magazine's reload after %v", tBack+tick, tEmpty)
	}

	// Slots outside the loadout keep the weapon in hand.
	s, fired := Step(rifleReady, game.UserCmd{Weapon: 2, Buttons: game.BtnFire, Duration: tick}, nil, nil, loadout)
	if !fired || ArmsOf(&s).Weapon != 0 {
		t.Fatalf("selecting slot 2 of 2: fired %v, slot %d; want the rifle to fire", fired, ArmsOf(&s).Weapon)
	}
	// An empty loadout fires nothing.
	if _, fired := Step(rifleReady, game.UserCmd{Buttons: game.BtnFire, Duration: tick}, nil, nil, nil); fired {
		t.Fatal("an empty loadout fired")
	}
}
