package weapon

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/lagkit/lagkit/game"
)

// MaxLoadout bounds the weapons of a weapons file and of a loadout.
const MaxLoadout = 32

// defaultWeapons is lagkit's weapon table. Package weaponfile ships the
// same weapons as shooter/weapon/weaponfile/weapons.toml, the example for users'
// own files, and its tests check that the two agree bit for bit: each
// number here is converted from the file's units by the same arithmetic
// the file's parser uses (Degrees, PerMinute, Seconds).
var defaultWeapons = []Weapon{
	// The ALC study's assault rifle ([alc]): 600 rounds/min and 25 damage
	// to the body, so four hits 100 ms apart kill in 0.3 s. Spread and
	// recoil grow with continuous fire (0.002, 0.0015, 0.02, 0.003 and
	// 0.03 rad, to 8 digits).
	{
		Name: "rifle", Kind: Hitscan, FireInterval: PerMinute(600), Magazine: 30, ReloadTime: Seconds(2.0),
		Range: 200, Damage: damage(50, 25, 25),
		Spread: Degrees(0.11459156), SpreadGrowth: Degrees(0.085943669), SpreadMax: Degrees(1.1459156),
		Recoil: Degrees(0.17188734), RecoilMax: Degrees(1.7188734), Pellets: 1,
	},
	// 40 rounds/min: one body hit kills, a leg hit nearly does.
	{
		Name: "sniper", Kind: Hitscan, FireInterval: PerMinute(40), Magazine: 5, ReloadTime: Seconds(3.0),
		Range: 500, Damage: damage(150, 100, 75),
		Spread: Degrees(0.01), SpreadMax: Degrees(0.01), Recoil: Degrees(1.0), RecoilMax: Degrees(3.0), Pellets: 1,
	},
	// The time warp study's starting weapon ([timewarp]): a projectile
	// slow enough to dodge.
	{
		Name: "pistol", Kind: Projectile, FireInterval: PerMinute(300), Magazine: 12, ReloadTime: Seconds(1.5),
		Range: 100, Speed: 60, Damage: damage(40, 20, 20),
		Spread: Degrees(0.3), SpreadGrowth: Degrees(0.2), SpreadMax: Degrees(1.5),
		Recoil: Degrees(0.5), RecoilMax: Degrees(3.0), Pellets: 1,
	},
	// Nine pellets in a cone of 4 degrees half-angle, 12 damage each to
	// the body.
	{
		Name: "shotgun", Kind: Hitscan, FireInterval: PerMinute(60), Magazine: 8, ReloadTime: Seconds(2.5),
		Range: 40, Pellets: 9, Damage: damage(18, 12, 10),
		Spread: Degrees(4.0), SpreadMax: Degrees(4.0), Recoil: Degrees(2.0), RecoilMax: Degrees(4.0),
	},
	// One rocket a magazine: 100 on a direct hit, and an explosion of 100
	// at its centre falling off to 0 at 4 m.
	{
		Name: "rocket", Kind: Projectile, FireInterval: PerMinute(50), Magazine: 1, ReloadTime: Seconds(1.0),
		Range: 150, Speed: 25, Damage: damage(100, 100, 100), SplashRadius: 4, SplashDamage: 100, Pellets: 1,
	},
	// The thesis's CS:GO experiment on tlc allowed only the P250 pistol
	// ([lee-thesis], chapter 4): a hitscan pistol. Its published figures
	// (docs/references.md, "The P250"): 400 rounds/min (lagkit has no
	// semi-automatic fire, so it fires every 150 ms while held),
	// 38 damage to the body, four times that to the head and three
	// quarters to the legs (rounded down), 13 rounds, a 2.2 s reload and
	// a range of 4096 units (78 m at 1.905 cm a unit). Spread and recoil
	// are the projectile pistol's, so the two pistols differ in how their
	// shots travel and in the P250's figures, and nothing was tuned to the
	// thesis's accuracies. Last in the table, so that adding it changed no
	// weapon's index.
	{
		Name: "p250", Kind: Hitscan, FireInterval: PerMinute(400), Magazine: 13, ReloadTime: Seconds(2.2),
		Range: 78, Damage: damage(152, 38, 28),
		Spread: Degrees(0.3), SpreadGrowth: Degrees(0.2), SpreadMax: Degrees(1.5),
		Recoil: Degrees(0.5), RecoilMax: Degrees(3.0), Pellets: 1,
	},
}

// damage returns the damage per part, both legs taking legs.
func damage(head, torso, legs int16) [game.NumParts]int16 {
	return [game.NumParts]int16{game.PartHead: head, game.PartTorso: torso, game.PartLegL: legs, game.PartLegR: legs}
}

// Degrees converts an angle in degrees, as weapons files give spread and
// recoil, to radians.
func Degrees(deg float64) float64 { return deg * math.Pi / 180 }

// PerMinute converts a rate of fire in rounds per minute to the interval
// between shots, rounded to whole microseconds as the wire carries it.
// rpm must be at least 1 (a minute's interval) to fit the wire.
func PerMinute(rpm float64) time.Duration { return Seconds(60 / rpm) }

// Seconds converts a time in seconds, within a few minutes, to a duration
// rounded to whole microseconds as the wire carries it.
func Seconds(s float64) time.Duration {
	return time.Duration(math.Round(s*1e6)) * time.Microsecond
}

// Defaults returns lagkit's built-in weapons, in the order rifle,
// sniper, pistol, shotgun, rocket, p250: the hitscan rifle of the ALC
// study (Rifle), a 40 rounds/min sniper, a projectile pistol, a
// nine-pellet shotgun, a rocket with area damage, and a hitscan pistol
// with the P250's figures.
func Defaults() []Weapon { return slices.Clone(defaultWeapons) }

// Select returns the weapons of all named by names, in that
// order: a match's loadout.
func Select(all []Weapon, names []string) ([]Weapon, error) {
	if len(names) == 0 || len(names) > MaxLoadout {
		return nil, fmt.Errorf("weapon: %d weapons selected, want 1 to %d", len(names), MaxLoadout)
	}
	out := make([]Weapon, 0, len(names))
	for i, name := range names {
		if slices.Index(names[:i], name) >= 0 {
			return nil, fmt.Errorf("weapon %q selected twice", name)
		}
		j := slices.IndexFunc(all, func(w Weapon) bool { return w.Name == name })
		if j < 0 {
			known := make([]string, len(all))
			for k := range all {
				known[k] = all[k].Name
			}
			return nil, fmt.Errorf("weapon: unknown weapon %q (known: %s)", name, strings.Join(known, ", "))
		}
		out = append(out, all[j])
	}
	return out, nil
}

// Loadout returns a checked copy of the weapons a player carries: the
// rifle alone when there are none, at most MaxLoadout, each valid. Server
// and clients both take their loadout through it, so they agree.
func Loadout(weapons []Weapon) ([]Weapon, error) {
	out := slices.Clone(weapons)
	if len(out) == 0 {
		out = []Weapon{Rifle()}
	}
	if len(out) > MaxLoadout {
		return nil, fmt.Errorf("%d weapons, want at most %d", len(out), MaxLoadout)
	}
	for i := range out {
		if err := out[i].Validate(); err != nil {
			return nil, fmt.Errorf("weapon %d: %w", i, err)
		}
	}
	return out, nil
}
