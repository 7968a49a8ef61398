package nav

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/world"
)

// FuzzPath checks paths between arbitrary points on arena: Path never
// panics, and a path it finds starts and ends within snapping range of the
// points asked for, keeps to walkable cells, climbs at most a step per leg
// and keeps the capsule clear of boxes.
func FuzzPath(f *testing.F) {
	m := mustLoad(f, "arena")
	g := mustBuild(f, m)
	fd := g.NewFinder()
	f.Add(-27.5, -10.5, 0.0, 0.0, 17.0, 1.5)
	f.Add(0.0, 17.0, 1.5, 0.0, 21.5, 0.0)
	f.Add(-8.25, 17.0, 0.25, 8.25, -17.0, 0.25)
	f.Add(0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
	f.Add(math.NaN(), 0.0, 0.0, math.Inf(1), 0.0, 0.0)
	f.Add(-30.0, -30.0, 0.0, 30.0, 30.0, 10.0)
	p := game.DefaultParams()
	f.Fuzz(func(t *testing.T, fx, fy, fz, tx, ty, tz float64) {
		from, to := geom.V(fx, fy, fz), geom.V(tx, ty, tz)
		path, ok := fd.Path(from, to, nil)
		if !ok {
			return
		}
		if len(path) == 0 || path[0].Dist(from) > snapRange+g.cell || path[len(path)-1].Dist(to) > snapRange+g.cell {
			t.Fatalf("path %v does not run from near %v to near %v", path, from, to)
		}
		for k := 1; k < len(path); k++ {
			if path[k].Z-path[k-1].Z > p.StepHeight {
				t.Fatalf("leg %v -> %v climbs more than a step", path[k-1], path[k])
			}
		}
		checkLegs(t, m, g, path)
	})
}

// FuzzBuild checks that Build, Check, Path, Cover and Random never panic
// on any map that world.Parse accepts, at any cell size.
func FuzzBuild(f *testing.F) {
	files, err := filepath.Glob("../world/maps/*.json")
	if err != nil || len(files) == 0 {
		f.Fatalf("no shipped map files: %v", err)
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, 0.0)
		f.Add(data, 1.0)
	}
	f.Add([]byte(`{"name": "tunnel", "bounds": {"min": [-10, -10, 0], "max": [10, 10, 6]},
		"boxes": [{"kind": "wall", "min": [-2, -1, 1.4], "max": [2, 1, 3]}],
		"spawns": [{"team": 0, "pos": [-6, 0, 0], "yaw": 0}, {"team": 1, "pos": [6, 0, 0], "yaw": 0}],
		"objectives": [{"kind": "point", "name": "A", "team": -1, "pos": [0, 0, 3]}]}`), 0.3)
	f.Fuzz(func(t *testing.T, data []byte, cell float64) {
		m, err := world.Parse("fuzz.json", data)
		if err != nil {
			return
		}
		// Keep each run quick: the column limit is tested elsewhere.
		c := cell
		if c == 0 {
			c = DefaultCellSize
		}
		if size := m.Bounds.Size(); size.X*size.Y > (1<<16)*c*c {
			return
		}
		g, err := BuildWithOptions(m, nil, BuildOptions{CellSize: cell})
		if err != nil {
			return
		}
		_ = Check(m, g)
		r := rand.New(rand.NewPCG(uint64(len(data)), 0))
		a, b := g.Random(r), g.Random(r)
		if !onWalkable(g, a) {
			t.Fatalf("Random gave %v, not on a walkable cell", a)
		}
		if path, ok := g.NewFinder().Path(a, b, nil); ok && (len(path) == 0 || path[0] != a || path[len(path)-1] != b) {
			t.Fatalf("path %v does not run from %v to %v", path, a, b)
		}
		g.Cover(a, b.Add(geom.V(0, 0, 1.65)), 10, nil)
	})
}
