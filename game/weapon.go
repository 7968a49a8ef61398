package game

import (
	"fmt"
	"math"
	"time"

	"github.com/lagkit/lagkit/geom"
)

// Weapon is a hitscan weapon's rules. Server and clients must use the same
// Weapon, as with Params: clients predict firing, ammunition and reloads
// with it, and the server decides hits.
type Weapon struct {
	Name string
	// FireInterval is the time between shots while the trigger is held
	// (60 s / rounds per minute).
	FireInterval time.Duration
	// Damage is the health a hit on each body part takes.
	Damage [NumParts]int16
	// Magazine is the rounds per magazine; ReloadTime how long a reload
	// takes. An empty magazine reloads by itself when the trigger is
	// pulled.
	Magazine   uint8
	ReloadTime time.Duration
	// Range is the longest distance a shot reaches.
	Range float64
	// Spread is the half-angle in radians of the cone a shot may leave the
	// aim in: Spread for the first shot of a burst, growing by
	// SpreadGrowth per shot up to SpreadMax.
	Spread, SpreadGrowth, SpreadMax float64
	// Recoil raises the aim by this many radians per shot of a burst, up
	// to RecoilMax; releasing the trigger resets it.
	Recoil, RecoilMax float64
	// Pellets is the rays per shot (1 for a rifle).
	Pellets int
}

// Rifle returns the hitscan assault rifle of the ALC study's game: 600
// rounds a minute and 25 damage to the body against 100 health, so four
// hits kill in 0.3 s; spread and recoil grow with continuous fire; a 30
// round magazine and a 2 s reload.
func Rifle() Weapon {
	return Weapon{
		Name:         "rifle",
		FireInterval: 100 * time.Millisecond,
		Damage:       [NumParts]int16{PartHead: 50, PartTorso: 25, PartLegL: 25, PartLegR: 25},
		Magazine:     30,
		ReloadTime:   2 * time.Second,
		Range:        200,
		Spread:       0.002,
		SpreadGrowth: 0.0015,
		SpreadMax:    0.02,
		Recoil:       0.003,
		RecoilMax:    0.03,
		Pellets:      1,
	}
}

// Validate reports the first field of w that firing cannot work with.
func (w *Weapon) Validate() error {
	switch {
	case w.FireInterval <= 0:
		return fmt.Errorf("game: weapon %q: fire interval %v, want positive", w.Name, w.FireInterval)
	case w.Magazine == 0:
		return fmt.Errorf("game: weapon %q: magazine 0, want at least 1", w.Name)
	case w.ReloadTime < 0:
		return fmt.Errorf("game: weapon %q: reload time %v, want non-negative", w.Name, w.ReloadTime)
	case !(w.Range > 0) || math.IsInf(w.Range, 0):
		return fmt.Errorf("game: weapon %q: range %v, want positive and finite", w.Name, w.Range)
	case !(w.Spread >= 0 && w.SpreadGrowth >= 0 && w.SpreadMax >= w.Spread && w.SpreadMax < math.Pi/4):
		return fmt.Errorf("game: weapon %q: spread %v+%v up to %v, want 0 <= spread <= max < pi/4", w.Name, w.Spread, w.SpreadGrowth, w.SpreadMax)
	case !(w.Recoil >= 0 && w.RecoilMax >= 0 && w.RecoilMax < math.Pi/4):
		return fmt.Errorf("game: weapon %q: recoil %v up to %v, want 0 <= recoil and max < pi/4", w.Name, w.Recoil, w.RecoilMax)
	case w.Pellets < 1 || w.Pellets > 32:
		return fmt.Errorf("game: weapon %q: %d pellets, want 1 to 32", w.Name, w.Pellets)
	}
	for k, d := range w.Damage {
		if d < 0 {
			return fmt.Errorf("game: weapon %q: damage to %v is %d, want non-negative", w.Name, PartKind(k), d)
		}
	}
	return nil
}

// MaxHealth is a player's health at spawn.
const MaxHealth = 100

// Step advances player s by one command: movement (a dead player keeps
// falling but does not move by its own will) and then the weapon. It
// reports whether the command fired a shot. Like Move, it is the one
// function the server and the owner's client both run.
func Step(s PlayerState, cmd UserCmd, g *geom.Grid, p *Params, w *Weapon) (PlayerState, bool) {
	if s.Has(FlagDead) {
		cmd.Forward, cmd.Side, cmd.Up, cmd.Buttons = 0, 0, 0, 0
	}
	s = Move(s, cmd, g, p)
	return Fire(s, cmd, w)
}

// Fire advances the weapon of player s by one command and reports whether
// it fired: the trigger (BtnFire) fires once every FireInterval while
// rounds remain, an empty magazine or BtnReload starts a reload, and
// releasing the trigger ends the burst (Heat back to 0). A dead player
// does not fire.
func Fire(s PlayerState, cmd UserCmd, w *Weapon) (PlayerState, bool) {
	d := min(max(cmd.Duration, 0), MaxCmdDuration)
	s.WeaponWait -= d
	trigger := cmd.Buttons.Has(BtnFire) && !s.Has(FlagDead)
	if s.Has(FlagReloading) && s.WeaponWait <= 0 {
		s.Flags &^= FlagReloading
		s.Ammo = w.Magazine
	}
	if !trigger {
		s.Heat = 0
	}
	if s.WeaponWait < 0 && !(trigger && !s.Has(FlagReloading)) {
		// Idle time does not bank shots; only the remainder of the current
		// interval carries over while firing, which keeps the rate exact
		// when the interval is not a whole number of ticks.
		s.WeaponWait = 0
	}
	if s.Has(FlagDead) || s.Has(FlagReloading) {
		return s, false
	}
	if cmd.Buttons.Has(BtnReload) && s.Ammo < w.Magazine || trigger && s.Ammo == 0 && s.WeaponWait <= 0 {
		s.Flags |= FlagReloading
		s.WeaponWait = w.ReloadTime
		s.Heat = 0
		return s, false
	}
	if !trigger || s.WeaponWait > 0 {
		return s, false
	}
	s.Ammo--
	s.WeaponWait += w.FireInterval
	if s.WeaponWait <= 0 {
		s.WeaponWait = w.FireInterval // a command longer than the interval fires once
	}
	s.Heat = min(s.Heat+1, 255)
	return s, true
}

// ShotRay returns the ray of pellet i of the shot that command cmd fired
// from player s (the state Step returned, Heat already counting this
// shot): from the eye, along the view angles raised by recoil and turned
// by spread. Spread comes from a generator seeded by the shooter's slot,
// the command and the pellet, so the server and the shooter's client draw
// the same numbers.
func ShotRay(s PlayerState, cmd UserCmd, shooter int, pellet int, w *Weapon, p *Params) geom.Ray {
	n := float64(max(int(s.Heat)-1, 0)) // shots before this one in the burst
	pitch := AngleToRad(int32(cmd.Pitch)) + math.Min(w.Recoil*n, w.RecoilMax)
	pitch = math.Min(pitch, AngleToRad(MaxPitch))
	yaw := AngleToRad(int32(cmd.Yaw))
	sy, cy := math.Sincos(yaw)
	sp, cp := math.Sincos(pitch)
	fwd := geom.Vec3{X: cp * cy, Y: cp * sy, Z: sp}
	cone := math.Min(w.Spread+w.SpreadGrowth*n, w.SpreadMax)
	if cone > 0 {
		// A uniform point on the disc of radius tan(cone) at unit distance.
		h := shotHash(uint64(shooter), uint64(cmd.Tick), uint64(pellet))
		u1 := float64(h>>11) / (1 << 53)
		u2 := float64(shotHash(h, 0, 0)>>11) / (1 << 53)
		r := math.Tan(cone) * math.Sqrt(u1)
		sa, ca := math.Sincos(2 * math.Pi * u2)
		right := geom.Vec3{X: sy, Y: -cy}
		up := right.Cross(fwd)
		fwd = fwd.AddScaled(right, r*ca).AddScaled(up, r*sa).Norm()
	}
	return geom.Ray{Origin: EyePos(s, p), Dir: fwd}
}

// shotHash mixes its inputs with SplitMix64's finaliser (Steele, Lea and
// Flood 2014): a stateless generator both ends can evaluate.
func shotHash(a, b, c uint64) uint64 {
	z := a*0x9e3779b97f4a7c15 ^ b*0xbf58476d1ce4e5b9 ^ c*0x94d049bb133111eb
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}
