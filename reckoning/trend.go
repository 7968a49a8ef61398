package reckoning

import (
	"slices"

	"fmt"
	"math"

	"github.com/lagkit/lagkit/geom"
)

// DefaultGrid is the default number of trend map cells along each axis:
// 100 x 100 over the map, lagkit's default for the trend maps of led
// reckoning (Reference: [led], docs/references.md).
const DefaultGrid = 100

// MaxGrid is the most cells a trend map has along an axis.
const MaxGrid = 400

// MinSpeed is the slowest movement between two samples that counts
// towards a trend, in m/s: slower is standing still, whose direction is
// noise.
const MinSpeed = 0.5

// TrendMap is a grid over a map's plan holding, in each cell, the mean
// axis of movement of the players who crossed it.
type TrendMap struct {
	// Map names the map the trend map was built for.
	Map string
	// Team is the team whose paths were used, or -1 for every team.
	Team int
	// Bounds is the area of the grid; only X and Y are used.
	Bounds geom.AABB
	// NX and NY are the numbers of cells along X and Y.
	NX, NY int
	// Cells holds the NX x NY cells by rows along X: cell (ix, iy) is
	// Cells[iy*NX+ix].
	Cells []TrendCell
}

// TrendCell is one cell of a trend map.
type TrendCell struct {
	// Dir is the unit direction of the mean axis of movement (Z = 0;
	// a direction and its opposite are the same axis), or zero when no
	// one moved through the cell.
	Dir geom.Vec3
	// N is the number of movements averaged.
	N int
}

// Build fills m.Cells from the movements between consecutive samples of
// each player of m.Team (every team when it is -1) along Tracks: each
// step faster than MinSpeed adds its horizontal direction to the cell
// under the step's midpoint. Map, Team, Bounds, NX and NY must be set.
// A cell whose directions cancel exactly has no trend.
func (m *TrendMap) Build(samples []Sample) error {
	if err := m.checkGrid(); err != nil {
		return err
	}
	// The circular mean of doubled angles: the sums of cos 2θ and
	// sin 2θ of each direction (cos θ, sin θ).
	type sum struct {
		c, s float64
		n    int
	}
	sums := make([]sum, m.NX*m.NY)
	for _, tr := range Tracks(samples) {
		if m.Team >= 0 && tr.Team != m.Team {
			continue
		}
		for i := 1; i < len(tr.Samples); i++ {
			a, b := tr.Samples[i-1], tr.Samples[i]
			d := b.Pos.Sub(a.Pos)
			d.Z = 0
			if d.Len() < MinSpeed*(b.T-a.T).Seconds() {
				continue
			}
			k, ok := m.index(a.Pos.Lerp(b.Pos, 0.5))
			if !ok {
				continue
			}
			u := d.Norm()
			sums[k].c += u.X*u.X - u.Y*u.Y
			sums[k].s += 2 * u.X * u.Y
			sums[k].n++
		}
	}
	m.Cells = make([]TrendCell, len(sums))
	for k, s := range sums {
		if s.n == 0 || s.c == 0 && s.s == 0 {
			continue
		}
		phi := math.Atan2(s.s, s.c) / 2
		m.Cells[k] = TrendCell{Dir: geom.V(math.Cos(phi), math.Sin(phi), 0), N: s.n}
	}
	return nil
}

// Lookup returns the trend of the cell under pos, and false when pos is
// outside the grid or no one moved through its cell.
func (m *TrendMap) Lookup(pos geom.Vec3) (geom.Vec3, bool) {
	k, ok := m.index(pos)
	if !ok || k >= len(m.Cells) || m.Cells[k].N == 0 {
		return geom.Vec3{}, false
	}
	return m.Cells[k].Dir, true
}

// index returns the index in Cells of the cell under pos, and false
// when pos is outside the grid.
func (m *TrendMap) index(pos geom.Vec3) (int, bool) {
	b := m.Bounds
	if !(pos.X >= b.Min.X && pos.X <= b.Max.X && pos.Y >= b.Min.Y && pos.Y <= b.Max.Y) || m.NX <= 0 || m.NY <= 0 {
		return 0, false
	}
	ix := min(int((pos.X-b.Min.X)/(b.Max.X-b.Min.X)*float64(m.NX)), m.NX-1)
	iy := min(int((pos.Y-b.Min.Y)/(b.Max.Y-b.Min.Y)*float64(m.NY)), m.NY-1)
	return iy*m.NX + ix, true
}

// checkGrid reports what is wrong with m's grid, if anything.
func (m *TrendMap) checkGrid() error {
	b := m.Bounds
	switch {
	case m.Map == "":
		return fmt.Errorf("reckoning: trend map: no map name")
	case m.Team < -1 || m.Team >= MaxPathPlayer:
		return fmt.Errorf("reckoning: trend map: team %d outside -1..%d", m.Team, MaxPathPlayer-1)
	case m.NX < 1 || m.NX > MaxGrid || m.NY < 1 || m.NY > MaxGrid:
		return fmt.Errorf("reckoning: trend map: grid %d x %d, want 1 to %d cells a side", m.NX, m.NY, MaxGrid)
	case !finiteIn(b.Min.X) || !finiteIn(b.Min.Y) || !finiteIn(b.Max.X) || !finiteIn(b.Max.Y):
		return fmt.Errorf("reckoning: trend map: bounds %v outside ±%v m", b, MaxPathCoord)
	case !(b.Min.X < b.Max.X && b.Min.Y < b.Max.Y):
		return fmt.Errorf("reckoning: trend map: bounds min %v not below max %v in x and y", b.Min, b.Max)
	}
	return nil
}

func finiteIn(v float64) bool { return math.Abs(v) <= MaxPathCoord }

// Filled returns how many of m's cells have a trend.
func (m *TrendMap) Filled() int {
	n := 0
	for _, c := range m.Cells {
		if c.N > 0 {
			n++
		}
	}
	return n
}

// Teams returns the teams samples are of, in order.
func Teams(samples []Sample) []int {
	var teams []int
	for _, x := range samples {
		if !slices.Contains(teams, x.Team) {
			teams = append(teams, x.Team)
		}
	}
	slices.Sort(teams)
	return teams
}
