package game

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestShippedWeapons checks the shipped weapons file against the studies'
// numbers (SPEC section 9).
func TestShippedWeapons(t *testing.T) {
	ws := DefaultWeapons()
	var names []string
	for _, w := range ws {
		names = append(names, w.Name)
	}
	if got := strings.Join(names, " "); got != "rifle sniper pistol shotgun rocket" {
		t.Fatalf("shipped weapons %q, want rifle sniper pistol shotgun rocket", got)
	}
	rifle, sniper, pistol, shotgun, rocket := ws[0], ws[1], ws[2], ws[3], ws[4]
	if rifle != Rifle() {
		t.Errorf("Rifle() = %+v, want the shipped rifle %+v", Rifle(), rifle)
	}
	checks := []struct {
		what string
		ok   bool
	}{
		{"rifle: hitscan, 600 rounds/min", rifle.Kind == Hitscan && rifle.FireInterval == 100*time.Millisecond},
		{"rifle: 25 damage to the body, 50 to the head", rifle.Damage == [NumParts]int16{50, 25, 25, 25}},
		{"rifle: spread and recoil grow with continuous fire", rifle.SpreadGrowth > 0 && rifle.SpreadMax > rifle.Spread && rifle.Recoil > 0 && rifle.RecoilMax > rifle.Recoil},
		{"rifle: the ALC game's spread of 0.002 rad", math.Abs(rifle.Spread-0.002) < 1e-9 && math.Abs(rifle.RecoilMax-0.03) < 1e-9},
		{"rifle: a 30 round magazine and a 2 s reload", rifle.Magazine == 30 && rifle.ReloadTime == 2*time.Second},
		{"sniper: hitscan, 40 rounds/min", sniper.Kind == Hitscan && sniper.FireInterval == 1500*time.Millisecond},
		{"sniper: a body hit kills", sniper.Damage[PartTorso] >= MaxHealth && sniper.Spread < rifle.Spread},
		{"pistol: a projectile at 60 m/s", pistol.Kind == Projectile && pistol.Speed == 60},
		{"pistol: 20 damage, 300 rounds/min, 12 rounds", pistol.Damage[PartTorso] == 20 && pistol.FireInterval == 200*time.Millisecond && pistol.Magazine == 12},
		{"shotgun: 9 pellets in a 4 degree cone", shotgun.Kind == Hitscan && shotgun.Pellets == 9 && math.Abs(shotgun.Spread-4*math.Pi/180) < 1e-12},
		{"shotgun: 60 rounds/min, 12 a pellet", shotgun.FireInterval == time.Second && shotgun.Damage[PartTorso] == 12},
		{"rocket: a projectile at 25 m/s with 100 direct damage", rocket.Kind == Projectile && rocket.Speed == 25 && rocket.Damage[PartTorso] == 100},
		{"rocket: splash of 100 over 4 m", rocket.SplashRadius == 4 && rocket.SplashDamage == 100},
		{"rocket: 50 rounds/min, one round and a reload", rocket.FireInterval == 1200*time.Millisecond && rocket.Magazine == 1 && rocket.ReloadTime > 0},
	}
	for _, c := range checks {
		if !c.ok {
			t.Errorf("%s: not so", c.what)
		}
	}
	ws[0].Name = "changed"
	if DefaultWeapons()[0].Name != "rifle" {
		t.Error("changing DefaultWeapons' result changed the defaults")
	}
}

// TestRifleKillsIn300ms checks the ALC study's time to kill: holding the
// trigger on a body, the fourth hit lands 0.3 s after the first and takes
// the last of 100 health (Reference: SPEC section 9, "600 rounds/min, 25
// damage: 0.3 s to kill").
func TestRifleKillsIn300ms(t *testing.T) {
	w := Rifle()
	for _, rate := range []int{20, 64, 128} {
		cmd := UserCmd{Duration: TickDuration(rate), Buttons: BtnFire}
		s := PlayerState{Ammo: w.Magazine}
		health := int16(MaxHealth)
		var first, killed time.Duration = -1, -1
		for now := time.Duration(0); killed < 0 && now < time.Second; now += cmd.Duration {
			var fired bool
			if s, fired = Fire(s, cmd, &w); !fired {
				continue
			}
			if first < 0 {
				first = now
			}
			if health -= w.Damage[PartTorso]; health <= 0 {
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
const minimal = `[[weapon]]
name = "rifle"
kind = "hitscan"
rpm = 600
magazine = 30
reload_s = 2.0
range_m = 200
damage = { head = 50, torso = 25, legs = 25 }
`

func TestParseWeaponsErrors(t *testing.T) {
	tests := []struct {
		name, file, want string
	}{
		{"missing field", `[[weapon]]
name = "sniper"
kind = "hitscan"
magazine = 5
reload_s = 3.0
range_m = 500
damage = { head = 150, torso = 100, legs = 75 }
`, `w.toml:1:3: weapon[0] (sniper): missing field "rpm"`},
		{"missing name", "[[weapon]]\nkind = \"hitscan\"\n", `w.toml:1:3: weapon[0]: missing field "name"`},
		{"missing damage part", strings.Replace(minimal, ", legs = 25", "", 1), `w.toml:8:1: weapon[0] (rifle).damage: missing field "legs"`},
		{"missing damage part, table", strings.Replace(minimal, "damage = { head = 50, torso = 25, legs = 25 }", "[weapon.damage]\nhead = 50\nlegs = 25", 1),
			`w.toml:8:2: weapon[0] (rifle).damage: missing field "torso"`},
		{"missing speed", minimal + "[[weapon]]\nname = \"rocket\"\nkind = \"projectile\"\nrpm = 50\nmagazine = 1\nreload_s = 1\nrange_m = 150\ndamage = { head = 100, torso = 100, legs = 100 }\n",
			`w.toml:9:3: weapon[1] (rocket): missing field "speed_mps"`},
		{"growth without a cap", minimal + "spread_growth_deg = 0.1\n", `w.toml:1:3: weapon[0] (rifle): missing field "spread_max_deg" (spread_growth_deg needs a cap)`},
		{"unknown field", minimal + "colour = \"red\"\n", `w.toml:9:1: weapon[0] (rifle).colour: unknown field`},
		{"unknown damage part", strings.Replace(minimal, "legs = 25", "legs = 25, toes = 5", 1), `w.toml:8:46: weapon[0] (rifle).damage.toes: unknown field`},
		{"unknown top-level field", "version = 2\n" + minimal, `w.toml:1:1: version: unknown field`},
		{"unknown kind", strings.Replace(minimal, `"hitscan"`, `"laser"`, 1), `w.toml:3:1: weapon[0] (rifle).kind: "laser", want hitscan or projectile`},
		{"bad value", minimal + "pellets = 0\n", `w.toml:9:1: weapon[0] (rifle).pellets: 0, want 1 to 32`},
		{"bad rpm", strings.Replace(minimal, "rpm = 600", "rpm = 0", 1), `w.toml:4:1: weapon[0] (rifle).rpm: 0, want 1 to 6000`},
		{"magazine that would wrap", strings.Replace(minimal, "magazine = 30", "magazine = 286", 1), `w.toml:5:1: weapon[0] (rifle).magazine: 286, want 1 to 255`},
		{"negative damage", strings.Replace(minimal, "head = 50", "head = -5", 1), `w.toml:8:12: weapon[0] (rifle).damage.head: -5, want 0 to 1000`},
		{"cone too wide", minimal + "spread_deg = 50\n", `w.toml:9:1: weapon[0] (rifle).spread_deg: 50, want 0 to under 45`},
		{"cap below the start", minimal + "spread_deg = 2\nspread_max_deg = 1\n", `w.toml:10:1: weapon[0] (rifle).spread_max_deg: 1, want spread_deg (2) to under 45`},
		{"hitscan with a speed", minimal + "speed_mps = 60\n", `w.toml:9:1: weapon[0] (rifle).speed_mps: 60 for a hitscan weapon, want none`},
		{"hitscan that explodes", minimal + "splash_radius_m = 4\n", `w.toml:9:1: weapon[0] (rifle).splash_radius_m: 4 for a hitscan weapon, want none (only projectiles explode)`},
		{"wrong type", strings.Replace(minimal, "rpm = 600", `rpm = "fast"`, 1), `w.toml:4:7: weapon[0] (rifle).rpm: a TOML string, want a number`},
		{"float magazine", strings.Replace(minimal, "magazine = 30", "magazine = 30.5", 1), `w.toml:5:12: weapon[0] (rifle).magazine: a TOML float, want an integer`},
		{"weapon not a table", "weapon = 3\n", `w.toml:1:10: weapon: a TOML integer, want [[weapon]] tables`},
		{"duplicate name", minimal + "\n" + minimal, `w.toml:11:1: weapon[1] (rifle).name: duplicate of weapon[0]`},
		{"duplicate key", minimal + "rpm = 700\n", `w.toml:9:1: weapon[0] (rifle).rpm: key rpm is already defined`},
		{"syntax error", strings.Replace(minimal, `name = "rifle"`, `name = "rifle`, 1), `w.toml:2:14: basic strings cannot have new lines`},
		{"empty file", "# nothing\n", `w.toml: no [[weapon]] tables`},
		{"too large", strings.Repeat("#", MaxWeaponsFileSize+1), `w.toml: larger than 1048576 bytes`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws, err := ParseWeapons("w.toml", []byte(tt.file))
			if err == nil || err.Error() != tt.want {
				t.Fatalf("got %v (%d weapons)\nwant %s", err, len(ws), tt.want)
			}
		})
	}
}

func TestParseWeaponsDefaults(t *testing.T) {
	ws, err := ParseWeapons("w.toml", []byte(minimal+"spread_deg = 1\nrecoil_deg = 0.5\nrecoil_max_deg = 2\n"))
	if err != nil {
		t.Fatal(err)
	}
	w := ws[0]
	rad := math.Pi / 180
	if w.Pellets != 1 || w.SpreadMax != w.Spread || w.Spread != rad || w.Recoil != 0.5*rad || w.RecoilMax != 2*rad ||
		w.SplashRadius != 0 || w.Speed != 0 || w.Damage[PartLegL] != 25 || w.Damage[PartLegR] != 25 {
		t.Fatalf("defaults not applied: %+v", w)
	}
	// rpm that does not divide a minute rounds to whole microseconds.
	ws, err = ParseWeapons("w.toml", []byte(strings.Replace(minimal, "rpm = 600", "rpm = 7", 1)))
	if err != nil || ws[0].FireInterval != 8571429*time.Microsecond {
		t.Fatalf("7 rounds/min: %v, %v; want 8.571429s", ws[0].FireInterval, err)
	}
}

func TestLoadWeapons(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "mine.toml")
	if err := os.WriteFile(path, []byte(minimal+"pellets = 40\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadWeapons(path); err == nil || err.Error() != path+":9:1: weapon[0] (rifle).pellets: 40, want 1 to 32" {
		t.Fatalf("got %v, want the path, line, field and problem", err)
	}
	if err := os.WriteFile(path, shippedWeapons, 0o644); err != nil {
		t.Fatal(err)
	}
	ws, err := LoadWeapons(path)
	if err != nil || len(ws) != 5 || ws[4] != DefaultWeapons()[4] {
		t.Fatalf("loading the shipped file: %d weapons, %v", len(ws), err)
	}
	if _, err := LoadWeapons(filepath.Join(dir, "absent.toml")); err == nil {
		t.Fatal("loading a missing file succeeded")
	}
}

func TestSelectWeapons(t *testing.T) {
	all := DefaultWeapons()
	got, err := SelectWeapons(all, []string{"rocket", "rifle"})
	if err != nil || len(got) != 2 || got[0].Name != "rocket" || got[1].Name != "rifle" {
		t.Fatalf("got %v, %v; want rocket then rifle", got, err)
	}
	tests := []struct {
		names []string
		want  string
	}{
		{[]string{"rifle", "laser"}, `game: unknown weapon "laser" (known: rifle, sniper, pistol, shotgun, rocket)`},
		{[]string{"rifle", "rifle"}, `game: weapon "rifle" selected twice`},
		{nil, `game: 0 weapons selected, want 1 to 32`},
	}
	for _, tt := range tests {
		if _, err := SelectWeapons(all, tt.names); err == nil || err.Error() != tt.want {
			t.Errorf("%q: got %v, want %s", tt.names, err, tt.want)
		}
	}
}

func TestValidateNamesTheField(t *testing.T) {
	tests := []struct {
		change func(w *Weapon)
		want   string
	}{
		{func(w *Weapon) { w.FireInterval = 0 }, `game: weapon "rifle": rpm: +Inf, want 1 to 6000`},
		{func(w *Weapon) { w.Damage[PartLegR] = -1 }, `game: weapon "rifle": damage.legs: -1, want 0 to 1000`},
		{func(w *Weapon) { w.Kind = 7 }, `game: weapon "rifle": kind: WeaponKind(7), want hitscan or projectile`},
		{func(w *Weapon) { w.Kind = Projectile }, `game: weapon "rifle": speed_mps: 0, want 1 to 2000`},
		{func(w *Weapon) { w.Range = math.NaN() }, `game: weapon "rifle": range_m: NaN, want above 0 up to 4000`},
		{func(w *Weapon) { w.Kind, w.Speed, w.SplashDamage = Projectile, 20, 5 }, `game: weapon "rifle": splash_damage: 5 without a splash_radius_m`},
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
	w := DefaultWeapons()[3]
	p := DefaultParams()
	s := standing(1, 2)
	s.Heat = 1
	cmd := UserCmd{Tick: 500, Yaw: YawUnits(0.7), Pitch: PitchUnits(-0.05)}
	aim := AimDir(cmd.Yaw, cmd.Pitch)
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
func stepUntilFired(s PlayerState, cmd UserCmd, weapons []Weapon) (PlayerState, time.Duration) {
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
	loadout := []Weapon{Rifle(), DefaultWeapons()[1]}
	sniper := &loadout[1]
	rifleReady := PlayerState{Ammo: loadout[0].Magazine, Health: MaxHealth, Flags: FlagOnGround}

	// Switching to the sniper with the trigger held: the first shot comes
	// when a sniper reload started at the same command would have ended.
	switched, tSwitch := stepUntilFired(rifleReady, UserCmd{Weapon: 1, Buttons: BtnFire}, loadout)
	reloading := PlayerState{Weapon: 1, Ammo: 0, Health: MaxHealth, Flags: FlagOnGround}
	reloading, _ = Step(reloading, UserCmd{Weapon: 1, Buttons: BtnReload, Duration: tick}, nil, nil, loadout)
	_, tReload := stepUntilFired(reloading, UserCmd{Weapon: 1, Buttons: BtnFire}, loadout)
	tReload += tick // the command that started the reload
	if tSwitch != tReload || tSwitch < sniper.ReloadTime || tSwitch >= sniper.ReloadTime+tick {
		t.Fatalf("first sniper shot %v after switching, %v after reloading; want both the reload time %v", tSwitch, tReload, sniper.ReloadTime)
	}
	if switched.Weapon != 1 || switched.Ammo != sniper.Magazine-1 {
		t.Fatalf("after the first shot: slot %d, %d rounds; want slot 1, %d", switched.Weapon, switched.Ammo, sniper.Magazine-1)
	}

	// An empty rifle: switching to the sniper and straight back costs
	// more than reloading the rifle.
	empty := rifleReady
	empty.Ammo = 0
	away, _ := Step(empty, UserCmd{Weapon: 1, Duration: tick}, nil, nil, loadout)
	_, tBack := stepUntilFired(away, UserCmd{Weapon: 0, Buttons: BtnFire}, loadout)
	_, tEmpty := stepUntilFired(empty, UserCmd{Weapon: 0, Buttons: BtnFire}, loadout)
	if tBack+tick <= tEmpty {
		t.Fatalf("switching away and back fired after %v, an empty magazine's reload after %v", tBack+tick, tEmpty)
	}

	// Slots outside the loadout keep the weapon in hand.
	s, fired := Step(rifleReady, UserCmd{Weapon: 2, Buttons: BtnFire, Duration: tick}, nil, nil, loadout)
	if !fired || s.Weapon != 0 {
		t.Fatalf("selecting slot 2 of 2: fired %v, slot %d; want the rifle to fire", fired, s.Weapon)
	}
	// An empty loadout fires nothing.
	if _, fired := Step(rifleReady, UserCmd{Buttons: BtnFire, Duration: tick}, nil, nil, nil); fired {
		t.Fatal("an empty loadout fired")
	}
}

// FuzzParseWeapons parses arbitrary files: ParseWeapons must not panic,
// and every weapon it accepts must validate, with unique names.
func FuzzParseWeapons(f *testing.F) {
	f.Add(shippedWeapons)
	f.Add([]byte(minimal))
	f.Add([]byte(minimal + "[weapon.damage]\nhead = 1\n"))
	f.Add([]byte("[[weapon]]\nname = \"a\"\nkind = \"projectile\"\nspeed_mps = 1e400\n"))
	f.Add([]byte("weapon = [{name = \"x\"}]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ws, err := ParseWeapons("f.toml", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.toml") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		if len(ws) == 0 || len(ws) > MaxWeapons {
			t.Fatalf("%d weapons accepted", len(ws))
		}
		seen := map[string]bool{}
		for i := range ws {
			if err := ws[i].Validate(); err != nil {
				t.Fatalf("accepted weapon %d is invalid: %v", i, err)
			}
			if seen[ws[i].Name] {
				t.Fatalf("name %q accepted twice", ws[i].Name)
			}
			seen[ws[i].Name] = true
		}
	})
}
