package nav

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/world"
)

// DefaultCellSize is the side of a grid cell in metres when BuildOptions
// leaves it zero: fine enough that every gap 1.3 m wide (the player's
// 0.8 m plus a cell) is found wherever it lies, and coarse enough that a
// 64 x 64 m map has 16384 columns.
const DefaultCellSize = 0.5

const (
	// fitTol is how far the capsule may reach into a box and still count
	// as fitting, so that a capsule just touching a box (a spawn placed
	// against a wall) fits despite rounding in the map's numbers.
	fitTol = 0.01
	// snapRange is how far Snap and Path look for a walkable floor.
	snapRange = 3.0
	// coverHeight is the least height above a floor of a box that gives
	// cover there.
	coverHeight = 0.9
	// maxColumns and maxNodes bound a Grid's memory to about 70 MB (32
	// bytes a floor plus 4 a column; maxColumns is a 1 km square at 1 m
	// cells): a cell size that would need more is an error.
	maxColumns = 1 << 20
	maxNodes   = 1 << 21
	// noLink marks a missing edge; it also bounds the floors in a column.
	noLink = math.MaxUint8
)

// dirs are the 8 neighbouring columns: the orthogonal ones first, then the
// diagonals, diagonal d lying between orthogonals d-4 and (d-3)&3.
var dirs = [8]struct{ dx, dy int }{
	{1, 0}, {0, 1}, {-1, 0}, {0, -1},
	{1, 1}, {-1, 1}, {-1, -1}, {1, -1},
}

// BuildOptions are the settings of BuildWithOptions; the zero value gives
// the defaults.
type BuildOptions struct {
	// CellSize is the side of a square cell in metres; zero means
	// DefaultCellSize.
	CellSize float64
}

// Grid is a navigation grid of one map. It is read-only after Build and safe
// for concurrent use.
type Grid struct {
	boxes *geom.Grid // the map's broad phase
	p     game.Params
	// Column (x, y) covers [x0 + x*cell, x0 + (x+1)*cell) and likewise in
	// y; its floors are nodes[start[y*nx+x]:start[y*nx+x+1]], lowest first.
	x0, y0, cell float64
	nx, ny       int
	start        []int32
	nodes        []node
	stepCost     [8]float64
	reach        []int32 // nodes reachable from a spawn, ascending
	cover        []int32 // reachable nodes beside cover, ascending
	// passed remembers the places of the last spawns and objectives
	// Check found walkable, so a Grid shared by many matches is checked
	// once.
	passed *checkMemo
}

// node is one walkable floor.
type node struct {
	z   float64
	col int32
	// link[d] is the index within the column that direction d leads to of
	// the floor there, or noLink. That column is the neighbour, or for
	// an orthogonal drop hop[d] columns away.
	link   [8]uint8
	hop    [4]uint8
	crouch bool // only the crouched capsule fits
	reach  bool // reachable from a spawn
}

// Build returns the navigation grid of m for players moving by p (nil
// means game.DefaultParams) with DefaultCellSize cells.
func Build(m *world.Map, p *game.Params) (*Grid, error) {
	return BuildWithOptions(m, p, BuildOptions{})
}

// BuildWithOptions is Build with settings.
func BuildWithOptions(m *world.Map, p *game.Params, o BuildOptions) (*Grid, error) {
	if m == nil {
		return nil, errors.New("nav: nil map")
	}
	params := game.DefaultParams()
	if p != nil {
		params = *p
	}
	if err := params.Validate(); err != nil {
		return nil, fmt.Errorf("nav: %s: %w", m.Name, err)
	}
	cell := o.CellSize
	if cell == 0 {
		cell = DefaultCellSize
	}
	if !(cell > 0) || math.IsInf(cell, 0) {
		return nil, fmt.Errorf("nav: %s: cell size %g is not positive and finite", m.Name, cell)
	}
	size := m.Bounds.Size()
	if !m.Bounds.Min.IsFinite() || !m.Bounds.Max.IsFinite() || !(size.X > 0) || !(size.Y > 0) {
		return nil, fmt.Errorf("nav: %s: bounds %v are empty or not finite", m.Name, m.Bounds)
	}
	nx, ny := math.Ceil(size.X/cell), math.Ceil(size.Y/cell)
	if nx*ny > maxColumns {
		return nil, fmt.Errorf("nav: %s: %g x %g cells of %g m exceed the limit of %d; use larger cells",
			m.Name, nx, ny, cell, maxColumns)
	}
	key := gridKey{params: params, cell: cell, geometry: geometry(m)}
	if g := builds.get(key); g != nil {
		return g, nil
	}
	g, err := build(m, params, cell, int(nx), int(ny))
	if err != nil {
		return nil, err
	}
	builds.put(key, g)
	return g, nil
}

// build builds the Grid of m with nx by ny cells of side cell, for
// players moving by params (checked by BuildWithOptions).
func build(m *world.Map, params game.Params, cell float64, nx, ny int) (*Grid, error) {
	boxes := m.Grid
	if boxes == nil {
		aabbs := make([]geom.AABB, len(m.Boxes))
		for i, b := range m.Boxes {
			aabbs[i] = b.AABB
		}
		boxes = geom.NewGrid(aabbs, 0)
	}
	g := &Grid{
		boxes: boxes, p: params,
		x0: m.Bounds.Min.X, y0: m.Bounds.Min.Y, cell: cell,
		nx: nx, ny: ny, passed: &checkMemo{},
	}
	for d := range dirs {
		g.stepCost[d] = cell
		if d >= 4 {
			g.stepCost[d] = cell * math.Sqrt2
		}
	}
	b := builder{g: g, all: boxes.Boxes()}
	if err := b.floors(); err != nil {
		return nil, fmt.Errorf("nav: %s: %w", m.Name, err)
	}
	b.linkAll()
	b.markReach(m)
	if len(g.reach) == 0 {
		return nil, fmt.Errorf("nav: %s: no spawn stands on walkable floor", m.Name)
	}
	b.markCover()
	return g, nil
}

// stance is how a player fits at a spot.
type stance uint8

const (
	noFit stance = iota
	crouchFit
	standFit
)

// builder holds the scratch state of Build.
type builder struct {
	g     *Grid
	all   []geom.AABB
	buf   []int // the boxes over the column being built
	fbuf  []int // the boxes near a capsule being fitted
	zs    []float64
	links [][8]int32 // per node, the global index of each neighbour or -1
}

// floors finds every column's floors.
func (b *builder) floors() error {
	g := b.g
	g.start = make([]int32, g.nx*g.ny+1)
	for col := range g.nx * g.ny {
		c := g.centre(col)
		b.buf = g.boxes.Query(geom.AABB{Min: geom.V(c.X, c.Y, math.Inf(-1)), Max: geom.V(c.X, c.Y, math.Inf(1))}, b.buf[:0])
		b.zs = append(b.zs[:0], 0)
		for _, i := range b.buf {
			b.zs = append(b.zs, b.all[i].Max.Z)
		}
		slices.Sort(b.zs)
		b.zs = slices.Compact(b.zs)
		first := len(g.nodes)
		for _, z := range b.zs {
			if b.buried(z) {
				continue
			}
			s := b.fit(c.X, c.Y, z)
			if s == noFit {
				continue
			}
			if len(g.nodes)-first == noLink {
				return fmt.Errorf("column at (%g, %g) has more than %d floors", c.X, c.Y, noLink)
			}
			if len(g.nodes) == maxNodes {
				return fmt.Errorf("more than %d floors; use larger cells", maxNodes)
			}
			g.nodes = append(g.nodes, node{z: z, col: int32(col), crouch: s == crouchFit})
		}
		g.start[col+1] = int32(len(g.nodes))
	}
	return nil
}

// buried reports whether one of the boxes in b.buf, which all span the
// column's centre, fills the space just above floor z.
func (b *builder) buried(z float64) bool {
	for _, i := range b.buf {
		if box := b.all[i]; box.Min.Z <= z && z < box.Max.Z {
			return true
		}
	}
	return false
}

// fit returns how a player with feet at (x, y, z) fits among the boxes it
// cannot step onto.
func (b *builder) fit(x, y, z float64) stance {
	p := &b.g.p
	region := geom.AABB{
		Min: geom.V(x-p.Radius, y-p.Radius, z),
		Max: geom.V(x+p.Radius, y+p.Radius, z+p.Height),
	}
	b.fbuf = b.g.boxes.Query(region, b.fbuf[:0])
	s := standFit
	for _, i := range b.fbuf {
		box := b.all[i]
		if box.Max.Z <= z+p.StepHeight {
			continue
		}
		dx := max(box.Min.X-x, 0, x-box.Max.X)
		dy := max(box.Min.Y-y, 0, y-box.Max.Y)
		if !clears(dx*dx+dy*dy, z, p.CrouchHeight, box, p) {
			return noFit
		}
		if !clears(dx*dx+dy*dy, z, p.Height, box, p) {
			s = crouchFit
		}
	}
	return s
}

// clears reports whether a capsule of height h with its feet on floor z,
// at squared horizontal distance d2 from box, keeps clear of it. The
// capsule's core is a vertical segment, so its distance to the box splits
// into a horizontal and a vertical part.
func clears(d2, z, h float64, box geom.AABB, p *game.Params) bool {
	dz := max(box.Min.Z-(z+h-p.Radius), 0, z+p.Radius-box.Max.Z)
	lim := max(p.Radius-fitTol, 0)
	return d2+dz*dz >= lim*lim
}

// linkAll finds every floor's edges, orthogonal ones first because the
// diagonal ones depend on them, and stores them compactly.
func (b *builder) linkAll() {
	g := b.g
	b.links = make([][8]int32, len(g.nodes))
	for d := range dirs {
		for n := range g.nodes {
			t, hop := b.link(int32(n), d)
			b.links[n][d] = t
			if d < 4 {
				g.nodes[n].hop[d] = uint8(hop)
			}
		}
	}
	for n := range g.nodes {
		for d, t := range b.links[n] {
			g.nodes[n].link[d] = noLink
			if t >= 0 {
				g.nodes[n].link[d] = uint8(t - g.start[g.nodes[t].col])
			}
		}
	}
}

// link returns the floor that floor n leads to in direction d and how
// many columns away it is, or -1.
//
// Beside a wall, the cells whose centres lie within the player's radius of
// it have no walkable floor, so a player stepping off a platform's edge
// into such a cell falls and slides down the wall until it lands in the
// first cell clear of it. An orthogonal link therefore passes over cells
// with no floor within a step, as long as the capsule fits above them at
// the height it leaves from; that needs at most the cells within Radius of
// a wall, plus the one it lands in.
func (b *builder) link(n int32, d int) (int32, int) {
	g := b.g
	a := g.nodes[n]
	maxHop := 1
	if d < 4 {
		maxHop = int(math.Ceil(g.p.Radius/g.cell)) + 1
	}
	col := a.col
	for hop := 1; hop <= maxHop; hop++ {
		var ok bool
		if col, ok = g.neighbourCol(col, d); !ok {
			return -1, 0
		}
		t := int32(-1)
		for i := g.start[col]; i < g.start[col+1] && g.nodes[i].z <= a.z+g.p.StepHeight; i++ {
			t = i
		}
		c := g.centre(int(col))
		if t < 0 {
			if b.fit(c.X, c.Y, a.z) == noFit {
				return -1, 0
			}
			continue
		}
		top := max(a.z, g.nodes[t].z)
		if from := g.centre(int(a.col)); b.fit(from.X, from.Y, top) == noFit || b.fit(c.X, c.Y, top) == noFit {
			return -1, 0
		}
		if d >= 4 {
			o1, o2 := d-4, (d-3)&3
			m1, m2 := b.links[n][o1], b.links[n][o2]
			if m1 < 0 || m2 < 0 || b.links[m1][o2] != t || b.links[m2][o1] != t {
				return -1, 0
			}
		}
		return t, hop
	}
	return -1, 0
}

// markReach marks the floors a player walks to from some spawn.
func (b *builder) markReach(m *world.Map) {
	g := b.g
	var queue []int32
	for _, s := range m.Spawns {
		if n, ok := g.onFloor(s.Pos); ok && !g.nodes[n].reach {
			g.nodes[n].reach = true
			queue = append(queue, n)
		}
	}
	for len(queue) > 0 {
		n := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		for _, t := range b.links[n] {
			if t >= 0 && !g.nodes[t].reach {
				g.nodes[t].reach = true
				queue = append(queue, t)
			}
		}
	}
	for n := range g.nodes {
		if g.nodes[n].reach {
			g.reach = append(g.reach, int32(n))
		}
	}
}

// markCover lists the reachable floors within a cell of a box that rises
// at least coverHeight above them from no higher than a step: the first
// ring of walkable cells round such a box.
func (b *builder) markCover() {
	g := b.g
	reach := g.p.Radius + g.cell
	for _, n := range g.reach {
		c := g.point(n)
		region := geom.AABB{
			Min: geom.V(c.X-reach, c.Y-reach, c.Z),
			Max: geom.V(c.X+reach, c.Y+reach, c.Z+coverHeight),
		}
		b.buf = g.boxes.Query(region, b.buf[:0])
		for _, i := range b.buf {
			box := b.all[i]
			dx := max(box.Min.X-c.X, 0, c.X-box.Max.X)
			dy := max(box.Min.Y-c.Y, 0, c.Y-box.Max.Y)
			if box.Max.Z-c.Z >= coverHeight && box.Min.Z <= c.Z+g.p.StepHeight && dx*dx+dy*dy <= reach*reach {
				g.cover = append(g.cover, n)
				break
			}
		}
	}
}

// centre returns the centre of column col at z = 0.
func (g *Grid) centre(col int) geom.Vec3 {
	return geom.V(g.x0+(float64(col%g.nx)+0.5)*g.cell, g.y0+(float64(col/g.nx)+0.5)*g.cell, 0)
}

// point returns the centre of floor n.
func (g *Grid) point(n int32) geom.Vec3 {
	c := g.centre(int(g.nodes[n].col))
	c.Z = g.nodes[n].z
	return c
}

// neighbourCol returns the column next to col in direction d, if any.
func (g *Grid) neighbourCol(col int32, d int) (int32, bool) {
	x, y := int(col)%g.nx+dirs[d].dx, int(col)/g.nx+dirs[d].dy
	if x < 0 || x >= g.nx || y < 0 || y >= g.ny {
		return 0, false
	}
	return int32(y*g.nx + x), true
}

// neighbour returns the floor that floor n leads to in direction d, or -1,
// and how many columns away it is.
func (g *Grid) neighbour(n int32, d int) (int32, int) {
	nd := &g.nodes[n]
	if nd.link[d] == noLink {
		return -1, 0
	}
	hop := 1
	if d < 4 {
		hop = int(nd.hop[d])
	}
	col := nd.col + int32(hop*(dirs[d].dy*g.nx+dirs[d].dx))
	return g.start[col] + int32(nd.link[d]), hop
}

// colRange returns the columns from x0 to x1 (inclusive) and likewise for
// y that lie within r of (x, y), clamped to the grid; it reports false
// when there are none.
func (g *Grid) colRange(x, y, r float64) (x0, y0, x1, y1 int, ok bool) {
	fx0, fx1 := math.Floor((x-r-g.x0)/g.cell), math.Floor((x+r-g.x0)/g.cell)
	fy0, fy1 := math.Floor((y-r-g.y0)/g.cell), math.Floor((y+r-g.y0)/g.cell)
	if !(fx1 >= 0 && fy1 >= 0 && fx0 < float64(g.nx) && fy0 < float64(g.ny)) {
		return 0, 0, 0, 0, false
	}
	return int(max(fx0, 0)), int(max(fy0, 0)), int(min(fx1, float64(g.nx-1))), int(min(fy1, float64(g.ny-1))), true
}

// onFloor returns the floor that p stands on: among the floors of p's
// column and its 8 neighbours within a step of p's height, the nearest,
// reachable or not.
func (g *Grid) onFloor(p geom.Vec3) (int32, bool) {
	if !p.IsFinite() {
		return 0, false
	}
	return g.nearest(p, g.cell, g.p.StepHeight, false)
}

// nearest returns the floor whose centre is nearest p among the columns
// within r of p horizontally and the floors within dz of p.Z, only
// reachable ones when reach is set. Ties go to the lower index.
func (g *Grid) nearest(p geom.Vec3, r, dz float64, reach bool) (int32, bool) {
	x0, y0, x1, y1, ok := g.colRange(p.X, p.Y, r)
	if !ok {
		return 0, false
	}
	best, bestD := int32(-1), math.Inf(1)
	for y := y0; y <= y1; y++ {
		// The column's centre as centre computes it, without dividing
		// its index.
		cy := g.y0 + (float64(y)+0.5)*g.cell
		for x := x0; x <= x1; x++ {
			col := y*g.nx + x
			cx := g.x0 + (float64(x)+0.5)*g.cell
			for n := g.start[col]; n < g.start[col+1]; n++ {
				nd := &g.nodes[n]
				if (reach && !nd.reach) || math.Abs(nd.z-p.Z) > dz {
					continue
				}
				if d := geom.V(cx, cy, nd.z).Dist(p); d < bestD {
					best, bestD = n, d
				}
			}
		}
	}
	return best, best >= 0
}

// snap returns the reachable floor nearest p within snapRange.
func (g *Grid) snap(p geom.Vec3) (int32, bool) {
	if g == nil || !p.IsFinite() {
		return 0, false
	}
	n, ok := g.nearest(p, snapRange, snapRange, true)
	if !ok || g.point(n).Dist(p) > snapRange {
		return 0, false
	}
	return n, true
}

// floorPoint returns p on floor n when p lies over n's cell and a player
// walks straight there from the cell's centre, and the centre otherwise.
// It gathers boxes in buf and returns it for reuse.
func (g *Grid) floorPoint(n int32, p geom.Vec3, buf []int) ([]int, geom.Vec3) {
	c := g.point(n)
	if math.Abs(p.X-c.X) > g.cell/2 || math.Abs(p.Y-c.Y) > g.cell/2 {
		return buf, c
	}
	q := geom.V(p.X, p.Y, c.Z)
	buf, ok := g.straight(c, q, buf)
	if !ok {
		return buf, c
	}
	return buf, q
}

// Snap returns the walkable floor point nearest p within 3 m: p itself
// dropped or raised onto the floor when p lies over a walkable cell and
// the player fits there, or else the centre of the nearest walkable cell.
// Distances are straight lines in 3D to cell centres. It reports false
// when there is none.
func (g *Grid) Snap(p geom.Vec3) (geom.Vec3, bool) {
	n, ok := g.snap(p)
	if !ok {
		return geom.Vec3{}, false
	}
	var buf [64]int
	_, q := g.floorPoint(n, p, buf[:0])
	return q, true
}

// NeedsCrouch reports whether the walkable floor nearest p (as Snap finds
// it) fits only a crouched player, so a bot walking there must crouch.
func (g *Grid) NeedsCrouch(p geom.Vec3) bool {
	n, ok := g.snap(p)
	return ok && g.nodes[n].crouch
}

// Random returns the centre of a walkable cell drawn uniformly from those a
// player can walk to from a spawn, using r, or the zero vector for a nil
// Grid.
func (g *Grid) Random(r *rand.Rand) geom.Vec3 {
	if g == nil || len(g.reach) == 0 {
		return geom.Vec3{}
	}
	return g.point(g.reach[r.IntN(len(g.reach))])
}

// CellSize returns the side of the grid's cells in metres.
func (g *Grid) CellSize() float64 {
	if g == nil {
		return 0
	}
	return g.cell
}
