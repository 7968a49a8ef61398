package nav

import (
	"fmt"
	"math"
	"testing"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/world"
)

func mustLoad(t testing.TB, name string) *world.Map {
	t.Helper()
	m, err := world.Load(name)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func mustBuild(t testing.TB, m *world.Map) *Grid {
	t.Helper()
	g, err := Build(m, nil)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func objective(t testing.TB, m *world.Map, name string) world.Objective {
	t.Helper()
	for _, o := range m.Objectives {
		if o.Name == name {
			return o
		}
	}
	t.Fatalf("%s has no objective %q", m.Name, name)
	return world.Objective{}
}

// parseMap returns a 20 x 20 m test map centred on the origin, 6 m high,
// with the given JSON lists of boxes, spawns and objectives.
func parseMap(t testing.TB, name, boxes, spawns, objectives string) *world.Map {
	t.Helper()
	data := fmt.Sprintf(`{"name": %q, "bounds": {"min": [-10, -10, 0], "max": [10, 10, 6]},
		"boxes": [%s], "spawns": [%s], "objectives": [%s]}`, name, boxes, spawns, objectives)
	m, err := world.Parse(name+".json", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// onWalkable reports whether p lies over the cell of a reachable floor at
// exactly p's height, found by brute force over every floor.
func onWalkable(g *Grid, p geom.Vec3) bool {
	for _, n := range g.reach {
		c := g.point(n)
		if c.Z == p.Z && math.Abs(p.X-c.X) <= g.cell/2 && math.Abs(p.Y-c.Y) <= g.cell/2 {
			return true
		}
	}
	return false
}

// checkLegs fails t when a waypoint of path is off the walkable cells or
// when the capsule's footprint, sampled every centimetre along a leg, comes
// within the player's radius (less the fit tolerance) of a box it cannot
// step onto. It tests every box of m, not just those the grid finds.
func checkLegs(t *testing.T, m *world.Map, g *Grid, path []geom.Vec3) {
	t.Helper()
	p := game.DefaultParams()
	for i, w := range path {
		if !onWalkable(g, w) {
			t.Errorf("%s: waypoint %d %v is not on a walkable cell", m.Name, i, w)
		}
	}
	lim := p.Radius - fitTol - 1e-9
	for i := 1; i < len(path); i++ {
		a, b := path[i-1], path[i]
		top := max(a.Z, b.Z)
		steps := int(math.Ceil(math.Hypot(b.X-a.X, b.Y-a.Y)/0.01)) + 1
		if a.Z == b.Z {
			// A level leg keeps to floors at its height all the way.
			for k := range steps + 1 {
				if q := a.Lerp(b, float64(k)/float64(steps)); !hasFloor(g, q) {
					t.Errorf("%s: leg %v -> %v leaves its floor at %v", m.Name, a, b, q)
					break
				}
			}
		}
		for j, box := range m.Boxes {
			if box.Max.Z <= top+p.StepHeight || box.Min.Z >= top+p.Height {
				continue
			}
			for k := range steps + 1 {
				q := a.Lerp(b, float64(k)/float64(steps))
				if d := math.Sqrt(pointRectDist2(q, box.AABB)); d < lim {
					t.Errorf("%s: leg %v -> %v passes %.3f m from boxes[%d] %v at %v", m.Name, a, b, d, j, box.AABB, q)
					break
				}
			}
		}
	}
}

// hasFloor reports whether the column holding p has a reachable floor at
// p's height.
func hasFloor(g *Grid, p geom.Vec3) bool {
	x, y := int(math.Floor((p.X-g.x0)/g.cell)), int(math.Floor((p.Y-g.y0)/g.cell))
	if x < 0 || y < 0 || x >= g.nx || y >= g.ny {
		return false
	}
	col := y*g.nx + x
	for n := g.start[col]; n < g.start[col+1]; n++ {
		if g.nodes[n].z == p.Z && g.nodes[n].reach {
			return true
		}
	}
	return false
}
