package world

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// validMap is a small valid map; each broken case below changes one thing
// in it. Its lines are numbered to the right for reading the cases.
const validMap = `{
  "name": "test",
  "bounds": {"min": [-10, -10, 0], "max": [10, 10, 5]},
  "boxes": [
    {"kind": "wall", "min": [-10, -10, 0], "max": [10, -9.5, 3]},
    {"kind": "cover", "min": [0, 0, 0], "max": [2, 1, 1]},
    {"kind": "platform", "min": [4, 4, 0], "max": [8, 8, 1.5]}
  ],
  "spawns": [
    {"team": 0, "pos": [-5, -5, 0], "yaw": 0},
    {"team": 1, "pos": [6, 6, 1.5], "yaw": 3}
  ],
  "objectives": [
    {"kind": "flag", "name": "flag-0", "team": 0, "pos": [-5, 5, 0]},
    {"kind": "point", "name": "A", "team": -1, "pos": [1, 0.5, 1]}
  ]
}
`

// Line numbers in validMap.
const (
	lineName   = 2
	lineBounds = 3
	lineBox0   = 5
	lineBox1   = 6
	lineBox2   = 7
	lineSpawns = 9
	lineSpawn0 = 10
	lineSpawn1 = 11
	lineObj0   = 14
	lineObj1   = 15
)

func TestParseValid(t *testing.T) {
	m, err := Parse("x.json", []byte(validMap))
	if err != nil {
		t.Fatal(err)
	}
	if m.Name != "test" || len(m.Boxes) != 3 || len(m.Spawns) != 2 || len(m.Objectives) != 2 {
		t.Fatalf("parsed %+v", m)
	}
	// The team 1 spawn stands on the platform with its capsule touching
	// the platform top, and the point sits on the cover: both are allowed.
	if got := m.Spawns[1].Pos.Z; got != 1.5 {
		t.Errorf("spawn z = %v, want 1.5", got)
	}
	if got := m.Boxes[2]; got.Kind != Platform || got.Max.Z != 1.5 {
		t.Errorf("boxes[2] = %+v", got)
	}
}

// repeat returns n copies of item joined by commas. Replacing one of
// validMap's three boxes (two spawns, two objectives) by MaxBoxes-1 copies
// (MaxSpawns, MaxObjectives) makes one too many.
func repeat(item string, n int) string {
	return strings.TrimSuffix(strings.Repeat(item+",", n), ",")
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name     string
		old, new string // replace the first old in validMap with new
		data     string // or use this instead of validMap
		want     string // the whole message after "x.json:line:col: "
		line     int    // 0 when no line can be known
	}{
		// Syntax and type errors from encoding/json, located.
		{name: "missing comma", old: `"test",`, new: `"test"`,
			want: `invalid character '"' after object key:value pair`, line: lineBounds},
		{name: "truncated", data: validMap[:200], want: "boxes[1].max: unexpected end of file", line: 6},
		{name: "empty", data: "", want: "empty file"},
		{name: "trailing data", data: validMap + "{}", want: "unexpected data after the end of the top-level value", line: 18},
		{name: "not an object", data: "[1, 2]", want: "want an object, got an array", line: 1},
		{name: "unknown top-level field", old: `"name": "test",`, new: `"name": "test", "author": "me",`,
			want: "author: unknown field (want name, bounds, boxes, spawns or objectives)", line: lineName},
		{name: "unknown box field", old: `"kind": "cover",`, new: `"kind": "cover", "colour": "red",`,
			want: "boxes[1].colour: unknown field (want kind, min or max)", line: lineBox1},
		{name: "string for integer", old: `"team": 1,`, new: `"team": "1",`,
			want: "spawns[1].team: want an integer, got a string", line: lineSpawn1},
		{name: "fraction for integer", old: `"team": 1,`, new: `"team": 1.5,`,
			want: "spawns[1].team: 1.5 is not an integer", line: lineSpawn1},
		{name: "infinite number", old: `"yaw": 3`, new: `"yaw": 1e999`,
			want: "spawns[1].yaw: 1e999 is out of range", line: lineSpawn1},
		{name: "string in vector", old: `"max": [2, 1, 1]`, new: `"max": [2, "1", 1]`,
			want: "boxes[1].max[1]: want a number, got a string", line: lineBox1},
		{name: "team out of range for an integer", old: `"team": 1,`, new: `"team": 1e30,`,
			want: "spawns[1].team: 1e30 is not an integer", line: lineSpawn1},
		{name: "huge integer", old: `"team": 1,`, new: `"team": 99999999999999999999,`,
			want: "spawns[1].team: 99999999999999999999 is out of range (-9223372036854775808 to 9223372036854775807)", line: lineSpawn1},
		{name: "duplicate key", old: `"kind": "cover",`, new: `"kind": "cover", "kind": "wall",`,
			want: "boxes[1].kind: given twice (first on line 6)", line: lineBox1},
		{name: "duplicate top-level key", old: `"name": "test",`, new: `"name": "test", "name": "other",`,
			want: "name: given twice (first on line 2)", line: lineName},
		{name: "key in other case", old: `"name": "test",`, new: `"Name": "test",`,
			want: "Name: unknown field (want name, bounds, boxes, spawns or objectives)", line: lineName},
		{name: "null for a number", old: `"yaw": 3`, new: `"yaw": null`,
			want: "spawns[1].yaw: want a number, got null", line: lineSpawn1},
		{name: "object for vector", old: `"max": [2, 1, 1]`, new: `"max": {"x": 2}`,
			want: "boxes[1].max: want an array, got an object", line: lineBox1},

		// Validation.
		{name: "name missing", old: `"name": "test",`, new: ``, want: "name: missing", line: 1},
		{name: "name too long", old: `"test"`, new: `"` + strings.Repeat("n", MaxNameLen+1) + `"`,
			want: "name: longer than 64 bytes", line: lineName},
		{name: "bounds missing", old: `"bounds": {"min": [-10, -10, 0], "max": [10, 10, 5]},`, new: ``,
			want: "bounds.min: want [x, y, z], got 0 numbers", line: 1},
		{name: "bounds empty", old: `"max": [10, 10, 5]`, new: `"max": [10, 10, 0]`,
			want: "bounds.max: z 0 is not above min z 0", line: lineBounds},
		{name: "bounds below ground", old: `"min": [-10, -10, 0]`, new: `"min": [-10, -10, -1]`,
			want: "bounds.min: z -1 is not 0 (the ground)", line: lineBounds},
		{name: "bounds huge", old: `"max": [10, 10, 5]`, new: `"max": [1e6, 10, 5]`,
			want: "bounds.max: x 1e+06 is beyond ±1024 m", line: lineBounds},
		{name: "box kind unknown", old: `"kind": "cover"`, new: `"kind": "tree"`,
			want: `boxes[1].kind: unknown kind "tree" (want wall, cover, pillar, platform, step)`, line: lineBox1},
		{name: "box short vector", old: `"min": [0, 0, 0]`, new: `"min": [0, 0]`,
			want: "boxes[1].min: want [x, y, z], got 2 numbers", line: lineBox1},
		{name: "box inverted", old: `"max": [2, 1, 1]`, new: `"max": [2, 1, -0.5]`,
			want: "boxes[1].max: z -0.5 is not above min z 0", line: lineBox1},
		{name: "box flat", old: `"max": [2, 1, 1]`, new: `"max": [0, 1, 1]`,
			want: "boxes[1].max: x 0 is not above min x 0", line: lineBox1},
		{name: "box outside bounds", old: `"max": [2, 1, 1]`, new: `"max": [2, 11, 1]`,
			want: "boxes[1].max: y 11 is outside bounds [-10, 10]", line: lineBox1},
		{name: "too many boxes", old: `{"kind": "wall", "min": [-10, -10, 0], "max": [10, -9.5, 3]}`,
			new:  repeat(`{"kind": "wall", "min": [-10, -10, 0], "max": [10, -9.5, 3]}`, MaxBoxes-1),
			want: "boxes: 4097 boxes, at most 4096 allowed", line: 4},
		{name: "no team 1 spawn", old: `"team": 1,`, new: `"team": 0,`,
			want: "spawns: no spawn for team 1", line: lineSpawns},
		{name: "no spawns", old: `"spawns": [`, new: `"spawnz": [`,
			want: "spawnz: unknown field (want name, bounds, boxes, spawns or objectives)", line: lineSpawns},
		{name: "spawn team out of range", old: `"team": 1,`, new: `"team": 7,`,
			want: "spawns[1].team: 7 is not a team (0 to 3)", line: lineSpawn1},
		{name: "spawn yaw out of range", old: `"yaw": 3`, new: `"yaw": 7`,
			want: "spawns[1].yaw: 7 is beyond ±2π", line: lineSpawn1},
		{name: "spawn outside bounds", old: `[-5, -5, 0], "yaw"`, new: `[-11, -5, 0], "yaw"`,
			want: "spawns[0].pos: x -11 is outside bounds [-10, 10]", line: lineSpawn0},
		{name: "spawn capsule leaves bounds", old: `[-5, -5, 0], "yaw"`, new: `[-5, 9.75, 0], "yaw"`,
			want: "spawns[0]: capsule reaches outside bounds", line: lineSpawn0},
		{name: "spawn capsule too tall for bounds", old: `"max": [10, 10, 5]`, new: `"max": [10, 10, 3]`,
			want: "spawns[1]: capsule reaches outside bounds", line: lineSpawn1},
		{name: "spawn in the air", old: `[-5, -5, 0], "yaw"`, new: `[-5, -5, 0.5], "yaw"`,
			want: "spawns[0].pos: feet at z 0.5 are neither on the ground nor on a box top", line: lineSpawn0},
		{name: "spawn beside the platform top", old: `[6, 6, 1.5]`, new: `[3, 6, 1.5]`,
			want: "spawns[1].pos: feet at z 1.5 are neither on the ground nor on a box top", line: lineSpawn1},
		{name: "spawn capsule in a box", old: `[-5, -5, 0], "yaw"`, new: `[1, -0.25, 0], "yaw"`,
			want: "spawns[0]: capsule overlaps boxes[1]", line: lineSpawn0},
		{name: "spawn capsule in the perimeter wall", old: `[-5, -5, 0], "yaw"`, new: `[-5, -9.25, 0], "yaw"`,
			want: "spawns[0]: capsule overlaps boxes[0]", line: lineSpawn0},
		{name: "spawn inside the platform", old: `[6, 6, 1.5]`, new: `[6, 6, 0]`,
			want: "spawns[1]: capsule overlaps boxes[2]", line: lineSpawn1},
		{name: "spawns overlap", old: `{"team": 1,`, new: `{"team": 0, "pos": [-4.5, -5, 0], "yaw": 0},
    {"team": 1,`,
			want: "spawns[1]: capsule overlaps spawns[0]", line: lineSpawn1},
		{name: "too many spawns", old: `{"team": 0, "pos": [-5, -5, 0], "yaw": 0}`,
			new:  repeat(`{"team": 0, "pos": [-5, -5, 0], "yaw": 0}`, MaxSpawns),
			want: "spawns: 257 spawns, at most 256 allowed", line: lineSpawns},
		{name: "objective kind unknown", old: `"kind": "flag"`, new: `"kind": "base"`,
			want: `objectives[0].kind: unknown kind "base" (want flag, point)`, line: lineObj0},
		{name: "objective name missing", old: `"name": "A", `, new: ``,
			want: "objectives[1].name: missing", line: lineObj1},
		{name: "objective name repeated", old: `"name": "A"`, new: `"name": "flag-0"`,
			want: `objectives[1].name: "flag-0" is already the name of objectives[0]`, line: lineObj1},
		{name: "objective team out of range", old: `"team": -1`, new: `"team": -2`,
			want: "objectives[1].team: -2 is neither -1 (neutral) nor a team (0 to 3)", line: lineObj1},
		{name: "objective outside bounds", old: `[-5, 5, 0]`, new: `[-5, 5, 6]`,
			want: "objectives[0].pos: z 6 is outside bounds [0, 5]", line: lineObj0},
		{name: "objective inside a box", old: `[1, 0.5, 1]`, new: `[1, 0.5, 0.5]`,
			want: "objectives[1].pos: inside boxes[1]", line: lineObj1},
		{name: "too many objectives", old: `{"kind": "flag", "name": "flag-0", "team": 0, "pos": [-5, 5, 0]}`,
			new:  repeat(`{"kind": "flag", "name": "flag-0", "team": 0, "pos": [-5, 5, 0]}`, MaxObjectives),
			want: "objectives: 65 objectives, at most 64 allowed", line: 13},
		{name: "file too large", data: strings.Repeat(" ", MaxFileSize+1), want: "larger than 1 MiB, the limit for a map file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := tt.data
			if tt.old != "" {
				if !strings.Contains(validMap, tt.old) {
					t.Fatalf("validMap has no %q", tt.old)
				}
				data = strings.Replace(validMap, tt.old, tt.new, 1)
			}
			_, err := Parse("x.json", []byte(data))
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("Parse error = %v, want an *Error", err)
			}
			got := err.Error()
			prefix := "x.json: "
			if tt.line > 0 {
				prefix = fmt.Sprintf("x.json:%d:%d: ", tt.line, e.Col)
				if e.Col < 1 {
					t.Errorf("column %d, want at least 1", e.Col)
				}
			}
			if want := prefix + tt.want; got != want {
				t.Errorf("error\n got %s\nwant %s", got, want)
			}
		})
	}
}

// TestErrorColumn checks lines and columns against hand-counted positions.
func TestErrorColumn(t *testing.T) {
	tests := []struct {
		old, new  string
		line, col int
		path      string
	}{
		// Line 6 is `    {"kind": "cover", "colour": ...`: the unknown
		// key starts at byte 23.
		{`"kind": "cover",`, `"kind": "cover", "colour": "red",`, lineBox1, 23, "boxes[1].colour"},
		// Line 3 is `  "bounds": ...`, whose quote at byte 3 is where
		// the missing comma was due.
		{`"test",`, `"test"`, lineBounds, 3, ""},
		// Line 11 is `    {"team": 1, "pos": [6, 6, 1.5], "yaw": 3}`.
		{`"yaw": 3`, `"yaw": true`, lineSpawn1, 44, "spawns[1].yaw"},
	}
	for _, tt := range tests {
		data := strings.Replace(validMap, tt.old, tt.new, 1)
		_, err := Parse("x.json", []byte(data))
		var e *Error
		if !errors.As(err, &e) {
			t.Fatalf("Parse error = %v, want an *Error", err)
		}
		if e.Line != tt.line || e.Col != tt.col || e.Path != tt.path {
			t.Errorf("%s: at %d:%d path %q, want %d:%d path %q", e, e.Line, e.Col, e.Path, tt.line, tt.col, tt.path)
		}
	}
}

func TestErrorWithoutFile(t *testing.T) {
	e := &Error{Line: 3, Col: 4, Path: "name", Msg: "missing"}
	if got, want := e.Error(), "3:4: name: missing"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}
