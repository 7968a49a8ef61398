package nav

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/world"
)

// places returns the spawns and objectives of m with their labels.
func places(m *world.Map) ([]geom.Vec3, []string) {
	var ps []geom.Vec3
	var labels []string
	for i, s := range m.Spawns {
		ps = append(ps, s.Pos)
		labels = append(labels, fmt.Sprintf("spawns[%d]", i))
	}
	for i, o := range m.Objectives {
		ps = append(ps, o.Pos)
		labels = append(labels, fmt.Sprintf("objectives[%d] (%s)", i, o.Name))
	}
	return ps, labels
}

// TestPathsShipped finds a path from every spawn to every spawn and
// objective of every shipped map and checks that it starts and ends where
// asked, keeps to walkable cells, climbs no more than a step per leg, and
// never brings the capsule's footprint into a box.
func TestPathsShipped(t *testing.T) {
	p := game.DefaultParams()
	for _, name := range world.Names() {
		m := mustLoad(t, name)
		g := mustBuild(t, m)
		f := g.NewFinder()
		targets, labels := places(m)
		var path []geom.Vec3
		for i, s := range m.Spawns {
			for j, to := range targets {
				var ok bool
				path, ok = f.Path(s.Pos, to, path[:0])
				if !ok {
					t.Errorf("%s: no path from spawns[%d] to %s", name, i, labels[j])
					continue
				}
				if path[0] != s.Pos || path[len(path)-1] != to {
					t.Errorf("%s: path from spawns[%d] to %s runs from %v to %v", name, i, labels[j], path[0], path[len(path)-1])
				}
				for k := 1; k < len(path); k++ {
					if rise := path[k].Z - path[k-1].Z; rise > p.StepHeight {
						t.Errorf("%s: leg %v -> %v climbs %g m", name, path[k-1], path[k], rise)
					}
				}
				checkLegs(t, m, g, path)
			}
		}
	}
}

// TestPathRandomPairs checks the same leg rules between random walkable
// points, which meet far more corners than paths between spawns do.
func TestPathRandomPairs(t *testing.T) {
	for _, name := range world.Names() {
		m := mustLoad(t, name)
		g := mustBuild(t, m)
		f := g.NewFinder()
		r := rand.New(rand.NewPCG(1, 0))
		for range 200 {
			from, to := g.Random(r), g.Random(r)
			path, ok := f.Path(from, to, nil)
			if !ok {
				// Random draws from every floor reachable from some
				// spawn, so a few are one-way drops; none on these maps.
				t.Errorf("%s: no path from %v to %v", name, from, to)
				continue
			}
			checkLegs(t, m, g, path)
		}
	}
}

// TestPathArenaStairs walks from team 0's spawn up arena's north stair to
// control point A on the platform, step by step, and back down.
func TestPathArenaStairs(t *testing.T) {
	m := mustLoad(t, "arena")
	g := mustBuild(t, m)
	f := g.NewFinder()
	from, a := m.Spawns[0].Pos, objective(t, m, "A").Pos
	up, ok := f.Path(from, a, nil)
	if !ok {
		t.Fatal("no path up")
	}
	var heights []float64
	for _, w := range up {
		if len(heights) == 0 || heights[len(heights)-1] != w.Z {
			heights = append(heights, w.Z)
		}
	}
	if want := []float64{0, 0.25, 0.5, 0.75, 1, 1.25, 1.5}; !slices.Equal(heights, want) {
		t.Errorf("path up climbs through heights %v, want the stair's %v; path %v", heights, want, up)
	}
	checkLegs(t, m, g, up)
	down, ok := f.Path(a, from, nil)
	if !ok || down[len(down)-1] != from {
		t.Fatalf("no path down: %v", down)
	}
	checkLegs(t, m, g, down)

	// Off the platform's north edge (y = 20) to the ground just beyond:
	// a drop, not the long way round by the stair.
	below := geom.V(0, 21.5, 0)
	drop, ok := f.Path(a, below, nil)
	if !ok || pathLen(drop) > 5 {
		t.Errorf("path from %v down to %v: %v (%.1f m), want a drop of under 5 m", a, below, drop, pathLen(drop))
	}
	checkLegs(t, m, g, drop)
}

func pathLen(path []geom.Vec3) float64 {
	l := 0.0
	for i := 1; i < len(path); i++ {
		l += math.Hypot(path[i].X-path[i-1].X, path[i].Y-path[i-1].Y)
	}
	return l
}

// TestPathOneWay checks that a path drops off a platform without stairs
// but finds no way back up.
func TestPathOneWay(t *testing.T) {
	m := parseMap(t, "oneway", `{"kind": "platform", "min": [2, -2, 0], "max": [8, 2, 1.5]}`,
		`{"team": 0, "pos": [-5, 0, 0], "yaw": 0}, {"team": 1, "pos": [5, 0, 1.5], "yaw": 0}`, "")
	g := mustBuild(t, m)
	f := g.NewFinder()
	high, low := m.Spawns[1].Pos, m.Spawns[0].Pos
	down, ok := f.Path(high, low, nil)
	if !ok {
		t.Fatal("no path down")
	}
	checkLegs(t, m, g, down)
	if up, ok := f.Path(low, high, nil); ok {
		t.Errorf("path up a wall 1.5 m high: %v", up)
	}
}

func TestPathStraight(t *testing.T) {
	m := parseMap(t, "pillar", `{"kind": "pillar", "min": [-0.5, -0.5, 0], "max": [0.5, 0.5, 3]}`, spawnsWestEast, "")
	g := mustBuild(t, m)
	f := g.NewFinder()
	tests := []struct {
		from, to geom.Vec3
		want     []geom.Vec3 // nil: just check the legs
	}{
		{geom.V(-5, 2, 0), geom.V(5, 2, 0), []geom.Vec3{geom.V(-5, 2, 0), geom.V(5, 2, 0)}},
		{geom.V(-5, 2, 1), geom.V(5, 2, 0.5), []geom.Vec3{geom.V(-5, 2, 0), geom.V(5, 2, 0)}},
		{geom.V(3.1, 3.1, 0), geom.V(3.2, 3.2, 0), []geom.Vec3{geom.V(3.1, 3.1, 0), geom.V(3.2, 3.2, 0)}},
		{geom.V(3.1, 3.1, 0), geom.V(3.1, 3.1, 0), []geom.Vec3{geom.V(3.1, 3.1, 0)}},
		// Through the pillar's row: around it, in at least three legs.
		{geom.V(-5, 0, 0), geom.V(5, 0, 0), nil},
	}
	for _, tt := range tests {
		path, ok := f.Path(tt.from, tt.to, nil)
		switch {
		case !ok:
			t.Errorf("Path(%v, %v) found none", tt.from, tt.to)
		case tt.want != nil && !slices.Equal(path, tt.want):
			t.Errorf("Path(%v, %v) = %v, want %v", tt.from, tt.to, path, tt.want)
		case tt.want == nil && len(path) < 3:
			t.Errorf("Path(%v, %v) = %v, want a way round the pillar", tt.from, tt.to, path)
		}
		checkLegs(t, m, g, path)
	}
}

func TestPathNone(t *testing.T) {
	m := mustLoad(t, "metro")
	f := mustBuild(t, m).NewFinder()
	dst := []geom.Vec3{geom.V(1, 2, 3)}
	for _, tt := range []struct{ from, to geom.Vec3 }{
		{geom.V(0, 0, 0), geom.V(0, 100, 0)},
		{geom.V(0, 100, 0), geom.V(0, 0, 0)},
		{geom.V(math.NaN(), 0, 0), geom.V(0, 0, 0)},
		{geom.V(0, 0, 0), geom.V(0, 0, 20)},
	} {
		got, ok := f.Path(tt.from, tt.to, dst)
		if ok || !slices.Equal(got, dst) {
			t.Errorf("Path(%v, %v) = %v, %v; want dst unchanged and false", tt.from, tt.to, got, ok)
		}
	}
}

// TestPathDeterministic checks that paths depend only on their inputs:
// not on the Finder, nor on the searches it ran before, nor on the Grid
// instance.
func TestPathDeterministic(t *testing.T) {
	m := mustLoad(t, "courtyard")
	g1, g2 := mustBuild(t, m), mustBuild(t, m)
	f1, f2 := g1.NewFinder(), g2.NewFinder()
	targets, _ := places(m)
	for i, a := range targets {
		for j, b := range targets {
			p1, ok1 := f1.Path(a, b, nil)
			// f2 runs the same search after an unrelated one.
			f2.Path(targets[(i+j)%len(targets)], targets[(i*j)%len(targets)], nil)
			p2, ok2 := f2.Path(a, b, nil)
			if ok1 != ok2 || !slices.Equal(p1, p2) {
				t.Errorf("path %v -> %v differs:\n%v\n%v", a, b, p1, p2)
			}
		}
	}
}

// TestPathAllocs checks that a warmed-up Finder appending to a slice with
// room does not allocate.
func TestPathAllocs(t *testing.T) {
	m := mustLoad(t, "metro")
	f := mustBuild(t, m).NewFinder()
	from, to := m.Spawns[0].Pos, objective(t, m, "flag-1").Pos
	path := make([]geom.Vec3, 0, 64)
	f.Path(from, to, path)
	if n := testing.AllocsPerRun(100, func() { f.Path(from, to, path[:0]) }); n != 0 {
		t.Errorf("Path allocates %v times per call", n)
	}
}

// TestPathWrap checks that paths stay right when the search generation
// wraps round.
func TestPathWrap(t *testing.T) {
	m := mustLoad(t, "metro")
	f := mustBuild(t, m).NewFinder()
	from, to := m.Spawns[0].Pos, objective(t, m, "B").Pos
	want, _ := f.Path(from, to, nil)
	f.gen = math.MaxUint32 - 1
	for range 3 {
		if got, ok := f.Path(from, to, nil); !ok || !slices.Equal(got, want) {
			t.Fatalf("at generation %d: %v, want %v", f.gen, got, want)
		}
	}
}
