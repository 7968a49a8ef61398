package nav

import (
	"reflect"
	"testing"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/world"
)

// uncached builds m's Grid from scratch, as Build did before it kept
// Grids.
func uncached(t *testing.T, m *world.Map, p *game.Params, cell float64) *Grid {
	t.Helper()
	saved := builds.entries
	builds.entries = nil
	defer func() { builds.entries = saved }()
	g, err := BuildWithOptions(m, p, BuildOptions{CellSize: cell})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// sameGrid reports whether a and b hold the same floors, edges and lists.
func sameGrid(a, b *Grid) bool {
	x, y := *a, *b
	x.passed, y.passed, x.boxes, y.boxes = nil, nil, nil, nil
	return reflect.DeepEqual(x, y) && reflect.DeepEqual(a.boxes.Boxes(), b.boxes.Boxes())
}

// TestBuildSharesGridsOfEqualMaps: two loads of one map, with equal
// params and cell size, get the one Grid, equal to a fresh build; any
// change to what Build reads gets a Grid of its own.
func TestBuildSharesGridsOfEqualMaps(t *testing.T) {
	m1, m2 := mustLoad(t, "metro"), mustLoad(t, "metro")
	g1, g2 := mustBuild(t, m1), mustBuild(t, m2)
	if g1 != g2 {
		t.Fatal("two loads of metro got two Grids")
	}
	if !sameGrid(g1, uncached(t, m1, nil, 0)) {
		t.Fatal("the shared Grid differs from a fresh build")
	}

	moved := mustLoad(t, "metro")
	moved.Spawns[0].Pos.X += 0.25
	slower := game.DefaultParams()
	slower.StepHeight -= 0.05
	changes := []struct {
		name string
		m    *world.Map
		p    *game.Params
		cell float64
	}{
		{"cell size", m1, nil, 0.4},
		{"params", m1, &slower, 0},
		{"spawn", moved, nil, 0},
	}
	for _, c := range changes {
		g, err := BuildWithOptions(c.m, c.p, BuildOptions{CellSize: c.cell})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if g == g1 {
			t.Errorf("%s changed, yet Build returned the same Grid", c.name)
		}
		if !sameGrid(g, uncached(t, c.m, c.p, c.cell)) {
			t.Errorf("%s: the Grid differs from a fresh build", c.name)
		}
	}
	// A changed box: the broad phase and so the key change.
	boxed := parseMap(t, "one", `{"kind": "cover", "min": [-1, -1, 0], "max": [1, 1, 1]}`, spawnsWestEast, "")
	taller := parseMap(t, "one", `{"kind": "cover", "min": [-1, -1, 0], "max": [1, 1, 1.5]}`, spawnsWestEast, "")
	if mustBuild(t, boxed) == mustBuild(t, taller) {
		t.Error("a taller box got the same Grid")
	}
}

// TestBuildKeepsFewGrids: the cache holds at most maxCachedGrids Grids,
// the most recently used.
func TestBuildKeepsFewGrids(t *testing.T) {
	m := mustLoad(t, "arena")
	var first *Grid
	for i := range maxCachedGrids + 2 {
		g, err := BuildWithOptions(m, nil, BuildOptions{CellSize: 0.5 + 0.125*float64(i)})
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = g
		}
	}
	if n := len(builds.entries); n != maxCachedGrids {
		t.Fatalf("%d Grids kept, want %d", n, maxCachedGrids)
	}
	g, err := BuildWithOptions(m, nil, BuildOptions{CellSize: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	if g == first {
		t.Error("the least recently used Grid was kept")
	}
}

// TestCheckAnswersEachMap: a Grid shared by maps whose objectives differ
// checks each map's own places.
func TestCheckAnswersEachMap(t *testing.T) {
	ok := parseMap(t, "ok", "", spawnsWestEast, `{"kind": "point", "name": "A", "team": -1, "pos": [0, 0, 0]}`)
	high := parseMap(t, "high", "", spawnsWestEast, `{"kind": "point", "name": "A", "team": -1, "pos": [0, 0, 3]}`)
	g := mustBuild(t, ok)
	if mustBuild(t, high) != g {
		t.Fatal("maps that differ only in objectives got two Grids")
	}
	for range 2 {
		if err := Check(ok, g); err != nil {
			t.Fatalf("ok: %v", err)
		}
		if err := Check(high, g); err == nil || err.Error() != "high: objectives[0] (A): (0, 0, 3) is not on walkable floor" {
			t.Fatalf("high: got %v", err)
		}
	}
}
