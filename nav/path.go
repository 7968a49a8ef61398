package nav

import (
	"math"

	"github.com/lagkit/lagkit/geom"
)

// Finder finds paths on one Grid. It keeps the scratch memory of its
// searches, so that after the first few a search does not allocate. A
// Finder is not safe for concurrent use: give each bot its own.
type Finder struct {
	g *Grid
	// marks[n] holds floor n's search state, valid in the search of
	// generation gen (see mark). The generation saves clearing them per
	// search.
	marks    []mark
	gen      uint32
	open     []entry
	cells    []int32 // the last path's floors, start first
	boxes    []int
	from, to geom.Vec3 // the last path's end points on their floors
}

// mark is one floor's state in a search: its cost and parent are valid
// when seen == the search's generation, and it is closed when done is.
// They lie together, so that looking a floor up touches one cache line
// rather than four arrays.
type mark struct {
	cost       float64
	parent     int32
	seen, done uint32
}

// entry is a floor in A*'s open set.
type entry struct {
	f, h float64 // estimated total cost and heuristic
	n    int32
}

// less orders the open set: lowest estimated cost first, then nearest the
// goal (which finishes straight runs before widening), then lowest index.
func (a entry) less(b entry) bool {
	if a.f != b.f {
		return a.f < b.f
	}
	if a.h != b.h {
		return a.h < b.h
	}
	return a.n < b.n
}

// NewFinder returns a Finder for g. A Finder of a nil Grid finds no
// paths.
func (g *Grid) NewFinder() *Finder {
	if g == nil {
		return &Finder{}
	}
	return &Finder{g: g, marks: make([]mark, len(g.nodes))}
}

// Path appends to dst the waypoints of a walk from from to to and returns
// the extended slice. Both ends snap to the nearest walkable floor within
// 3 m, as Snap does, so the first waypoint is from and the last is to,
// each on its floor, unless the player does not fit there; a path from a
// point to itself is just that point. The waypoints
// are feet positions on the floor; between the ends come only the corners,
// steps and drops where the walk turns or changes level, so every leg is a
// straight line on one floor or a step or drop between neighbouring cells
// (see the package doc). Path reports false, leaving dst as it was, when
// an end has no walkable floor nearby or no walk leads from one to the
// other.
func (f *Finder) Path(from, to geom.Vec3, dst []geom.Vec3) ([]geom.Vec3, bool) {
	g := f.g
	s, ok := g.snap(from)
	if !ok {
		return dst, false
	}
	t, ok := g.snap(to)
	if !ok || !f.search(s, t) {
		return dst, false
	}
	f.boxes, f.from = g.floorPoint(s, from, f.boxes)
	f.boxes, f.to = g.floorPoint(t, to, f.boxes)
	return f.pull(dst), true
}

// search runs A* from floor s to floor t and leaves the path in f.cells.
// The heuristic needs each floor's column coordinates: they are worked
// out once for the floor expanded, and for its neighbours from the
// direction and length of the edge, rather than by a division each.
func (f *Finder) search(s, t int32) bool {
	g := f.g
	f.gen++
	if f.gen == 0 {
		// The generation wrapped: stale marks could look current.
		clear(f.marks)
		f.gen = 1
	}
	gen := f.gen
	f.open = f.open[:0]
	f.marks[s] = mark{cost: 0, parent: -1, seen: gen, done: f.marks[s].done}
	tx, ty := int(g.nodes[t].col)%g.nx, int(g.nodes[t].col)/g.nx
	h := func(x, y int) float64 {
		// Octile distance: diagonal steps while both axes differ, then
		// straight ones.
		dx, dy := abs(x-tx), abs(y-ty)
		return g.cell * (float64(max(dx, dy)) + (math.Sqrt2-1)*float64(min(dx, dy)))
	}
	hs := h(int(g.nodes[s].col)%g.nx, int(g.nodes[s].col)/g.nx)
	f.push(entry{hs, hs, s})
	for len(f.open) > 0 {
		n := f.pop().n
		mn := &f.marks[n]
		if mn.done == gen {
			continue // a stale entry of a floor since reached more cheaply
		}
		mn.done = gen
		if n == t {
			f.cells = f.cells[:0]
			for ; n >= 0; n = f.marks[n].parent {
				f.cells = append(f.cells, n)
			}
			for i, j := 0, len(f.cells)-1; i < j; i, j = i+1, j-1 {
				f.cells[i], f.cells[j] = f.cells[j], f.cells[i]
			}
			return true
		}
		costN := mn.cost
		col := int(g.nodes[n].col)
		x, y := col%g.nx, col/g.nx
		for d := range dirs {
			m, hop := g.neighbour(n, d)
			if m < 0 {
				continue
			}
			mm := &f.marks[m]
			if mm.done == gen {
				continue
			}
			c := costN + float64(hop)*g.stepCost[d]
			if mm.seen != gen || c < mm.cost {
				mm.cost, mm.parent, mm.seen = c, n, gen
				hm := h(x+hop*dirs[d].dx, y+hop*dirs[d].dy)
				f.push(entry{c + hm, hm, m})
			}
		}
	}
	return false
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// The open set is a 4-ary heap: half as deep as a binary one, and the
// four children of an entry lie side by side. Entries are totally ordered
// (less ends with the floor's index, and a floor is pushed again only at
// a lower cost), so any heap pops them in the same order.
const heapArity = 4

// push adds e to the open set, moving the parents it beats down rather
// than swapping it up.
func (f *Finder) push(e entry) {
	h := append(f.open, e)
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / heapArity
		if !e.less(h[p]) {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = e
	f.open = h
}

// pop removes and returns the least entry of the open set.
func (f *Finder) pop() entry {
	h := f.open
	top := h[0]
	last := len(h) - 1
	e := h[last]
	h = h[:last]
	if last > 0 {
		i := 0
		for {
			c := heapArity*i + 1
			if c >= last {
				break
			}
			m := c
			for k := c + 1; k < min(c+heapArity, last); k++ {
				if h[k].less(h[m]) {
					m = k
				}
			}
			if !h[m].less(e) {
				break
			}
			h[i] = h[m]
			i = m
		}
		h[i] = e
	}
	f.open = h
	return top
}

// waypoint returns the i-th point of the last cell path: the ends as given
// to Path, on their floors, and cell centres between them.
func (f *Finder) waypoint(i int) geom.Vec3 {
	switch i {
	case 0:
		return f.from
	case len(f.cells) + 1:
		return f.to
	}
	return f.g.point(f.cells[i-1])
}

// pull appends the waypoints of the last path to dst, straightened by
// string pulling: from each kept waypoint, the next kept one is the
// farthest that a straight walk reaches through all those before it. The
// candidates are the start, the centres of the path's cells and the goal.
// The next one is kept even when the straight walk to it fails, as on a
// stair: from a cell centre to the next the edge is walkable, and between
// an end and its cell's centre floorPoint checked the straight walk.
// Repeats (an end at its cell's centre) are dropped.
func (f *Finder) pull(dst []geom.Vec3) []geom.Vec3 {
	g := f.g
	last := len(f.cells) + 1
	dst = append(dst, f.waypoint(0))
	for a := 0; a < last; {
		from := f.waypoint(a)
		j := a + 1
		for j < last {
			var ok bool
			if f.boxes, ok = g.straight(from, f.waypoint(j+1), f.boxes); !ok {
				break
			}
			j++
		}
		if w := f.waypoint(j); w != dst[len(dst)-1] {
			dst = append(dst, w)
		}
		a = j
	}
	return dst
}

// straight reports whether a player walks in a straight line from a to b
// on one floor level: every cell the line crosses has a floor at that
// height, and the capsule swept along the line clears every box it cannot
// step onto. It gathers boxes in buf and returns it for reuse.
func (g *Grid) straight(a, b geom.Vec3, buf []int) ([]int, bool) {
	if a.Z != b.Z {
		return buf, false
	}
	z := a.Z
	crouch, ok := g.level(a, b)
	if !ok {
		return buf, false
	}
	p := &g.p
	h := p.Height
	if crouch {
		h = p.CrouchHeight
	}
	region := geom.AABB{
		Min: geom.V(min(a.X, b.X)-p.Radius, min(a.Y, b.Y)-p.Radius, z),
		Max: geom.V(max(a.X, b.X)+p.Radius, max(a.Y, b.Y)+p.Radius, z+h),
	}
	buf = g.boxes.Query(region, buf[:0])
	all := g.boxes.Boxes()
	for _, i := range buf {
		box := all[i]
		if box.Max.Z > z+p.StepHeight && !clears(segmentRectDist2(a, b, box), z, h, box, p) {
			return buf, false
		}
	}
	return buf, true
}

// cornerTol is the difference in the fractions of a line at which it
// crosses an X and a Y column boundary below which level takes it to pass
// through their corner.
const cornerTol = 1e-9

// level walks the columns that the line from a to b crosses in XY
// (Amanatides and Woo, "A Fast Voxel Traversal Algorithm for Ray Tracing",
// Eurographics 1987), with both side columns where it passes exactly
// through a corner, and reports whether each has a floor at height a.Z,
// and whether any of those floors fits only a crouched player.
func (g *Grid) level(a, b geom.Vec3) (crouch, ok bool) {
	fx, fy := (a.X-g.x0)/g.cell, (a.Y-g.y0)/g.cell
	ex, ey := math.Floor((b.X-g.x0)/g.cell), math.Floor((b.Y-g.y0)/g.cell)
	x, y := math.Floor(fx), math.Floor(fy)
	dx, dy := (b.X-a.X)/g.cell, (b.Y-a.Y)/g.cell
	sx, sy := 1.0, 1.0
	if dx < 0 {
		sx = -1
	}
	if dy < 0 {
		sy = -1
	}
	// tx and ty are the fractions of the line at which it crosses the next
	// column boundary in X and in Y.
	tx, ty := math.Inf(1), math.Inf(1)
	if dx != 0 {
		tx = (x + max(sx, 0) - fx) / dx
	}
	if dy != 0 {
		ty = (y + max(sy, 0) - fy) / dy
	}
	crouch, ok = g.levelAt(x, y, a.Z, false)
	for ok && (x != ex || y != ey) {
		// A crossing within cornerTol of a corner counts as through it,
		// since tx and ty carry different rounding errors.
		switch {
		case y == ey || (x != ex && tx < ty-cornerTol):
			x += sx
			tx += sx / dx
		case x == ex || ty < tx-cornerTol:
			y += sy
			ty += sy / dy
		default:
			if crouch, ok = g.levelAt(x+sx, y, a.Z, crouch); ok {
				crouch, ok = g.levelAt(x, y+sy, a.Z, crouch)
			}
			x, y = x+sx, y+sy
			tx, ty = tx+sx/dx, ty+sy/dy
		}
		if ok {
			crouch, ok = g.levelAt(x, y, a.Z, crouch)
		}
	}
	return crouch, ok
}

// levelAt reports whether column (x, y) has a floor at height z, and
// whether crouch or that floor needs a crouch.
func (g *Grid) levelAt(x, y, z float64, crouch bool) (bool, bool) {
	if !(x >= 0 && y >= 0 && x < float64(g.nx) && y < float64(g.ny)) {
		return crouch, false
	}
	col := int(y)*g.nx + int(x)
	for n := g.start[col]; n < g.start[col+1]; n++ {
		if g.nodes[n].z == z {
			return crouch || g.nodes[n].crouch, true
		}
	}
	return crouch, false
}

// segmentRectDist2 returns the squared distance in XY between the segment
// from a to b and the footprint of box. Two disjoint convex polygons are
// nearest at a vertex of one of them, so when the segment misses the
// rectangle the distance is the least of its ends' distances to the
// rectangle and the corners' distances to the segment.
func segmentRectDist2(a, b geom.Vec3, box geom.AABB) float64 {
	if segmentCrossesRect(a, b, box) {
		return 0
	}
	d := min(pointRectDist2(a, box), pointRectDist2(b, box))
	for _, c := range [4][2]float64{
		{box.Min.X, box.Min.Y}, {box.Max.X, box.Min.Y},
		{box.Min.X, box.Max.Y}, {box.Max.X, box.Max.Y},
	} {
		d = min(d, pointSegmentDist2(c[0], c[1], a, b))
	}
	return d
}

// segmentCrossesRect reports whether the segment from a to b meets the
// footprint of box, by clipping it to the slabs of X and Y.
func segmentCrossesRect(a, b geom.Vec3, box geom.AABB) bool {
	t0, t1 := 0.0, 1.0
	for _, s := range [2][4]float64{
		{a.X, b.X - a.X, box.Min.X, box.Max.X},
		{a.Y, b.Y - a.Y, box.Min.Y, box.Max.Y},
	} {
		o, d, lo, hi := s[0], s[1], s[2], s[3]
		if d == 0 {
			if o < lo || o > hi {
				return false
			}
			continue
		}
		u, v := (lo-o)/d, (hi-o)/d
		if u > v {
			u, v = v, u
		}
		t0, t1 = max(t0, u), min(t1, v)
		if t0 > t1 {
			return false
		}
	}
	return true
}

// pointRectDist2 returns the squared distance in XY from p to the
// footprint of box.
func pointRectDist2(p geom.Vec3, box geom.AABB) float64 {
	dx := max(box.Min.X-p.X, 0, p.X-box.Max.X)
	dy := max(box.Min.Y-p.Y, 0, p.Y-box.Max.Y)
	return dx*dx + dy*dy
}

// pointSegmentDist2 returns the squared distance in XY from (x, y) to the
// segment from a to b.
func pointSegmentDist2(x, y float64, a, b geom.Vec3) float64 {
	dx, dy := b.X-a.X, b.Y-a.Y
	t := 0.0
	if l2 := dx*dx + dy*dy; l2 > 0 {
		t = min(max(((x-a.X)*dx+(y-a.Y)*dy)/l2, 0), 1)
	}
	ex, ey := a.X+t*dx-x, a.Y+t*dy-y
	return ex*ex + ey*ey
}
