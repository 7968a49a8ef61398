package nav

import (
	"math"
	"slices"
	"testing"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/world"
	"github.com/lagkit/lagkit/world/worldtest"
)

// eyes returns the standing and crouched eye positions of a player with
// feet at p.
func eyes(p geom.Vec3) (stand, crouch geom.Vec3) {
	params := game.DefaultParams()
	return p.Add(geom.V(0, 0, params.EyeHeight)), p.Add(geom.V(0, 0, params.CrouchEyeHeight))
}

// checkCover checks Cover's answer for one query: every spot is hidden
// from the threat (the standing eye, or the crouched one for low cover,
// behind a box), within range and sorted; and every cover cell in range
// that hides a player is among them.
func checkCover(t *testing.T, m *world.Map, g *Grid, from, threat geom.Vec3, maxDist float64) []CoverSpot {
	t.Helper()
	spots := g.Cover(from, threat, maxDist, nil)
	for i, s := range spots {
		stand, crouch := eyes(s.Pos)
		eye := stand
		if s.Crouch {
			eye = crouch
			if !g.NeedsCrouch(s.Pos) && m.Grid.SegmentBlocked(threat, stand) {
				t.Errorf("%s: spot %v is marked low cover but hides a standing player", m.Name, s.Pos)
			}
		}
		if !m.Grid.SegmentBlocked(threat, eye) {
			t.Errorf("%s: spot %v (crouch %v) is visible from %v", m.Name, s.Pos, s.Crouch, threat)
		}
		if s.Dist > maxDist || s.Dist != s.Pos.Dist(from) {
			t.Errorf("%s: spot %v has Dist %g, %g from %v, limit %g", m.Name, s.Pos, s.Dist, s.Pos.Dist(from), from, maxDist)
		}
		if i > 0 && s.Dist < spots[i-1].Dist {
			t.Errorf("%s: spot %d at %g m after one at %g m", m.Name, i, s.Dist, spots[i-1].Dist)
		}
	}
	for _, n := range g.cover {
		p := g.point(n)
		stand, crouch := eyes(p)
		if p.Dist(from) <= maxDist && (m.Grid.SegmentBlocked(threat, stand) || m.Grid.SegmentBlocked(threat, crouch)) &&
			!slices.ContainsFunc(spots, func(s CoverSpot) bool { return s.Pos == p }) {
			t.Errorf("%s: hidden cover cell %v is missing", m.Name, p)
		}
	}
	return spots
}

// TestCoverBoxes checks cover behind worldtest's two boxes from a threat
// at the origin: the wall (3 m) hides a standing player, the low cover
// (1.25 m) only a crouched one, and nothing hides a player on the
// threat's side of either.
func TestCoverBoxes(t *testing.T) {
	m := worldtest.Cover(t)
	g := mustBuild(t, m)
	threat, _ := eyes(geom.V(0, 0, 0))
	tests := []struct {
		name   string
		from   geom.Vec3
		crouch bool
	}{
		{"wall", geom.V(11.5, 2, 0), false},
		{"low cover", geom.V(11.5, -6, 0), true},
	}
	for _, tt := range tests {
		spots := checkCover(t, m, g, tt.from, threat, 3)
		if len(spots) == 0 {
			t.Errorf("%s: no cover near %v", tt.name, tt.from)
		}
		for _, s := range spots {
			if s.Pos.X < 10.5 || s.Crouch != tt.crouch {
				t.Errorf("%s: spot %v (crouch %v), want one beyond x = 10.5 with crouch %v", tt.name, s.Pos, s.Crouch, tt.crouch)
			}
		}
		// The nearest spot is the cell hugging the box nearest from.
		if len(spots) > 0 && spots[0].Dist > 1 {
			t.Errorf("%s: nearest spot %v is %g m away", tt.name, spots[0].Pos, spots[0].Dist)
		}
	}
	// Far from every box: nothing.
	if spots := g.Cover(geom.V(-40, 0, 0), threat, 10, nil); len(spots) != 0 {
		t.Errorf("cover in the open: %v", spots)
	}
}

// TestCoverShipped checks Cover on every shipped map from every spawn,
// against a threat standing at every objective.
func TestCoverShipped(t *testing.T) {
	for _, name := range world.Names() {
		m := mustLoad(t, name)
		g := mustBuild(t, m)
		total := 0
		for _, s := range m.Spawns {
			for _, o := range m.Objectives {
				threat, _ := eyes(o.Pos)
				total += len(checkCover(t, m, g, s.Pos, threat, 10))
			}
		}
		if total == 0 {
			t.Errorf("%s: no cover anywhere", name)
		}
	}
}

func TestCoverEdgeCases(t *testing.T) {
	m := mustLoad(t, "metro")
	g := mustBuild(t, m)
	dst := []CoverSpot{{Dist: 42}}
	threat, _ := eyes(m.Spawns[1].Pos)
	for _, tt := range []struct {
		from, threat geom.Vec3
		maxDist      float64
	}{
		{geom.V(0, 100, 0), threat, 5},
		{m.Spawns[0].Pos, threat, -1},
		{m.Spawns[0].Pos, geom.V(math.NaN(), 0, 0), 5},
		{m.Spawns[0].Pos, threat, math.NaN()},
	} {
		if got := g.Cover(tt.from, tt.threat, tt.maxDist, dst); !slices.Equal(got, dst) {
			t.Errorf("Cover(%v, %v, %g) = %v, want dst unchanged", tt.from, tt.threat, tt.maxDist, got)
		}
	}
	// Appending keeps what dst held.
	got := g.Cover(m.Spawns[0].Pos, threat, 10, dst)
	if len(got) < 2 || got[0] != dst[0] {
		t.Errorf("Cover appended %v to %v", got, dst)
	}
	var nilGrid *Grid
	if got := nilGrid.Cover(m.Spawns[0].Pos, threat, 10, nil); got != nil {
		t.Errorf("Cover on a nil Grid = %v", got)
	}
}

func TestCoverAllocs(t *testing.T) {
	m := mustLoad(t, "metro")
	g := mustBuild(t, m)
	threat, _ := eyes(m.Spawns[1].Pos)
	spots := g.Cover(m.Spawns[0].Pos, threat, 10, nil)
	if n := testing.AllocsPerRun(100, func() { g.Cover(m.Spawns[0].Pos, threat, 10, spots[:0]) }); n != 0 {
		t.Errorf("Cover allocates %v times per call", n)
	}
}
