package world

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/lagkit/lagkit/geom"
)

func TestNames(t *testing.T) {
	want := []string{"arena", "courtyard", "metro"}
	if got := Names(); !slices.Equal(got, want) {
		t.Fatalf("Names() = %v, want %v", got, want)
	}
}

func TestLoadUnknown(t *testing.T) {
	for _, name := range []string{"", "nowhere", "../world", "metro.json"} {
		if _, err := Load(name); err == nil || !strings.Contains(err.Error(), "no shipped map") {
			t.Errorf("Load(%q) error = %v, want no shipped map", name, err)
		}
	}
}

// TestShippedMaps checks what the studies' maps need of each map: its
// size, spawns for both teams, and objectives for capture the flag and
// domination.
func TestShippedMaps(t *testing.T) {
	tests := []struct {
		name         string
		sizeX, sizeY float64
		minSpawns    int // per team 0 and 1
		teams        int // teams with spawns
		points       int
	}{
		{"metro", 64, 28, 6, 2, 3},
		{"arena", 60, 60, 6, 2, 3},
		{"courtyard", 40, 40, 6, 4, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := Load(tt.name)
			if err != nil {
				t.Fatal(err)
			}
			if m.Name != tt.name {
				t.Errorf("Name = %q, want %q", m.Name, tt.name)
			}
			if s := m.Bounds.Size(); s.X != tt.sizeX || s.Y != tt.sizeY {
				t.Errorf("bounds %v x %v, want %v x %v", s.X, s.Y, tt.sizeX, tt.sizeY)
			}
			if m.Grid == nil || len(m.Grid.Boxes()) != len(m.Boxes) {
				t.Fatalf("grid does not index the %d boxes", len(m.Boxes))
			}
			for team := range MaxTeams {
				n := len(m.SpawnsFor(team))
				switch {
				case team < tt.teams && n < tt.minSpawns:
					t.Errorf("team %d has %d spawns, want at least %d", team, n, tt.minSpawns)
				case team >= tt.teams && n > 0:
					t.Errorf("team %d has %d spawns, want none", team, n)
				}
			}
			var flags []int
			points := 0
			for _, o := range m.Objectives {
				switch o.Kind {
				case Flag:
					flags = append(flags, o.Team)
				case Point:
					points++
					if o.Team != -1 {
						t.Errorf("point %s belongs to team %d, want neutral", o.Name, o.Team)
					}
				}
			}
			if slices.Sort(flags); !slices.Equal(flags, []int{0, 1}) {
				t.Errorf("flags of teams %v, want one each for 0 and 1", flags)
			}
			if points != tt.points {
				t.Errorf("%d control points, want %d", points, tt.points)
			}
		})
	}
}

// TestMetroPointsInMiddleThird checks that metro's control points lie in
// the middle third of its length, away from both spawn ends.
func TestMetroPointsInMiddleThird(t *testing.T) {
	m := mustLoad(t, "metro")
	third := m.Bounds.Size().X / 3
	for _, o := range m.Objectives {
		if o.Kind == Point && (o.Pos.X < m.Bounds.Min.X+third || o.Pos.X > m.Bounds.Max.X-third) {
			t.Errorf("point %s at x %g is outside the middle third", o.Name, o.Pos.X)
		}
	}
}

// TestOnQuarterMetreGrid checks that every number of the shipped maps lies
// on the 0.25 m design grid (yaws excepted).
func TestOnQuarterMetreGrid(t *testing.T) {
	onGrid := func(v geom.Vec3) bool {
		for _, x := range axes(v) {
			if x*4 != math.Round(x*4) {
				return false
			}
		}
		return true
	}
	for _, name := range Names() {
		m := mustLoad(t, name)
		for i, b := range m.Boxes {
			if !onGrid(b.Min) || !onGrid(b.Max) {
				t.Errorf("%s: boxes[%d] %v is off the grid", name, i, b.AABB)
			}
		}
		for i, s := range m.Spawns {
			if !onGrid(s.Pos) {
				t.Errorf("%s: spawns[%d] at %v is off the grid", name, i, s.Pos)
			}
		}
		for i, o := range m.Objectives {
			if !onGrid(o.Pos) {
				t.Errorf("%s: objectives[%d] at %v is off the grid", name, i, o.Pos)
			}
		}
	}
}

func TestSpawnsFor(t *testing.T) {
	m := mustLoad(t, "courtyard")
	total := 0
	for team := range MaxTeams {
		spawns := m.SpawnsFor(team)
		total += len(spawns)
		for _, s := range spawns {
			if s.Team != team {
				t.Errorf("SpawnsFor(%d) returned a spawn of team %d", team, s.Team)
			}
		}
	}
	if total != len(m.Spawns) {
		t.Errorf("SpawnsFor over all teams returned %d spawns, want %d", total, len(m.Spawns))
	}
	if s := m.SpawnsFor(-1); len(s) != 0 {
		t.Errorf("SpawnsFor(-1) = %v, want none", s)
	}
}

func TestLoadFile(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.json")
	data, err := shipped.ReadFile("maps/arena.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(good, data, 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := LoadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	if m.Name != "arena" {
		t.Errorf("Name = %q, want arena", m.Name)
	}

	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte("{\n  \"name\": \"x\",\n  \"colour\": 1\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = LoadFile(bad)
	if want := bad + `:3:3: colour: unknown field (want name, bounds, boxes, spawns or objectives)`; err == nil || err.Error() != want {
		t.Errorf("LoadFile(bad) error = %v, want %s", err, want)
	}

	big := filepath.Join(dir, "big.json")
	if err := os.WriteFile(big, make([]byte, MaxFileSize+1), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadFile(big); err == nil || err.Error() != big+": larger than 1 MiB, the limit for a map file" {
		t.Errorf("LoadFile(big) error = %v, want too large", err)
	}

	if _, err := LoadFile(filepath.Join(dir, "missing.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("LoadFile(missing) error = %v, want not exist", err)
	}
}

// TestEncodeRoundTrip checks that each shipped map file is exactly what
// Encode writes for the map it describes, so maps survive being edited
// through code.
func TestEncodeRoundTrip(t *testing.T) {
	for _, name := range Names() {
		data, err := shipped.ReadFile("maps/" + name + ".json")
		if err != nil {
			t.Fatal(err)
		}
		m, err := Parse(name+".json", data)
		if err != nil {
			t.Fatal(err)
		}
		if got := Encode(m); string(got) != string(data) {
			t.Errorf("%s: Encode differs from the file:\n%s", name, got)
		}
		again, err := Parse(name+".json", Encode(m))
		if err != nil {
			t.Fatal(err)
		}
		if !sameMap(m, again) {
			t.Errorf("%s: map changed through Encode and Parse", name)
		}
	}
}

// sameMap compares two maps, ignoring their grids.
func sameMap(a, b *Map) bool {
	a2, b2 := *a, *b
	a2.Grid, b2.Grid = nil, nil
	return reflect.DeepEqual(a2, b2)
}

func mustLoad(t testing.TB, name string) *Map {
	t.Helper()
	m, err := Load(name)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func BenchmarkLoad(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Load("metro"); err != nil {
			b.Fatal(err)
		}
	}
}
