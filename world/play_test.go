package world

import (
	"math"
	"slices"
	"testing"

	"github.com/lagkit/lagkit/geom"
)

// Tests that the shipped maps are fair and playable: symmetric, enclosed,
// with every spawn and objective reachable on foot, and (on metro) cover
// never far away.

// turn returns p turned by quarter turns of 90 degrees counter-clockwise
// about the Z axis through the origin, the centre of every shipped map.
func turn(p geom.Vec3, quarters int) geom.Vec3 {
	for range quarters {
		p = geom.V(-p.Y, p.X, p.Z)
	}
	return p
}

func turnBox(b geom.AABB, quarters int) geom.AABB {
	return geom.Box(turn(b.Min, quarters), turn(b.Max, quarters))
}

// TestSymmetric checks that each map looks the same to every team: turned
// 180 degrees about its centre, each box lands on a box of the same kind,
// each spawn on a spawn of the opposing team (0 and 1, 2 and 3) facing the
// turned way, and each objective on one of the same kind whose team is
// swapped likewise. Courtyard is also checked under a quarter turn, which
// takes the corners' teams 0 -> 3 -> 1 -> 2 -> 0 (see the package doc).
func TestSymmetric(t *testing.T) {
	halfTurnTeam := func(team int) int {
		if team < 0 {
			return team
		}
		return team ^ 1
	}
	quarterTurnTeam := func(team int) int { return [...]int{3, 2, 0, 1}[team] }
	tests := []struct {
		name     string
		quarters int
		team     func(int) int
		objs     bool
	}{
		{"metro", 2, halfTurnTeam, true},
		{"arena", 2, halfTurnTeam, true},
		{"courtyard", 2, halfTurnTeam, true},
		// The two flags belong to teams 0 and 1 only, so objectives keep
		// just the half-turn symmetry.
		{"courtyard", 1, quarterTurnTeam, false},
	}
	for _, tt := range tests {
		m := mustLoad(t, tt.name)
		if c := m.Bounds.Center(); c.X != 0 || c.Y != 0 {
			t.Fatalf("%s: centred at %v, want the origin", tt.name, c)
		}
		for i, b := range m.Boxes {
			want := Box{b.Kind, turnBox(b.AABB, tt.quarters)}
			if !slices.Contains(m.Boxes, want) {
				t.Errorf("%s: boxes[%d] %v has no turned twin %v", tt.name, i, b, want.AABB)
			}
		}
		for i, s := range m.Spawns {
			pos, team := turn(s.Pos, tt.quarters), tt.team(s.Team)
			yaw := s.Yaw + float64(tt.quarters)*math.Pi/2
			if !slices.ContainsFunc(m.Spawns, func(o Spawn) bool {
				return o.Pos == pos && o.Team == team && math.Abs(math.Remainder(o.Yaw-yaw, 2*math.Pi)) < 1e-9
			}) {
				t.Errorf("%s: spawns[%d] %+v has no turned twin of team %d at %v", tt.name, i, s, team, pos)
			}
		}
		if !tt.objs {
			continue
		}
		for i, o := range m.Objectives {
			pos, team := turn(o.Pos, tt.quarters), tt.team(o.Team)
			if !slices.ContainsFunc(m.Objectives, func(p Objective) bool {
				return p.Pos == pos && p.Kind == o.Kind && p.Team == team
			}) {
				t.Errorf("%s: objectives[%d] %+v has no turned twin of team %d at %v", tt.name, i, o, team, pos)
			}
		}
	}
}

// Movement assumptions for the reachability tests: a walking player steps
// up at most 0.35 m (game.DefaultParams' StepHeight); stairs must climb with
// rises of at most 0.3 m, leaving a margin.
const (
	stairRise = 0.3
	cellSize  = 0.25 // the maps' design grid
)

// floor is a height map of a shipped map sampled at the centres of its
// 0.25 m design cells: the top of the highest box over the cell, or 0. The
// shipped maps have no overhangs, so this is where a player stands.
type floor struct {
	m      *Map
	nx, ny int
	h      []float64
}

func newFloor(m *Map) *floor {
	size := m.Bounds.Size()
	f := &floor{m: m, nx: int(size.X / cellSize), ny: int(size.Y / cellSize)}
	f.h = make([]float64, f.nx*f.ny)
	for _, b := range m.Boxes {
		x0, y0 := f.index(b.Min.X, m.Bounds.Min.X), f.index(b.Min.Y, m.Bounds.Min.Y)
		x1, y1 := f.index(b.Max.X, m.Bounds.Min.X), f.index(b.Max.Y, m.Bounds.Min.Y)
		for y := y0; y < y1; y++ {
			for x := x0; x < x1; x++ {
				f.h[y*f.nx+x] = max(f.h[y*f.nx+x], b.Max.Z)
			}
		}
	}
	return f
}

// index returns the cell boundary index of coordinate v on the grid from lo.
func (f *floor) index(v, lo float64) int { return int(math.Round((v - lo) / cellSize)) }

// cell returns the cell holding p.
func (f *floor) cell(p geom.Vec3) int {
	x := int((p.X - f.m.Bounds.Min.X) / cellSize)
	y := int((p.Y - f.m.Bounds.Min.Y) / cellSize)
	return min(y, f.ny-1)*f.nx + min(x, f.nx-1)
}

// centre returns the centre of cell c on its floor.
func (f *floor) centre(c int) geom.Vec3 {
	return geom.V(f.m.Bounds.Min.X+(float64(c%f.nx)+0.5)*cellSize,
		f.m.Bounds.Min.Y+(float64(c/f.nx)+0.5)*cellSize, f.h[c])
}

// standable reports whether a player fits on cell c: no cell within the
// capsule radius rises above a step.
func (f *floor) standable(c int) bool {
	x, y := c%f.nx, c/f.nx
	r := int(math.Ceil(playerRadius/cellSize - 0.5))
	for dy := -r; dy <= r; dy++ {
		for dx := -r; dx <= r; dx++ {
			if x+dx < 0 || x+dx >= f.nx || y+dy < 0 || y+dy >= f.ny || f.h[(y+dy)*f.nx+x+dx] > f.h[c]+stairRise {
				return false
			}
		}
	}
	return true
}

// reach returns the cells a walking player can reach from cell start:
// moving to a neighbouring cell where the player fits that is at most
// stairRise higher, or any amount lower (dropping off a platform).
func (f *floor) reach(start int) []bool {
	seen := make([]bool, len(f.h))
	if !f.standable(start) {
		return seen
	}
	seen[start] = true
	queue := []int{start}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		x, y := c%f.nx, c/f.nx
		for _, d := range [][2]int{{1, 0}, {-1, 0}, {0, 1}, {0, -1}} {
			nx, ny := x+d[0], y+d[1]
			if nx < 0 || nx >= f.nx || ny < 0 || ny >= f.ny {
				continue
			}
			n := ny*f.nx + nx
			if !seen[n] && f.h[n] <= f.h[c]+stairRise && f.standable(n) {
				seen[n] = true
				queue = append(queue, n)
			}
		}
	}
	return seen
}

// TestReachable checks that from every spawn a walking player can reach
// every spawn and every objective, so bots can play every mode, and that
// each stands on the floor. On arena this proves the stairs climb onto the
// platforms, where points A and C stand.
func TestReachable(t *testing.T) {
	for _, name := range Names() {
		m := mustLoad(t, name)
		f := newFloor(m)
		var targets []geom.Vec3
		var labels []string
		for _, s := range m.Spawns {
			targets = append(targets, s.Pos)
			labels = append(labels, "spawn")
		}
		for _, o := range m.Objectives {
			targets = append(targets, o.Pos)
			labels = append(labels, o.Kind+" "+o.Name)
		}
		for i, p := range targets {
			if h := f.h[f.cell(p)]; h != p.Z {
				t.Errorf("%s: %s at %v is not on the floor (height %g)", name, labels[i], p, h)
			}
		}
		for i, s := range m.Spawns {
			seen := f.reach(f.cell(s.Pos))
			for j, p := range targets {
				if !seen[f.cell(p)] {
					t.Errorf("%s: %s at %v cannot be reached from spawns[%d] at %v", name, labels[j], p, i, s.Pos)
				}
			}
		}
	}
}

// TestEnclosed checks the perimeter: every cell on the edge of the bounds is
// under a wall at least 3 m high, so no player walks or jumps out.
func TestEnclosed(t *testing.T) {
	for _, name := range Names() {
		f := newFloor(mustLoad(t, name))
		for c, h := range f.h {
			x, y := c%f.nx, c/f.nx
			if (x == 0 || y == 0 || x == f.nx-1 || y == f.ny-1) && h < 3 {
				t.Errorf("%s: edge cell at %v has a wall of only %g m", name, f.centre(c), h)
			}
		}
	}
}

// TestSpawnsSeeOpenFloor checks that no spawn is boxed in: looking round
// from the eye (1.65 m above the feet, game.DefaultParams), a player sees open
// floor 3 m away in at least a quarter of 16 directions.
func TestSpawnsSeeOpenFloor(t *testing.T) {
	const (
		eyeHeight = 1.65
		dirs      = 16
		dist      = 3.0
	)
	for _, name := range Names() {
		m := mustLoad(t, name)
		for i, s := range m.Spawns {
			eye := s.Pos.Add(geom.V(0, 0, eyeHeight))
			open := 0
			for d := range dirs {
				a := 2 * math.Pi * float64(d) / dirs
				ground := s.Pos.Add(geom.V(dist*math.Cos(a), dist*math.Sin(a), 0.05))
				if !m.Grid.SegmentBlocked(eye, ground) {
					open++
				}
			}
			if open < dirs/4 {
				t.Errorf("%s: spawns[%d] at %v sees open floor in %d of %d directions, want at least %d",
					name, i, s.Pos, open, dirs, dirs/4)
			}
		}
	}
}

// TestMetroCoverNearby checks that metro is cover-heavy, as the ALC study's
// map was: from every spot a player can reach, some box is at most 4 m away.
func TestMetroCoverNearby(t *testing.T) {
	const maxDist = 4.0
	m := mustLoad(t, "metro")
	f := newFloor(m)
	seen := f.reach(f.cell(m.Spawns[0].Pos))
	worst, at := 0.0, geom.Vec3{}
	for c, ok := range seen {
		if !ok {
			continue
		}
		p := f.centre(c)
		nearest := math.Inf(1)
		for _, b := range m.Boxes {
			dx := max(b.Min.X-p.X, 0, p.X-b.Max.X)
			dy := max(b.Min.Y-p.Y, 0, p.Y-b.Max.Y)
			nearest = min(nearest, math.Hypot(dx, dy))
		}
		if nearest > worst {
			worst, at = nearest, p
		}
	}
	if worst > maxDist {
		t.Errorf("at %v the nearest box is %.2f m away, want at most %g m", at, worst, maxDist)
	}
	t.Logf("farthest from cover: %.2f m at %v", worst, at)
}
