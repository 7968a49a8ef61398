package game

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
)

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
// Angles are in degrees and converted to radians; rpm becomes the fire
// interval and reload_s the reload time, both rounded to whole
// microseconds as the wire carries them. A projectile flies in a straight
// line from the eye, simulated by the server (see package server).

// Limits on a weapons file.
const (
	MaxWeaponsFileSize = 1 << 20 // bytes
	// MaxWeapons bounds the weapons of a file and of a loadout.
	MaxWeapons = 32
)

//go:embed weapons.toml
var shippedWeapons []byte

// defaultWeapons are the shipped weapons. The file is part of the
// package and its tests parse it, so failing here is a build error, not
// bad input.
var defaultWeapons = func() []Weapon {
	ws, err := ParseWeapons("weapons.toml", shippedWeapons)
	if err != nil {
		panic(err)
	}
	return ws
}()

// DefaultWeapons returns lagkit's shipped weapons (game/weapons.toml), in
// the order rifle, sniper, pistol, shotgun, rocket: the hitscan rifle of
// the ALC study (Rifle), a 40 rounds/min sniper, a projectile pistol, a
// nine-pellet shotgun, and a rocket with area damage.
func DefaultWeapons() []Weapon { return slices.Clone(defaultWeapons) }

// LoadWeapons reads and checks the weapons file at path.
func LoadWeapons(path string) ([]Weapon, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxWeaponsFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return ParseWeapons(path, data)
}

// ParseWeapons parses and checks a weapons file; filename names it in
// errors. An error names the file, the line and column when known, the
// weapon and field, and the problem, as in
//
//	weapons.toml:12:1: weapon[2] (shotgun).pellets: 0, want 1 to 32
//	weapons.toml:5:3: weapon[1] (sniper): missing field "rpm"
func ParseWeapons(filename string, data []byte) ([]Weapon, error) {
	if len(data) > MaxWeaponsFileSize {
		return nil, fmt.Errorf("%s: larger than %d bytes", filename, MaxWeaponsFileSize)
	}
	pos := scanWeaponsFile(data)
	var f weaponsFile
	dec := toml.NewDecoder(bytes.NewReader(data)).DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, pos.decodeError(filename, err)
	}
	switch {
	case len(f.Weapon) == 0:
		return nil, fmt.Errorf("%s: no [[weapon]] tables", filename)
	case len(f.Weapon) > MaxWeapons:
		return nil, pos.errorf(filename, MaxWeapons, "", "more than %d weapons", MaxWeapons)
	}
	out := make([]Weapon, 0, len(f.Weapon))
	for i := range f.Weapon {
		w, err := f.Weapon[i].weapon()
		if err != nil {
			return nil, pos.errorf(filename, i, err.Field, "%s", err.Problem)
		}
		if err := w.Validate(); err != nil {
			var we *WeaponError
			if errors.As(err, &we) {
				return nil, pos.errorf(filename, i, we.Field, "%s", we.Problem)
			}
			return nil, pos.errorf(filename, i, "", "%v", err)
		}
		if j := slices.IndexFunc(out, func(o Weapon) bool { return o.Name == w.Name }); j >= 0 {
			return nil, pos.errorf(filename, i, "name", "duplicate of weapon[%d]", j)
		}
		out = append(out, w)
	}
	return out, nil
}

// SelectWeapons returns the weapons of all named by names, in that
// order: a match's loadout.
func SelectWeapons(all []Weapon, names []string) ([]Weapon, error) {
	if len(names) == 0 || len(names) > MaxWeapons {
		return nil, fmt.Errorf("game: %d weapons selected, want 1 to %d", len(names), MaxWeapons)
	}
	out := make([]Weapon, 0, len(names))
	for i, name := range names {
		if slices.Index(names[:i], name) >= 0 {
			return nil, fmt.Errorf("game: weapon %q selected twice", name)
		}
		j := slices.IndexFunc(all, func(w Weapon) bool { return w.Name == name })
		if j < 0 {
			known := make([]string, len(all))
			for k := range all {
				known[k] = all[k].Name
			}
			return nil, fmt.Errorf("game: unknown weapon %q (known: %s)", name, strings.Join(known, ", "))
		}
		out = append(out, all[j])
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
type fieldError struct{ Field, Problem string }

func missing(field string) *fieldError {
	parent, name := "", field
	if i := strings.LastIndexByte(field, '.'); i >= 0 {
		parent, name = field[:i], field[i+1:]
	}
	return &fieldError{parent, fmt.Sprintf("missing field %q", name)}
}

// checkInt reports v outside [lo, hi]; the integer fields are checked
// before conversion so that no value wraps into range.
func checkInt(field string, v, lo, hi int64) *fieldError {
	if v < lo || v > hi {
		return &fieldError{field, fmt.Sprintf("%d, want %d to %d", v, lo, hi)}
	}
	return nil
}

// weapon converts the table to a Weapon; Validate checks the rest.
func (e *fileWeapon) weapon() (Weapon, *fieldError) {
	var w Weapon
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
		return w, &fieldError{"", `missing field "spread_max_deg" (spread_growth_deg needs a cap)`}
	case e.RecoilDeg != 0 && e.RecoilMaxDeg == nil:
		return w, &fieldError{"", `missing field "recoil_max_deg" (recoil_deg needs a cap)`}
	}
	w.Name = *e.Name
	switch *e.Kind {
	case "hitscan":
		w.Kind = Hitscan
	case "projectile":
		w.Kind = Projectile
		if e.SpeedMPS == nil {
			return w, missing("speed_mps")
		}
	default:
		return w, &fieldError{"kind", fmt.Sprintf("%q, want hitscan or projectile", *e.Kind)}
	}
	if rpm := *e.RPM; !(rpm >= 1 && rpm <= MaxRPM) {
		return w, &fieldError{"rpm", fmt.Sprintf("%v, want 1 to %d", rpm, MaxRPM)}
	}
	if r := *e.ReloadS; !(r >= 0 && r <= MaxReloadTime.Seconds()) {
		return w, &fieldError{"reload_s", fmt.Sprintf("%v, want 0 to %v", r, MaxReloadTime.Seconds())}
	}
	for _, c := range []struct {
		field  string
		v      int64
		lo, hi int64
	}{
		{"magazine", *e.Magazine, 1, math.MaxUint8},
		{"damage.head", *e.Damage.Head, 0, MaxDamage},
		{"damage.torso", *e.Damage.Torso, 0, MaxDamage},
		{"damage.legs", *e.Damage.Legs, 0, MaxDamage},
		{"splash_damage", e.SplashDamage, 0, MaxDamage},
	} {
		if err := checkInt(c.field, c.v, c.lo, c.hi); err != nil {
			return w, err
		}
	}
	w.FireInterval = micros(60 / *e.RPM)
	w.ReloadTime = micros(*e.ReloadS)
	w.Magazine = uint8(*e.Magazine)
	legs := int16(*e.Damage.Legs)
	w.Damage = [NumParts]int16{PartHead: int16(*e.Damage.Head), PartTorso: int16(*e.Damage.Torso), PartLegL: legs, PartLegR: legs}
	w.Range = *e.RangeM
	rad := func(deg float64) float64 { return deg * math.Pi / 180 }
	w.Spread, w.SpreadGrowth = rad(e.SpreadDeg), rad(e.SpreadGrowthDeg)
	w.SpreadMax = w.Spread
	if e.SpreadMaxDeg != nil {
		w.SpreadMax = rad(*e.SpreadMaxDeg)
	}
	w.Recoil = rad(e.RecoilDeg)
	if e.RecoilMaxDeg != nil {
		w.RecoilMax = rad(*e.RecoilMaxDeg)
	}
	w.Pellets = 1
	if e.Pellets != nil {
		if err := checkInt("pellets", *e.Pellets, 1, MaxPellets); err != nil {
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

// micros converts seconds, already checked to be within a few minutes, to
// a duration rounded to whole microseconds.
func micros(seconds float64) time.Duration {
	return time.Duration(math.Round(seconds*1e6)) * time.Microsecond
}

// filePos is where a key or table header of a weapons file starts.
type filePos struct {
	line, col int
	weapon    int    // index of the [[weapon]] table it is in, -1 outside
	path      string // dotted key within the weapon ("rpm", "damage.head")
}

// weaponsFilePositions locates the weapons, their names and their keys
// in a weapons file, so that errors found after decoding can point at the
// line. TOML decoding does not report where a value came from, so the
// file is scanned once more with go-toml's parser.
type weaponsFilePositions struct {
	lines   []int     // offset of each line's start
	headers []filePos // by weapon index
	names   []string  // by weapon index, "" when not given as a string
	keys    []filePos // in file order
}

func scanWeaponsFile(data []byte) *weaponsFilePositions {
	ps := &weaponsFilePositions{lines: []int{0}}
	for i, c := range data {
		if c == '\n' {
			ps.lines = append(ps.lines, i+1)
		}
	}
	var p unstable.Parser
	p.Reset(data)
	weapon, prefix := -1, ""
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.ArrayTable, unstable.Table:
			keys, at := ps.keyPath(e)
			weapon, prefix = -1, ""
			if len(keys) == 0 || keys[0] != "weapon" || len(ps.headers) == 0 && e.Kind == unstable.Table {
				continue
			}
			if e.Kind == unstable.ArrayTable && len(keys) == 1 {
				at.weapon = len(ps.headers)
				ps.headers = append(ps.headers, at)
				ps.names = append(ps.names, "")
				weapon = at.weapon
				continue
			}
			// [weapon.damage] (or deeper): a table of the last weapon.
			at.weapon, at.path = len(ps.headers)-1, strings.Join(keys[1:], ".")
			ps.keys = append(ps.keys, at)
			weapon, prefix = at.weapon, at.path+"."
		case unstable.KeyValue:
			ps.keyValue(e, weapon, prefix)
		}
	}
	return ps
}

// keyValue records key-value e, and those of an inline table it holds,
// under prefix in weapon.
func (ps *weaponsFilePositions) keyValue(e *unstable.Node, weapon int, prefix string) {
	keys, at := ps.keyPath(e)
	at.weapon, at.path = weapon, prefix+strings.Join(keys, ".")
	ps.keys = append(ps.keys, at)
	v := e.Value()
	if weapon >= 0 && at.path == "name" && v.Kind == unstable.String {
		ps.names[weapon] = string(v.Data)
	}
	if v.Kind == unstable.InlineTable {
		it := v.Children()
		for it.Next() {
			if n := it.Node(); n.Kind == unstable.KeyValue {
				ps.keyValue(n, weapon, at.path+".")
			}
		}
	}
}

// keyPath returns the parts of node e's key and where the key starts.
func (ps *weaponsFilePositions) keyPath(e *unstable.Node) ([]string, filePos) {
	var keys []string
	var at filePos
	it := e.Key()
	for it.Next() {
		k := it.Node()
		if keys == nil {
			// The line is the last whose start is at or before the key
			// (the parser's own Shape counts lines from the file's start
			// for every call, quadratic in the keys of a file).
			off := int(k.Raw.Offset)
			line, _ := slices.BinarySearch(ps.lines, off+1)
			at.line, at.col = line, off-ps.lines[line-1]+1
		}
		keys = append(keys, string(k.Data))
	}
	return keys, at
}

// label names weapon i and field as errors show them: "weapon[2]
// (shotgun).pellets".
func (ps *weaponsFilePositions) label(i int, field string) string {
	s := fmt.Sprintf("weapon[%d]", i)
	if i < len(ps.names) && ps.names[i] != "" {
		s += fmt.Sprintf(" (%s)", ps.names[i])
	}
	if field != "" {
		s += "." + field
	}
	return s
}

// errorf returns an error about field of weapon i (the weapon itself for
// ""), at the field's key if the file has it, else at the weapon's
// header.
func (ps *weaponsFilePositions) errorf(filename string, i int, field, format string, args ...any) error {
	where := filename
	at := slices.IndexFunc(ps.keys, func(k filePos) bool { return k.weapon == i && k.path == field && field != "" })
	switch {
	case at >= 0:
		where = fmt.Sprintf("%s:%d:%d", filename, ps.keys[at].line, ps.keys[at].col)
	case i < len(ps.headers):
		where = fmt.Sprintf("%s:%d:%d", filename, ps.headers[i].line, ps.headers[i].col)
	}
	return fmt.Errorf("%s: %s: %s", where, ps.label(i, field), fmt.Sprintf(format, args...))
}

// tomlType matches go-toml's type mismatch message, capturing the TOML
// type found.
var tomlType = regexp.MustCompile(`cannot decode TOML (\w+) into`)

// wantType describes what each key holds, for type mismatch errors.
var wantType = map[string]string{
	"weapon": "[[weapon]] tables",
	"name":   "a string", "kind": "a string",
	"magazine": "an integer", "pellets": "an integer", "splash_damage": "an integer",
	"damage":      "a table such as { head = 50, torso = 25, legs = 25 }",
	"damage.head": "an integer", "damage.torso": "an integer", "damage.legs": "an integer",
}

// decodeError rewrites an error of the TOML decoder to name the file,
// position, weapon and field.
func (ps *weaponsFilePositions) decodeError(filename string, err error) error {
	var sm *toml.StrictMissingError
	if errors.As(err, &sm) && len(sm.Errors) > 0 {
		row, col := sm.Errors[0].Position()
		return ps.at(filename, row, col, "unknown field")
	}
	var de *toml.DecodeError
	if !errors.As(err, &de) {
		return fmt.Errorf("%s: %v", filename, err)
	}
	row, col := de.Position()
	msg := strings.TrimPrefix(de.Error(), "toml: ")
	if m := tomlType.FindStringSubmatch(msg); m != nil {
		want := "a number"
		if k := ps.keyAt(row, col); k != nil && wantType[k.path] != "" {
			want = wantType[k.path]
		}
		msg = fmt.Sprintf("a TOML %s, want %s", m[1], want)
	}
	return ps.at(filename, row, col, msg)
}

// at returns an error at line row, column col, naming the key there.
func (ps *weaponsFilePositions) at(filename string, row, col int, problem string) error {
	where := fmt.Sprintf("%s:%d:%d", filename, row, col)
	k := ps.keyAt(row, col)
	switch {
	case k == nil:
		return fmt.Errorf("%s: %s", where, problem)
	case k.weapon < 0:
		return fmt.Errorf("%s: %s: %s", where, k.path, problem)
	}
	return fmt.Errorf("%s: %s: %s", where, ps.label(k.weapon, k.path), problem)
}

// keyAt returns the last key starting at or before row and col on row:
// the key whose key-value holds that position.
func (ps *weaponsFilePositions) keyAt(row, col int) *filePos {
	var found *filePos
	for i := range ps.keys {
		if k := &ps.keys[i]; k.line == row && k.col <= col {
			found = k
		}
	}
	return found
}

// Loadout returns a checked copy of the weapons a player carries: the
// rifle alone when there are none, at most MaxWeapons, each valid. Server
// and clients both take their loadout through it, so they agree.
func Loadout(weapons []Weapon) ([]Weapon, error) {
	out := slices.Clone(weapons)
	if len(out) == 0 {
		out = []Weapon{Rifle()}
	}
	if len(out) > MaxWeapons {
		return nil, fmt.Errorf("%d weapons, want at most %d", len(out), MaxWeapons)
	}
	for i := range out {
		if err := out[i].Validate(); err != nil {
			return nil, fmt.Errorf("weapon %d: %w", i, err)
		}
	}
	return out, nil
}
