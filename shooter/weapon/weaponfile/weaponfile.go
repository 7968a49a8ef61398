// Package weaponfile reads weapons files: the TOML files that define the
// weapons a match can use (lagkit's own are weapon.Defaults, written
// out as weapons.toml in this folder). It lives apart from package game
// so that the shared movement and weapon code, which clients run as
// WebAssembly, carries no TOML parser.
//
// A weapons file is TOML: one [[weapon]] table per weapon, in loadout
// order. For example, the shipped rifle and rocket:
//
//	[[weapon]]
//	name = "rifle"            # required, 1 to 32 bytes, unique in the file
//	kind = "hitscan"          # required: "hitscan" or "projectile"
//	rpm = 600                 # required: rounds per minute, 1 to 6000
//	magazine = 30             # required: rounds, 1 to 255
//	reload_s = 2.0            # required: seconds, 0 to 30
//	range_m = 200             # required: metres, up to 4000
//	damage = { head = 50, torso = 25, legs = 25 }  # required, 0 to 1000 each
//	spread_deg = 0.11459156   # half-angle of the shot cone (default 0)
//	spread_growth_deg = 0.085943669  # added per shot of a burst (default 0)
//	spread_max_deg = 1.1459156  # cap (default spread_deg; required with growth)
//	recoil_deg = 0.17188734   # aim raised per shot of a burst (default 0)
//	recoil_max_deg = 1.7188734  # cap (required with recoil_deg)
//	pellets = 1               # rays or projectiles per shot, 1 to 32 (default 1)
//
//	[[weapon]]
//	name = "rocket"
//	kind = "projectile"
//	rpm = 50
//	magazine = 1
//	reload_s = 1.0
//	range_m = 150             # a projectile expires after flying this far
//	speed_mps = 25            # required for a projectile: 1 to 2000
//	damage = { head = 100, torso = 100, legs = 100 }  # a direct hit
//	splash_radius_m = 4       # explosion radius, 0 to 50 (default 0: none)
//	splash_damage = 100       # at the centre, falling off linearly to 0 at the radius
//
// Angles are in degrees and converted to radians (weapon.Degrees); rpm
// becomes the fire interval (weapon.PerMinute) and reload_s the reload time
// (weapon.Seconds), both rounded to whole microseconds as the wire carries
// them. A projectile flies in a straight
// line from the eye, simulated by the server (see package server).
//
// Unknown keys and keys given twice are errors, and a file may be at
// most 256 KiB (MaxSize). An error names the file, line and column, the
// field and the problem:
//
//	weapons.toml:12:1: weapon[2].pellets: 0, want 1 to 32
//	weapons.toml:5:3: weapon[1].rpm: missing
package weaponfile

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/internal/cfgfile"
	"github.com/lagkit/lagkit/shooter/weapon"
)

// MaxSize is the largest weapons file read, in bytes: weapon.MaxLoadout
// weapons of a few hundred bytes each, with room for comments.
const MaxSize = 256 << 10

var kind = cfgfile.Kind{Name: "weapons file", MaxSize: MaxSize}

// Load reads and checks the weapons file at path.
func Load(path string) ([]weapon.Weapon, error) {
	data, err := kind.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// Parse parses and checks a weapons file; filename names it in errors,
// which are all *cfgfile.Error.
func Parse(filename string, data []byte) ([]weapon.Weapon, error) {
	var f weaponsFile
	doc, err := kind.DecodeTOML(filename, data, &f)
	if err != nil {
		return nil, err
	}
	switch {
	case len(f.Weapon) == 0:
		return nil, doc.Errorf("weapon", "no [[weapon]] tables")
	case len(f.Weapon) > weapon.MaxLoadout:
		return nil, doc.Errorf(fmt.Sprintf("weapon[%d]", weapon.MaxLoadout), "more than %d weapons", weapon.MaxLoadout)
	}
	out := make([]weapon.Weapon, 0, len(f.Weapon))
	for i := range f.Weapon {
		at := func(field string) string {
			if field == "" {
				return fmt.Sprintf("weapon[%d]", i)
			}
			return fmt.Sprintf("weapon[%d].%s", i, field)
		}
		w, err := f.Weapon[i].weapon()
		if err != nil {
			return nil, doc.Errorf(at(err.field), "%s", err.problem)
		}
		if err := w.Validate(); err != nil {
			var we *weapon.Error
			if errors.As(err, &we) {
				return nil, doc.Errorf(at(we.Field), "%s", we.Problem)
			}
			return nil, doc.Errorf(at(""), "%v", err)
		}
		if j := slices.IndexFunc(out, func(o weapon.Weapon) bool { return o.Name == w.Name }); j >= 0 {
			return nil, doc.Errorf(at("name"), "%q is already the name of weapon[%d]", w.Name, j)
		}
		out = append(out, w)
	}
	return out, nil
}

// weaponsFile is a weapons file as decoded. Pointers tell a missing field
// from a zero one.
type weaponsFile struct {
	Weapon []fileWeapon `toml:"weapon"`
}

type fileWeapon struct {
	Name            *string     `toml:"name"`
	Kind            *string     `toml:"kind"`
	RPM             *float64    `toml:"rpm"`
	Magazine        *int64      `toml:"magazine"`
	ReloadS         *float64    `toml:"reload_s"`
	RangeM          *float64    `toml:"range_m"`
	Damage          *fileDamage `toml:"damage"`
	SpreadDeg       float64     `toml:"spread_deg"`
	SpreadGrowthDeg float64     `toml:"spread_growth_deg"`
	SpreadMaxDeg    *float64    `toml:"spread_max_deg"`
	RecoilDeg       float64     `toml:"recoil_deg"`
	RecoilMaxDeg    *float64    `toml:"recoil_max_deg"`
	Pellets         *int64      `toml:"pellets"`
	SpeedMPS        *float64    `toml:"speed_mps"`
	SplashRadiusM   float64     `toml:"splash_radius_m"`
	SplashDamage    int64       `toml:"splash_damage"`
}

type fileDamage struct {
	Head  *int64 `toml:"head"`
	Torso *int64 `toml:"torso"`
	Legs  *int64 `toml:"legs"`
}

// fieldError is a problem with one field of a weapon table ("" for the
// table itself).
type fieldError struct{ field, problem string }

func missing(field string) *fieldError { return &fieldError{field, "missing"} }

// checkInt reports v outside [lo, hi]; the integer fields are checked
// before conversion so that no value wraps into range.
func checkInt(field string, v, lo, hi int64) *fieldError {
	if v < lo || v > hi {
		return &fieldError{field, fmt.Sprintf("%d, want %d to %d", v, lo, hi)}
	}
	return nil
}

// weapon converts the table to a Weapon; Validate checks the rest.
func (e *fileWeapon) weapon() (weapon.Weapon, *fieldError) {
	var w weapon.Weapon
	switch {
	case e.Name == nil:
		return w, missing("name")
	case e.Kind == nil:
		return w, missing("kind")
	case e.RPM == nil:
		return w, missing("rpm")
	case e.Magazine == nil:
		return w, missing("magazine")
	case e.ReloadS == nil:
		return w, missing("reload_s")
	case e.RangeM == nil:
		return w, missing("range_m")
	case e.Damage == nil:
		return w, missing("damage")
	case e.Damage.Head == nil:
		return w, missing("damage.head")
	case e.Damage.Torso == nil:
		return w, missing("damage.torso")
	case e.Damage.Legs == nil:
		return w, missing("damage.legs")
	case e.SpreadGrowthDeg != 0 && e.SpreadMaxDeg == nil:
		return w, &fieldError{"spread_max_deg", "missing (spread_growth_deg needs a cap)"}
	case e.RecoilDeg != 0 && e.RecoilMaxDeg == nil:
		return w, &fieldError{"recoil_max_deg", "missing (recoil_deg needs a cap)"}
	}
	w.Name = *e.Name
	switch *e.Kind {
	case "hitscan":
		w.Kind = weapon.Hitscan
	case "projectile":
		w.Kind = weapon.Projectile
		if e.SpeedMPS == nil {
			return w, missing("speed_mps")
		}
	default:
		return w, &fieldError{"kind", fmt.Sprintf("%q, want hitscan or projectile", *e.Kind)}
	}
	if rpm := *e.RPM; !(rpm >= 1 && rpm <= weapon.MaxRPM) {
		return w, &fieldError{"rpm", fmt.Sprintf("%v, want 1 to %d", rpm, weapon.MaxRPM)}
	}
	if r := *e.ReloadS; !(r >= 0 && r <= weapon.MaxReloadTime.Seconds()) {
		return w, &fieldError{"reload_s", fmt.Sprintf("%v, want 0 to %v", r, weapon.MaxReloadTime.Seconds())}
	}
	for _, c := range []struct {
		field  string
		v      int64
		lo, hi int64
	}{
		{"magazine", *e.Magazine, 1, math.MaxUint8},
		{"damage.head", *e.Damage.Head, 0, weapon.MaxDamage},
		{"damage.torso", *e.Damage.Torso, 0, weapon.MaxDamage},
		{"damage.legs", *e.Damage.Legs, 0, weapon.MaxDamage},
		{"splash_damage", e.SplashDamage, 0, weapon.MaxDamage},
	} {
		if err := checkInt(c.field, c.v, c.lo, c.hi); err != nil {
			return w, err
		}
	}
	w.FireInterval = weapon.PerMinute(*e.RPM)
	w.ReloadTime = weapon.Seconds(*e.ReloadS)
	w.Magazine = uint8(*e.Magazine)
	legs := int16(*e.Damage.Legs)
	w.Damage = [game.NumParts]int16{
		game.PartHead: int16(*e.Damage.Head), game.PartTorso: int16(*e.Damage.Torso),
		game.PartLegL: legs, game.PartLegR: legs,
	}
	w.Range = *e.RangeM
	w.Spread, w.SpreadGrowth = weapon.Degrees(e.SpreadDeg), weapon.Degrees(e.SpreadGrowthDeg)
	w.SpreadMax = w.Spread
	if e.SpreadMaxDeg != nil {
		w.SpreadMax = weapon.Degrees(*e.SpreadMaxDeg)
	}
	w.Recoil = weapon.Degrees(e.RecoilDeg)
	if e.RecoilMaxDeg != nil {
		w.RecoilMax = weapon.Degrees(*e.RecoilMaxDeg)
	}
	w.Pellets = 1
	if e.Pellets != nil {
		if err := checkInt("pellets", *e.Pellets, 1, weapon.MaxPellets); err != nil {
			return w, err
		}
		w.Pellets = int(*e.Pellets)
	}
	if e.SpeedMPS != nil {
		w.Speed = *e.SpeedMPS
	}
	w.SplashRadius = e.SplashRadiusM
	w.SplashDamage = int16(e.SplashDamage)
	return w, nil
}
