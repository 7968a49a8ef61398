package cfgfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// duration is a field filled from text, like the durations of scenario
// files.
type duration struct{ time.Duration }

func (d *duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("%q is not a duration such as 250ms or 2.5s", b)
	}
	d.Duration = v
	return nil
}

type testFile struct {
	Name   string       `json:"name" toml:"name"`
	Seed   uint8        `json:"seed" toml:"seed"`
	Player []testPlayer `json:"player" toml:"player"`
	Limits struct {
		Max int `json:"max" toml:"max"`
	} `json:"limits" toml:"limits"`
	Tags map[string]float64 `json:"tags" toml:"tags"`
}

type testPlayer struct {
	Name  string     `json:"name" toml:"name"`
	RTTms float64    `json:"rtt_ms" toml:"rtt_ms"`
	Pos   [3]float64 `json:"pos" toml:"pos"`
	Count *int       `json:"count" toml:"count"`
	At    duration   `json:"at" toml:"at"`
	Do    []struct {
		Fire int `json:"fire" toml:"fire"`
	} `json:"do" toml:"do"`
}

var testKind = Kind{Name: "test file", MaxSize: 4 << 10}

const goodJSON = `{
  "name": "x",
  "seed": 3,
  "player": [
    {"name": "a", "rtt_ms": 20, "pos": [0, 0, 0], "at": "1s"},
    {"name": "b", "rtt_ms": 250, "pos": [1, 2, 0], "count": 4, "do": [{"fire": 1}]}
  ],
  "limits": {"max": 5},
  "tags": {"k": 1.5}
}
`

const goodTOML = `name = "x"
seed = 3
tags = { k = 1.5 }

[limits]
max = 5

[[player]]
name = "a"
rtt_ms = 20
pos = [0, 0, 0]
at = "1s"

[[player]]
name = "b"
rtt_ms = 250
pos = [1, 2, 0]
count = 4
  [[player.do]]
  fire = 1
`

func decode(format, text string) (*testFile, *Doc, error) {
	var f testFile
	var d *Doc
	var err error
	if format == "json" {
		d, err = testKind.DecodeJSON("f."+format, []byte(text), &f)
	} else {
		d, err = testKind.DecodeTOML("f."+format, []byte(text), &f)
	}
	return &f, d, err
}

func TestDecodeGood(t *testing.T) {
	for _, format := range []string{"json", "toml"} {
		text := map[string]string{"json": goodJSON, "toml": goodTOML}[format]
		f, d, err := decode(format, text)
		if err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		if f.Name != "x" || f.Seed != 3 || len(f.Player) != 2 || f.Player[1].Pos != [3]float64{1, 2, 0} ||
			*f.Player[1].Count != 4 || f.Player[0].At.Duration != time.Second || f.Player[1].Do[0].Fire != 1 ||
			f.Limits.Max != 5 || f.Tags["k"] != 1.5 {
			t.Errorf("%s: decoded %+v", format, f)
		}
		// A problem found after decoding is placed at its key, or at the
		// nearest enclosing value the file has.
		want := map[string]string{"json": "f.json:6:29", "toml": "f.toml:16:1"}[format] + ": player[1].rtt_ms: 250 outside 0..200"
		if err = d.Errorf("player[1].rtt_ms", "%d outside 0..200", 250); err.Error() != want {
			t.Errorf("%s: %v, want %s", format, err, want)
		}
		if err = d.Locate(Problemf("rtt_ms", "%d outside 0..200", 250).Within("player[1].")); err.Error() != want {
			t.Errorf("%s: located problem %v, want %s", format, err, want)
		}
		if got := d.Line("player[0].count"); got != map[string]int{"json": 5, "toml": 8}[format] {
			t.Errorf("%s: a missing count placed on line %d, want its player's", format, got)
		}
	}
}

func TestDecodeErrors(t *testing.T) {
	tests := []struct {
		name, format, old, new, text, want string
	}{
		{name: "unknown field", format: "json", old: `"rtt_ms": 20,`, new: `"rtt_ms": 20, "colour": 1,`,
			want: `f.json:5:33: player[0].colour: unknown field (want name, rtt_ms, pos, count, at or do)`},
		{name: "unknown field", format: "toml", old: "rtt_ms = 20\n", new: "rtt_ms = 20\ncolour = 1\n",
			want: `f.toml:11:1: player[0].colour: unknown field (want name, rtt_ms, pos, count, at or do)`},
		{name: "unknown table", format: "toml", old: "[limits]", new: "[limitz]",
			want: `f.toml:5:2: limitz: unknown field (want name, seed, player, limits or tags)`},
		{name: "case differs", format: "json", old: `"seed": 3`, new: `"Seed": 3`,
			want: `f.json:3:3: Seed: unknown field (want name, seed, player, limits or tags)`},
		{name: "wrong type", format: "json", old: `"rtt_ms": 20`, new: `"rtt_ms": "fast"`,
			want: `f.json:5:29: player[0].rtt_ms: want a number, got a string`},
		{name: "wrong type", format: "toml", old: "rtt_ms = 20", new: `rtt_ms = "fast"`,
			want: `f.toml:10:1: player[0].rtt_ms: want a number, got a string`},
		{name: "table for a number", format: "toml", old: "[limits]", new: "[seed]",
			want: `f.toml:5:2: seed: want an integer, got a table`},
		{name: "fraction for an integer", format: "toml", old: "max = 5", new: "max = 5.5",
			want: `f.toml:6:1: limits.max: 5.5 is not an integer`},
		{name: "out of range", format: "json", old: `"seed": 3`, new: `"seed": 300`,
			want: `f.json:3:11: seed: 300 is out of range (0 to 255)`},
		{name: "out of range", format: "toml", old: "seed = 3", new: "seed = 0x1_00",
			want: `f.toml:2:1: seed: 0x1_00 is out of range (0 to 255)`},
		{name: "float out of range", format: "json", old: `"rtt_ms": 250`, new: `"rtt_ms": 1e999`,
			want: `f.json:6:29: player[1].rtt_ms: 1e999 is out of range`},
		{name: "short vector", format: "json", old: `[1, 2, 0]`, new: `[1, 2]`,
			want: `f.json:6:41: player[1].pos: want 3 values, got 2`},
		{name: "short vector", format: "toml", old: `[1, 2, 0]`, new: `[1, 2]`,
			want: `f.toml:17:1: player[1].pos: want 3 values, got 2`},
		{name: "string in vector", format: "toml", old: `[1, 2, 0]`, new: `[1, "2", 0]`,
			want: `f.toml:17:1: player[1].pos[1]: want a number, got a string`},
		{name: "bad text", format: "toml", old: `at = "1s"`, new: `at = "soon"`,
			want: `f.toml:12:1: player[0].at: "soon" is not a duration such as 250ms or 2.5s`},
		{name: "null", format: "json", old: `"seed": 3`, new: `"seed": null`,
			want: `f.json:3:11: seed: want an integer, got null`},
		{name: "duplicate key", format: "json", old: `"seed": 3,`, new: `"seed": 3, "seed": 4,`,
			want: `f.json:3:14: seed: given twice (first on line 3)`},
		{name: "duplicate key", format: "toml", old: "rtt_ms = 250\n", new: "rtt_ms = 250\nrtt_ms = 260\n",
			want: `f.toml:17:1: player[1].rtt_ms: given twice (first on line 16)`},
		{name: "duplicate table", format: "toml", old: "[limits]\nmax = 5\n", new: "[limits]\nmax = 5\n[limits]\n",
			want: `f.toml:7:2: limits: given twice (first on line 5)`},
		{name: "duplicate in inline table", format: "toml", old: "{ k = 1.5 }", new: "{ k = 1.5, k = 2 }",
			want: `f.toml:3:19: tags.k: given twice (first on line 3)`},
		{name: "truncated", format: "json", text: goodJSON[:150],
			want: `f.json:6:44: player[1].pos: unexpected end of file`},
		{name: "truncated", format: "toml", text: goodTOML[:len("name = \"x\"\nseed = ")],
			want: `f.toml:2:7: seed: unexpected end of file (expected value, not end of input)`},
		{name: "syntax", format: "json", old: `"seed": 3,`, new: `"seed": 3`,
			want: `f.json:4:3: invalid character '"' after object key:value pair`},
		{name: "trailing data", format: "json", text: goodJSON + "{}",
			want: `f.json:11:1: unexpected data after the end of the top-level value`},
		{name: "empty", format: "json", text: " \n", want: `f.json: empty file`},
		{name: "too large", format: "json", text: strings.Repeat(" ", 4<<10+1),
			want: `f.json: larger than 4 KiB, the limit for a test file`},
		{name: "too large", format: "toml", text: strings.Repeat("#", 4<<10+1),
			want: `f.toml: larger than 4 KiB, the limit for a test file`},
	}
	for _, tt := range tests {
		t.Run(tt.format+"/"+tt.name, func(t *testing.T) {
			text := tt.text
			if tt.old != "" {
				good := map[string]string{"json": goodJSON, "toml": goodTOML}[tt.format]
				if !strings.Contains(good, tt.old) {
					t.Fatalf("no %q in the good file", tt.old)
				}
				text = strings.Replace(good, tt.old, tt.new, 1)
			}
			_, _, err := decode(tt.format, text)
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v is not an *Error", err)
			}
			if got := err.Error(); got != tt.want {
				t.Errorf("error\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "big.json")
	if err := os.WriteFile(path, make([]byte, testKind.MaxSize+1), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := testKind.ReadFile(path); err == nil || err.Error() != path+": larger than 4 KiB, the limit for a test file" {
		t.Errorf("reading a file one byte too large: %v", err)
	}
	if err := os.WriteFile(path, []byte(goodJSON), 0o644); err != nil {
		t.Fatal(err)
	}
	if data, err := testKind.ReadFile(path); err != nil || string(data) != goodJSON {
		t.Errorf("reading a good file: %v", err)
	}
	missing := filepath.Join(dir, "absent.toml")
	if _, err := testKind.ReadFile(missing); err == nil || err.Error() != missing+": no such file or directory" {
		t.Errorf("reading a missing file: %v", err)
	}
}

func TestSize(t *testing.T) {
	for n, want := range map[int]string{1 << 20: "1 MiB", 16 << 20: "16 MiB", 256 << 10: "256 KiB", 1000: "1000 bytes", 0: "0 bytes"} {
		if got := Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
}

// FuzzDecode checks that neither decoder panics on any input, that every
// error is an *Error naming the file, and that an error located in the
// file lies within it.
func FuzzDecode(f *testing.F) {
	f.Add(true, []byte(goodJSON))
	f.Add(false, []byte(goodTOML))
	f.Add(true, []byte(`{"player": [{"pos": [1e999, "x"]}], "tags": {"a": null}}`))
	f.Add(false, []byte("[[player.do]]\nfire = 1\n[player]\n"))
	f.Fuzz(func(t *testing.T, isJSON bool, data []byte) {
		var v testFile
		var err error
		if isJSON {
			_, err = testKind.DecodeJSON("fuzz", data, &v)
		} else {
			_, err = testKind.DecodeTOML("fuzz", data, &v)
		}
		if err == nil {
			return
		}
		var e *Error
		if !errors.As(err, &e) || e.File != "fuzz" {
			t.Fatalf("error %v (%T) is not an *Error naming the file", err, err)
		}
		if lines := strings.Count(string(data), "\n") + 1; e.Line > lines || e.Line < 0 {
			t.Fatalf("error %v on line %d of %d", err, e.Line, lines)
		}
	})
}

// TestUnknownFieldSuggests checks that a key misspelt among many is
// answered with the key it most likely means, and only then.
func TestUnknownFieldSuggests(t *testing.T) {
	many := []string{"name", "map", "mode", "duration", "tick_rate", "seats", "bots", "bot_skill", "policy", "delay"}
	cases := []struct{ key, want string }{
		{"duraton", "unknown field (did you mean duration?)"},
		{"tickrate", "unknown field (did you mean tick_rate?)"},
		{"Seats", "unknown field (did you mean seats?)"},
		{"zzz", "unknown field"},
		{"mo", "unknown field"}, // map and mode are as near
		{"mod", "unknown field (did you mean mode?)"},
		{"colour", "unknown field"},
	}
	for _, tc := range cases {
		if got := unknownField(tc.key, many); got != tc.want {
			t.Errorf("unknownField(%q) = %q, want %q", tc.key, got, tc.want)
		}
	}
	if got, want := unknownField("colour", many[:3]), "unknown field (want name, map or mode)"; got != want {
		t.Errorf("a short list: %q, want %q", got, want)
	}
}
