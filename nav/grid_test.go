package nav

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/world"
)

// size returns the bytes a Grid holds, beyond the map's own broad phase.
func size(g *Grid) int {
	return int(unsafe.Sizeof(*g)) + len(g.nodes)*int(unsafe.Sizeof(node{})) +
		4*(len(g.start)+len(g.reach)+len(g.cover))
}

func TestBuildShippedMaps(t *testing.T) {
	for _, name := range world.Names() {
		m := mustLoad(t, name)
		g := mustBuild(t, m)
		// Most of each map is open floor that players walk on.
		area := m.Bounds.Size().X * m.Bounds.Size().Y
		if walk := float64(len(g.reach)) * g.cell * g.cell; walk < area/2 || walk > area {
			t.Errorf("%s: %.0f m² walkable of %.0f m²", name, walk, area)
		}
		if n := size(g); n > 1<<20 {
			t.Errorf("%s: grid holds %d bytes, want at most 1 MiB", name, n)
		}
		t.Logf("%s: %d floors, %d reachable, %d beside cover, %d bytes", name, len(g.nodes), len(g.reach), len(g.cover), size(g))
	}
}

// TestMemory checks the budget on a 64 x 64 m map: a few MB at most.
func TestMemory(t *testing.T) {
	m, err := world.Parse("big.json", []byte(`{"name": "big",
		"bounds": {"min": [-32, -32, 0], "max": [32, 32, 8]},
		"boxes": [{"kind": "platform", "min": [-10, -10, 0], "max": [10, 10, 0.25]}],
		"spawns": [{"team": 0, "pos": [-20, 0, 0], "yaw": 0}, {"team": 1, "pos": [20, 0, 0], "yaw": 0}],
		"objectives": []}`))
	if err != nil {
		t.Fatal(err)
	}
	g := mustBuild(t, m)
	if n := size(g); n > 1<<20 {
		t.Errorf("grid holds %d bytes, want at most 1 MiB", n)
	}
	if n := len(g.reach); n != 128*128 {
		t.Errorf("%d reachable floors, want every one of the 128 x 128 cells", n)
	}
}

func TestBuildErrors(t *testing.T) {
	metro := mustLoad(t, "metro")
	bad := game.DefaultParams()
	bad.Radius = -1
	floating := *metro
	floating.Spawns = []world.Spawn{{Pos: geom.V(0, 0, 5)}}
	tests := []struct {
		name string
		m    *world.Map
		p    *game.Params
		cell float64
		want string
	}{
		{"nil map", nil, nil, 0, "nav: nil map"},
		{"bad params", metro, &bad, 0, "nav: metro: game: params: Radius is -1"},
		{"negative cell", metro, nil, -1, "nav: metro: cell size -1 is not positive and finite"},
		{"NaN cell", metro, nil, math.NaN(), "nav: metro: cell size NaN is not positive"},
		{"infinite cell", metro, nil, math.Inf(1), "nav: metro: cell size +Inf is not positive"},
		{"tiny cell", metro, nil, 0.01, "nav: metro: 6400 x 2800 cells of 0.01 m exceed the limit"},
		{"no spawn on floor", &floating, nil, 0, "nav: metro: no spawn stands on walkable floor"},
	}
	for _, tt := range tests {
		_, err := BuildWithOptions(tt.m, tt.p, BuildOptions{CellSize: tt.cell})
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one starting %q", tt.name, err, tt.want)
		}
	}
}

// TestFloors checks the floors Build finds on arena's north stair and
// platform: one per stair step at its top, the platform's top, and none on
// the ground beside the platform's wall where the capsule would overlap it.
func TestFloors(t *testing.T) {
	m := mustLoad(t, "arena")
	g := mustBuild(t, m)
	tests := []struct {
		at      geom.Vec3
		floor   float64
		walkway bool
	}{
		{geom.V(-9.75, 17.25, 0), 0, true},
		{geom.V(-8.25, 17.25, 0), 0.25, true},
		{geom.V(-7.75, 17.25, 0), 0.5, true},
		{geom.V(-6.25, 17.25, 0), 1.25, true},
		{geom.V(-5.75, 17.25, 0), 1.5, true},
		{geom.V(0.25, 17.25, 3), 1.5, true},
		// Beside the platform's north face (y = 20): the centre is 0.25 m
		// from it.
		{geom.V(0.25, 20.25, 0), 0, false},
		{geom.V(0.25, 20.75, 0), 0, true},
	}
	for _, tt := range tests {
		x, y := int((tt.at.X-g.x0)/g.cell), int((tt.at.Y-g.y0)/g.cell)
		col := y*g.nx + x
		found := false
		for n := g.start[col]; n < g.start[col+1]; n++ {
			if g.nodes[n].z == tt.floor && g.nodes[n].reach {
				found = true
			}
		}
		if found != tt.walkway {
			t.Errorf("column at %v: walkable floor at %g is %v, want %v", tt.at, tt.floor, found, tt.walkway)
		}
	}
}

// TestGaps checks that a wall's gap is walked through when it is at least
// as wide as the player plus one cell, wherever it falls on the grid, and
// never when the player does not fit.
func TestGaps(t *testing.T) {
	tests := []struct {
		lo, hi float64 // the gap's edges in y
		open   bool
	}{
		{-0.35, 0.35, false},
		{0, 0.75, false},
		{-0.65, 0.65, true},
		{-0.4, 0.9, true},
		{-0.55, 0.75, true},
		{0.1, 1.4, true},
	}
	for _, tt := range tests {
		boxes := `{"kind": "wall", "min": [0, -10, 0], "max": [0.5, ` + num(tt.lo) + `, 3]},
			{"kind": "wall", "min": [0, ` + num(tt.hi) + `, 0], "max": [0.5, 10, 3]}`
		m := parseMap(t, "gap", boxes, `{"team": 0, "pos": [-5, 0, 0], "yaw": 0}, {"team": 1, "pos": [5, 0, 0], "yaw": 0}`, "")
		err := Check(m, mustBuild(t, m))
		if open := err == nil; open != tt.open {
			t.Errorf("gap from y = %g to %g: Check gives %v, want open %v", tt.lo, tt.hi, err, tt.open)
		}
	}
}

func num(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// TestCrouch checks a tunnel under a low ceiling: its floor fits only a
// crouched player, NeedsCrouch says so, and a path runs straight through.
func TestCrouch(t *testing.T) {
	m := parseMap(t, "tunnel", `
		{"kind": "wall", "min": [-2, -10, 0], "max": [2, -1, 3]},
		{"kind": "wall", "min": [-2, 1, 0], "max": [2, 10, 3]},
		{"kind": "wall", "min": [-2, -1, 1.4], "max": [2, 1, 3]}`,
		`{"team": 0, "pos": [-6, 0, 0], "yaw": 0}, {"team": 1, "pos": [6, 0, 0], "yaw": 0}`, "")
	g := mustBuild(t, m)
	if err := Check(m, g); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		p    geom.Vec3
		want bool
	}{{geom.V(0, 0, 0), true}, {geom.V(-1.75, 0.25, 0), true}, {geom.V(-6, 0, 0), false}, {geom.V(2.75, 0, 0), false}} {
		if got := g.NeedsCrouch(tt.p); got != tt.want {
			t.Errorf("NeedsCrouch(%v) = %v, want %v", tt.p, got, tt.want)
		}
	}
	path, ok := g.NewFinder().Path(geom.V(-6, 0, 0), geom.V(6, 0, 0), nil)
	if want := []geom.Vec3{geom.V(-6, 0, 0), geom.V(6, 0, 0)}; !ok || !slices.Equal(path, want) {
		t.Errorf("path through the tunnel: %v, %v; want %v", path, ok, want)
	}
}

func TestSnap(t *testing.T) {
	m := mustLoad(t, "arena")
	g := mustBuild(t, m)
	tests := []struct {
		p    geom.Vec3
		want geom.Vec3
		ok   bool
	}{
		{geom.V(-25, 0, 0), geom.V(-25, 0, 0), true},
		// Hovering over the ground or the platform: dropped onto it.
		{geom.V(-25.1, 0.1, 1), geom.V(-25.1, 0.1, 0), true},
		{geom.V(0.1, 17, 3), geom.V(0.1, 17, 1.5), true},
		// Just below the platform's top, inside it: onto the top.
		{geom.V(0.1, 17, 1.2), geom.V(0.1, 17, 1.5), true},
		{geom.V(100, 0, 0), geom.Vec3{}, false},
		{geom.V(math.NaN(), 0, 0), geom.Vec3{}, false},
		{geom.V(0, 0, math.Inf(1)), geom.Vec3{}, false},
	}
	for _, tt := range tests {
		got, ok := g.Snap(tt.p)
		if ok != tt.ok || got != tt.want {
			t.Errorf("Snap(%v) = %v, %v; want %v, %v", tt.p, got, ok, tt.want, tt.ok)
		}
	}
	var nilGrid *Grid
	if _, ok := nilGrid.Snap(geom.V(0, 0, 0)); ok {
		t.Error("Snap on a nil Grid found a floor")
	}
}

// TestSnapInsideBox checks that a point inside a pillar snaps out of it to
// the nearest walkable cell centre, which is clear of the pillar.
func TestSnapInsideBox(t *testing.T) {
	m := mustLoad(t, "metro")
	g := mustBuild(t, m)
	p := game.DefaultParams()
	for i, b := range m.Boxes {
		if b.Kind != world.Pillar {
			continue
		}
		c := b.Center()
		c.Z = 0
		got, ok := g.Snap(c)
		if !ok {
			t.Errorf("boxes[%d]: Snap(%v) found no floor", i, c)
			continue
		}
		if d := math.Sqrt(pointRectDist2(got, b.AABB)); d < p.Radius-fitTol || got.Z != 0 {
			t.Errorf("boxes[%d]: Snap(%v) = %v, %.2f m from the pillar", i, c, got, d)
		}
	}
}

// TestRandom checks that Random's points lie on walkable cells, that the
// same seed gives the same points, and that they spread over the map: the
// draws hit every walkable cell about equally often.
func TestRandom(t *testing.T) {
	m := mustLoad(t, "arena")
	g := mustBuild(t, m)
	const draws = 50000
	r1, r2 := rand.New(rand.NewPCG(1, 2)), rand.New(rand.NewPCG(1, 2))
	hits := map[geom.Vec3]int{}
	var platform int
	for range draws {
		p := g.Random(r1)
		if q := g.Random(r2); q != p {
			t.Fatalf("same seed gave %v and %v", p, q)
		}
		hits[p]++
		if p.Z == 1.5 {
			platform++
		}
	}
	for p := range hits {
		if !onWalkable(g, p) {
			t.Errorf("Random gave %v, not on a walkable cell", p)
		}
	}
	// With 50000 draws over about 12000 cells, a cell is missed with
	// probability e^-4, so about 2% of cells.
	if got, want := len(hits), len(g.reach)*95/100; got < want {
		t.Errorf("draws hit %d distinct cells of %d, want at least %d", got, len(g.reach), want)
	}
	// The two platforms' tops, 2 x 12 x 6 m less their low covers, are
	// about 140 m² of the walkable 3000 m² (arena's 3600 m² less boxes
	// and the strips along walls where the capsule does not fit).
	frac := float64(platform) / draws
	if want := 140.0 / (float64(len(g.reach)) * g.cell * g.cell); math.Abs(frac-want) > 0.005 {
		t.Errorf("%.3f of draws on the platforms, want %.3f", frac, want)
	}
	var nilGrid *Grid
	if p := nilGrid.Random(r1); p != (geom.Vec3{}) {
		t.Errorf("Random on a nil Grid = %v, want the zero vector", p)
	}
}

// TestZero checks that a nil or zero Grid, and a zero Finder, answer every
// query with nothing rather than panicking.
func TestZero(t *testing.T) {
	m := mustLoad(t, "metro")
	p := geom.V(0, 0, 0)
	r := rand.New(rand.NewPCG(1, 2))
	for _, g := range []*Grid{nil, {}} {
		if _, ok := g.Snap(p); ok {
			t.Errorf("%v: Snap found a floor", g)
		}
		if g.NeedsCrouch(p) || g.Random(r) != (geom.Vec3{}) || g.Cover(p, p, 10, nil) != nil || g.CellSize() != 0 {
			t.Errorf("%v: a query found something", g)
		}
		if _, ok := g.NewFinder().Path(p, p, nil); ok {
			t.Errorf("%v: found a path", g)
		}
		if Check(m, g) == nil {
			t.Errorf("%v: Check passed", g)
		}
	}
	if _, ok := new(Finder).Path(p, p, nil); ok {
		t.Error("a zero Finder found a path")
	}
}
