package nav

import (
	"testing"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
)

// BenchmarkBuild builds metro's Grid from scratch, as for a map not
// built before.
func BenchmarkBuild(b *testing.B) {
	m := mustLoad(b, "metro")
	b.ReportAllocs()
	for b.Loop() {
		builds.entries = nil
		if _, err := Build(m, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPath finds metro's longest everyday walk: from team 0's first
// spawn at the west end to team 1's flag at the east end.
func BenchmarkPath(b *testing.B) {
	m := mustLoad(b, "metro")
	g := mustBuild(b, m)
	f := g.NewFinder()
	from, to := m.Spawns[0].Pos, objective(b, m, "flag-1").Pos
	var path []geom.Vec3
	b.ReportAllocs()
	for b.Loop() {
		var ok bool
		if path, ok = f.Path(from, to, path[:0]); !ok {
			b.Fatal("no path")
		}
	}
	b.ReportMetric(float64(len(path)), "waypoints")
}

// BenchmarkCover asks for cover within 8 m of control point B on metro
// from a threat at team 0's flag.
func BenchmarkCover(b *testing.B) {
	m := mustLoad(b, "metro")
	g := mustBuild(b, m)
	from := objective(b, m, "B").Pos
	threat := objective(b, m, "flag-0").Pos.Add(geom.V(0, 0, game.DefaultParams().EyeHeight))
	var spots []CoverSpot
	b.ReportAllocs()
	for b.Loop() {
		spots = g.Cover(from, threat, 8, spots[:0])
	}
	b.ReportMetric(float64(len(spots)), "spots")
}
