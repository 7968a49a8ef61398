package weaponfile

import (
	_ "embed"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/internal/cfgfile"
	"github.com/lagkit/lagkit/shooter/weapon"
)

//go:embed weapons.toml
var shipped []byte

// TestShippedFileIsTheBuiltInTable checks that weapons.toml, the example
// users copy, says exactly what weapon.Defaults holds, bit for bit.
func TestShippedFileIsTheBuiltInTable(t *testing.T) {
	ws, err := Parse("weapons.toml", shipped)
	if err != nil {
		t.Fatal(err)
	}
	def := weapon.Defaults()
	if len(ws) != len(def) {
		t.Fatalf("the file has %d weapons, the table %d", len(ws), len(def))
	}
	for i := range ws {
		if ws[i] != def[i] {
			t.Errorf("weapon %d:\nfile  %+v\ntable %+v", i, ws[i], def[i])
		}
	}
}

const minimal = `[[weapon]]
name = "rifle"
kind = "hitscan"
rpm = 600
magazine = 30
reload_s = 2.0
range_m = 200
damage = { head = 50, torso = 25, legs = 25 }
`

func TestParseErrors(t *testing.T) {
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
`, `w.toml:1:3: weapon[0].rpm: missing`},
		{"missing name", "[[weapon]]\nkind = \"hitscan\"\n", `w.toml:1:3: weapon[0].name: missing`},
		{"missing damage part", strings.Replace(minimal, ", legs = 25", "", 1), `w.toml:8:1: weapon[0].damage.legs: missing`},
		{"missing damage part, table", strings.Replace(minimal, "damage = { head = 50, torso = 25, legs = 25 }", "[weapon.damage]\nhead = 50\nlegs = 25", 1),
			`w.toml:8:2: weapon[0].damage.torso: missing`},
		{"missing speed", minimal + "[[weapon]]\nname = \"rocket\"\nkind = \"projectile\"\nrpm = 50\nmagazine = 1\nreload_s = 1\nrange_m = 150\ndamage = { head = 100, torso = 100, legs = 100 }\n",
			`w.toml:9:3: weapon[1].speed_mps: missing`},
		{"growth without a cap", minimal + "spread_growth_deg = 0.1\n", `w.toml:1:3: weapon[0].spread_max_deg: missing (spread_growth_deg needs a cap)`},
		{"unknown field", minimal + "colour = \"red\"\n", `w.toml:9:1: weapon[0].colour: unknown field`},
		{"unknown damage part", strings.Replace(minimal, "legs = 25", "legs = 25, toes = 5", 1), `w.toml:8:46: weapon[0].damage.toes: unknown field (want head, torso or legs)`},
		{"unknown top-level field", "version = 2\n" + minimal, `w.toml:1:1: version: unknown field (the only one here is weapon)`},
		{"unknown kind", strings.Replace(minimal, `"hitscan"`, `"laser"`, 1), `w.toml:3:1: weapon[0].kind: "laser", want hitscan or projectile`},
		{"bad value", minimal + "pellets = 0\n", `w.toml:9:1: weapon[0].pellets: 0, want 1 to 32`},
		{"bad rpm", strings.Replace(minimal, "rpm = 600", "rpm = 0", 1), `w.toml:4:1: weapon[0].rpm: 0, want 1 to 6000`},
		{"magazine that would wrap", strings.Replace(minimal, "magazine = 30", "magazine = 286", 1), `w.toml:5:1: weapon[0].magazine: 286, want 1 to 255`},
		{"negative damage", strings.Replace(minimal, "head = 50", "head = -5", 1), `w.toml:8:12: weapon[0].damage.head: -5, want 0 to 1000`},
		{"cone too wide", minimal + "spread_deg = 50\n", `w.toml:9:1: weapon[0].spread_deg: 50, want 0 to under 45`},
		{"cap below the start", minimal + "spread_deg = 2\nspread_max_deg = 1\n", `w.toml:10:1: weapon[0].spread_max_deg: 1, want spread_deg (2) to under 45`},
		{"hitscan with a speed", minimal + "speed_mps = 60\n", `w.toml:9:1: weapon[0].speed_mps: 60 for a hitscan weapon, want none`},
		{"hitscan that explodes", minimal + "splash_radius_m = 4\n", `w.toml:9:1: weapon[0].splash_radius_m: 4 for a hitscan weapon, want none (only projectiles explode)`},
		{"wrong type", strings.Replace(minimal, "rpm = 600", `rpm = "fast"`, 1), `w.toml:4:1: weapon[0].rpm: want a number, got a string`},
		{"float magazine", strings.Replace(minimal, "magazine = 30", "magazine = 30.5", 1), `w.toml:5:1: weapon[0].magazine: 30.5 is not an integer`},
		{"weapon not a table", "weapon = 3\n", `w.toml:1:1: weapon: want an array, got an integer`},
		{"duplicate name", minimal + "\n" + minimal, `w.toml:11:1: weapon[1].name: "rifle" is already the name of weapon[0]`},
		{"duplicate key", minimal + "rpm = 700\n", `w.toml:9:1: weapon[0].rpm: given twice (first on line 4)`},
		{"syntax error", strings.Replace(minimal, `name = "rifle"`, `name = "rifle`, 1), `w.toml:2:14: weapon[0].name: basic strings cannot have new lines`},
		{"truncated", minimal[:len(minimal)-20], `w.toml:8:26: weapon[0].damage: unexpected end of file (expected '=' after key)`},
		{"integer out of range", strings.Replace(minimal, "magazine = 30", "magazine = 99999999999999999999", 1),
			`w.toml:5:1: weapon[0].magazine: 99999999999999999999 is out of range (-9223372036854775808 to 9223372036854775807)`},
		{"empty file", "# nothing\n", `w.toml:1:1: weapon: no [[weapon]] tables`},
		{"too large", strings.Repeat("#", MaxSize+1), `w.toml: larger than 256 KiB, the limit for a weapons file`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws, err := Parse("w.toml", []byte(tt.file))
			var e *cfgfile.Error
			if !errors.As(err, &e) || err.Error() != tt.want {
				t.Fatalf("got %v (%d weapons)\nwant %s", err, len(ws), tt.want)
			}
		})
	}
}

func TestParseDefaults(t *testing.T) {
	ws, err := Parse("w.toml", []byte(minimal+"spread_deg = 1\nrecoil_deg = 0.5\nrecoil_max_deg = 2\n"))
	if err != nil {
		t.Fatal(err)
	}
	w := ws[0]
	rad := math.Pi / 180
	if w.Pellets != 1 || w.SpreadMax != w.Spread || w.Spread != rad || w.Recoil != 0.5*rad || w.RecoilMax != 2*rad ||
		w.SplashRadius != 0 || w.Speed != 0 || w.Damage[game.PartLegL] != 25 || w.Damage[game.PartLegR] != 25 {
		t.Fatalf("defaults not applied: %+v", w)
	}
	// rpm that does not divide a minute rounds to whole microseconds.
	ws, err = Parse("w.toml", []byte(strings.Replace(minimal, "rpm = 600", "rpm = 7", 1)))
	if err != nil || ws[0].FireInterval != 8571429*time.Microsecond {
		t.Fatalf("7 rounds/min: %v, %v; want 8.571429s", ws[0].FireInterval, err)
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "mine.toml")
	if err := os.WriteFile(path, []byte(minimal+"pellets = 40\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path); err == nil || err.Error() != path+":9:1: weapon[0].pellets: 40, want 1 to 32" {
		t.Fatalf("got %v, want the path, line, field and problem", err)
	}
	if err := os.WriteFile(path, shipped, 0o644); err != nil {
		t.Fatal(err)
	}
	ws, err := Load(path)
	if err != nil || len(ws) != 6 || ws[5] != weapon.Defaults()[5] {
		t.Fatalf("loading the shipped file: %d weapons, %v", len(ws), err)
	}
	if _, err := Load(filepath.Join(dir, "absent.toml")); err == nil {
		t.Fatal("loading a missing file succeeded")
	}
}

// FuzzParse parses arbitrary files: Parse must not panic,
// and every weapon it accepts must validate, with unique names.
func FuzzParse(f *testing.F) {
	f.Add(shipped)
	f.Add([]byte(minimal))
	f.Add([]byte(minimal + "[weapon.damage]\nhead = 1\n"))
	f.Add([]byte("[[weapon]]\nname = \"a\"\nkind = \"projectile\"\nspeed_mps = 1e400\n"))
	f.Add([]byte("weapon = [{name = \"x\"}]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ws, err := Parse("f.toml", data)
		if err != nil {
			var e *cfgfile.Error
			if !errors.As(err, &e) || e.File != "f.toml" {
				t.Fatalf("error %q is not an *cfgfile.Error naming the file", err)
			}
			return
		}
		if len(ws) == 0 || len(ws) > weapon.MaxLoadout {
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
