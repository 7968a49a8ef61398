package geom

import "math"

// Limits on the size of a Grid's index. A requested cell size that would
// exceed them is doubled until it does not, so a tiny cell size or a huge
// map costs at most a few tens of megabytes.
const (
	maxGridCells   = 1 << 20
	maxGridEntries = 1 << 22
)

// maxGridCoord bounds the coordinates of the boxes a Grid indexes, so that
// its arithmetic cannot overflow. A million kilometres is far beyond any
// map, and doubles there still resolve 0.1 mm.
const maxGridCoord = 1e12

// Grid is a uniform grid over the XY plane that indexes a fixed set of
// static boxes for region, ray and segment queries (Ericson, Real-Time
// Collision Detection, section 7.1). Each cell is a column of unbounded
// height listing the boxes whose XY footprint touches it: maps are mostly
// flat, so splitting Z would add cells without separating boxes.
//
// A Grid is read-only after NewGrid; its methods keep no scratch state and
// are safe for concurrent use by any number of goroutines. The zero Grid
// and a nil *Grid hold no boxes.
type Grid struct {
	boxes  []AABB
	bounds AABB // union of the indexed boxes
	// Cell (i, j) covers x in [x0 + i*cell, x0 + (i+1)*cell) and likewise
	// for y; it lists entries[start[j*nx+i]:start[j*nx+i+1]].
	x0, y0, cell float64
	nx, ny       int
	start        []int32
	entries      []int32
	// span[i] is the cell range box i is listed in; empty for boxes that
	// are not indexed.
	span []cellRange
}

// cellRange is an inclusive range of cells; it is empty when x0 > x1.
type cellRange struct{ x0, y0, x1, y1 int32 }

// NewGrid indexes boxes with square cells of side cellSize, or, when
// cellSize is not positive and finite, with a side chosen so that there are
// about as many cells as boxes. It copies boxes, so later changes to the
// slice do not affect the grid. A box with a coordinate that is NaN or
// beyond ±1e12, or with Min > Max on some axis, keeps its index in Boxes
// but is never reported.
func NewGrid(boxes []AABB, cellSize float64) *Grid {
	g := &Grid{
		boxes: append([]AABB(nil), boxes...),
		span:  make([]cellRange, len(boxes)),
	}
	n := 0
	for i, b := range g.boxes {
		g.span[i] = cellRange{0, 0, -1, -1}
		if !indexable(b) {
			continue
		}
		if n == 0 {
			g.bounds = b
		} else {
			g.bounds = g.bounds.Union(b)
		}
		n++
	}
	if n == 0 {
		return g
	}
	w, h := g.bounds.Size().X, g.bounds.Size().Y
	cell := cellSize
	if !(cell > 0) || math.IsInf(cell, 0) {
		// About one cell per box. A footprint of zero width or height (all
		// boxes on one line) would give a zero or tiny cell; split the long
		// side n ways instead.
		cell = math.Max(math.Sqrt(w*h/float64(n)), math.Max(w, h)/float64(n))
		if cell == 0 {
			cell = 1
		}
	}
	g.x0, g.y0 = g.bounds.Min.X, g.bounds.Min.Y
	// The smallest cell that keeps within maxGridCells; the loop then
	// grows the cell until the entries fit too (or one cell is left).
	cell = math.Max(cell, math.Max(math.Sqrt(w*h/maxGridCells), math.Max(w, h)/maxGridCells))
	for {
		nx, ny := math.Floor(w/cell)+1, math.Floor(h/cell)+1
		if nx*ny <= maxGridCells {
			g.cell, g.nx, g.ny = cell, int(nx), int(ny)
			if g.nx*g.ny == 1 || g.countEntries() <= maxGridEntries {
				break
			}
		}
		cell *= 2
	}
	g.fill()
	return g
}

// indexable reports whether b is a non-inverted box within ±maxGridCoord.
func indexable(b AABB) bool {
	return -maxGridCoord <= b.Min.X && b.Min.X <= b.Max.X && b.Max.X <= maxGridCoord &&
		-maxGridCoord <= b.Min.Y && b.Min.Y <= b.Max.Y && b.Max.Y <= maxGridCoord &&
		-maxGridCoord <= b.Min.Z && b.Min.Z <= b.Max.Z && b.Max.Z <= maxGridCoord
}

// footprint returns the cells an indexable box is listed in. The box is
// widened by a hair so that a ray whose computed cell is off by one near a
// cell boundary, through rounding, still meets the boxes touching that
// boundary.
func (g *Grid) footprint(b AABB) cellRange {
	eps := 1e-9 * (g.cell + math.Abs(g.bounds.Min.X) + math.Abs(g.bounds.Max.X) +
		math.Abs(g.bounds.Min.Y) + math.Abs(g.bounds.Max.Y))
	return cellRange{
		int32(g.cellX(b.Min.X - eps)), int32(g.cellY(b.Min.Y - eps)),
		int32(g.cellX(b.Max.X + eps)), int32(g.cellY(b.Max.Y + eps)),
	}
}

// countEntries returns how many cell entries the current cell size needs.
func (g *Grid) countEntries() int {
	total := 0
	for _, b := range g.boxes {
		if indexable(b) {
			s := g.footprint(b)
			total += int(s.x1-s.x0+1) * int(s.y1-s.y0+1)
		}
	}
	return total
}

// fill builds the cell lists in two passes (count, then place), so every
// cell's list is one contiguous run of a single shared slice.
func (g *Grid) fill() {
	g.start = make([]int32, g.nx*g.ny+1)
	for i, b := range g.boxes {
		if !indexable(b) {
			continue
		}
		s := g.footprint(b)
		g.span[i] = s
		for y := s.y0; y <= s.y1; y++ {
			for x := s.x0; x <= s.x1; x++ {
				g.start[int(y)*g.nx+int(x)+1]++
			}
		}
	}
	for c := 1; c < len(g.start); c++ {
		g.start[c] += g.start[c-1]
	}
	g.entries = make([]int32, g.start[len(g.start)-1])
	next := append([]int32(nil), g.start[:len(g.start)-1]...)
	for i, s := range g.span {
		for y := s.y0; y <= s.y1; y++ {
			for x := s.x0; x <= s.x1; x++ {
				c := int(y)*g.nx + int(x)
				g.entries[next[c]] = int32(i)
				next[c]++
			}
		}
	}
}

// cellX returns the column holding x, clamped to the grid.
func (g *Grid) cellX(x float64) int { return clampCell((x-g.x0)/g.cell, g.nx) }

// cellY returns the row holding y, clamped to the grid.
func (g *Grid) cellY(y float64) int { return clampCell((y-g.y0)/g.cell, g.ny) }

// clampCell returns floor(f) clamped to [0, n-1]. Clamping happens before
// the conversion to int, which is undefined for out-of-range floats and NaN.
func clampCell(f float64, n int) int {
	if !(f > 0) {
		return 0
	}
	if f >= float64(n-1) {
		return n - 1
	}
	return int(f)
}

// cellEntries returns the indices of the boxes listed in cell (x, y).
func (g *Grid) cellEntries(x, y int) []int32 {
	c := y*g.nx + x
	return g.entries[g.start[c]:g.start[c+1]]
}

// Boxes returns the boxes the grid was built from, in their original order;
// the indices Query and Raycast report refer to it. The caller must not
// modify the slice.
func (g *Grid) Boxes() []AABB {
	if g == nil {
		return nil
	}
	return g.boxes
}

// Bounds returns the smallest box containing every indexed box (the zero
// AABB when there is none).
func (g *Grid) Bounds() AABB {
	if g == nil {
		return AABB{}
	}
	return g.bounds
}

// empty reports whether the grid indexes no boxes.
func (g *Grid) empty() bool { return g == nil || g.nx == 0 }

// Query appends to dst the index of every box that overlaps region (touching
// counts), each exactly once, in no particular order, and returns the
// extended slice. It does not allocate when dst has room. A region with a
// NaN coordinate overlaps nothing.
func (g *Grid) Query(region AABB, dst []int) []int {
	if g.empty() || hasNaN(region.Min) || hasNaN(region.Max) || !region.Overlaps(g.bounds) {
		return dst
	}
	qx0, qy0 := g.cellX(region.Min.X), g.cellY(region.Min.Y)
	qx1, qy1 := g.cellX(region.Max.X), g.cellY(region.Max.Y)
	for y := qy0; y <= qy1; y++ {
		for x := qx0; x <= qx1; x++ {
			for _, i := range g.cellEntries(x, y) {
				// A box listed in several cells of the query is reported
				// only from the first of them, which needs no visited set.
				s := g.span[i]
				if max(int(s.x0), qx0) == x && max(int(s.y0), qy0) == y &&
					g.boxes[i].Overlaps(region) {
					dst = append(dst, int(i))
				}
			}
		}
	}
	return dst
}

// RayHit describes where a ray first meets one of a Grid's boxes.
type RayHit struct {
	Dist   float64 // distance along the ray, as RayAABB reports it
	Normal Vec3    // outward normal of the face hit (-Dir from inside)
	Box    int     // index into Boxes
}

// Raycast returns the nearest box the ray hits within maxDist, by the rules
// of RayAABB. Of boxes hit at the same distance it reports the lowest index.
// It walks the columns the ray crosses in order (Amanatides and Woo, "A Fast
// Voxel Traversal Algorithm for Ray Tracing", Eurographics 1987) and stops
// at the first column whose exit lies beyond the best hit so far, since any
// box hit nearer than that exit is listed in a column already visited.
func (g *Grid) Raycast(r Ray, maxDist float64) (RayHit, bool) {
	best := RayHit{Dist: maxDist, Box: -1}
	var w cellWalk
	ok := g.walk(&w, r.Origin, r.Dir, maxDist)
	for ok {
		for _, i := range g.cellEntries(w.x, w.y) {
			b := &g.boxes[i]
			if w.q.misses(b, best.Dist) {
				continue
			}
			d, n, hit := rayBox(r, best.Dist, *b)
			if hit && (d < best.Dist || best.Box < 0 || int(i) < best.Box) {
				best = RayHit{d, n, int(i)}
			}
		}
		if best.Box >= 0 && best.Dist <= w.exit() {
			break
		}
		ok = g.step(&w)
	}
	if best.Box < 0 {
		return RayHit{}, false
	}
	return best, true
}

// SegmentBlocked reports whether any box shares a point with the segment
// from a to b (a line-of-sight test: touching counts as blocked). It stops
// at the first such box. A segment with a NaN or infinite end is never
// blocked.
func (g *Grid) SegmentBlocked(a, b Vec3) bool {
	_, blocked := g.SegmentBlocker(a, b)
	return blocked
}

// cellWalk is the state of a column-by-column walk along o + d*t for t in
// [t0, t1], with the line prepared for the first test of the boxes listed
// in each column: q holds o and 1 / d (0 where d is), which the walk
// shares.
type cellWalk struct {
	q      quickRay
	d      Vec3
	t1     float64
	x, y   int     // current column
	tx, ty float64 // parameters where the line leaves the column in X and Y
}

// walk starts w along o + d*t for t in [0, tMax], clipped to the grid's
// bounds. It reports false when that range misses the bounds or the input
// is invalid.
func (g *Grid) walk(w *cellWalk, o, d Vec3, tMax float64) bool {
	if g.empty() || !(tMax >= 0) { // false for NaN
		return false
	}
	w.q = newQuickRay(o, d)
	// A quickRay within its limits has a finite origin and direction; it
	// is valid when some component of the direction is not zero.
	q := &w.q
	if !q.ok || q.flat == [3]bool{true, true, true} {
		if !(Ray{o, d}).valid(tMax) {
			return false
		}
	}
	t0 := 0.0
	if !g.bounds.Contains(o) {
		t, _, ok := slab(o, d, g.bounds, tMax)
		if !ok {
			return false
		}
		t0 = t
	}
	// Clip the far end too, so that the walk ends where the line leaves
	// the bounds even when tMax is infinite. Within quickRay's limits a
	// product by 1 / d stands for the quotient, as in setExits.
	t1 := tMax
	lo, hi := [3]float64{g.bounds.Min.X, g.bounds.Min.Y, g.bounds.Min.Z}, [3]float64{g.bounds.Max.X, g.bounds.Max.Y, g.bounds.Max.Z}
	ds := [3]float64{d.X, d.Y, d.Z}
	for i := range 3 {
		if q.flat[i] {
			continue
		}
		far := hi[i]
		if q.neg[i] {
			far = lo[i]
		}
		var t float64
		if q.ok {
			t = (far - q.o[i]) * q.inv[i]
		} else {
			t = (far - q.o[i]) / ds[i]
		}
		if t < t1 {
			t1 = t
		}
	}
	p := o
	if t0 != 0 {
		p = o.AddScaled(d, t0)
	}
	w.d, w.t1, w.x, w.y = d, t1, g.cellX(p.X), g.cellY(p.Y)
	g.setExits(w)
	return true
}

// setExits computes where the line leaves the current column. They are
// recomputed from the column index at each step rather than accumulated,
// so rounding errors do not build up along long rays. A product by 1 / d
// stands for the quotient: the two differ by a unit or two in the last
// place, far inside the hair by which each box's footprint is widened
// (footprint), so a step it turns one way rather than the other near a
// column's corner reaches the same boxes, and no box is left unvisited.
func (g *Grid) setExits(w *cellWalk) {
	w.tx, w.ty = math.Inf(1), math.Inf(1)
	if w.d.X > 0 {
		w.tx = (g.x0 + float64(w.x+1)*g.cell - w.q.o[0]) * w.q.inv[0]
	} else if w.d.X < 0 {
		w.tx = (g.x0 + float64(w.x)*g.cell - w.q.o[0]) * w.q.inv[0]
	}
	if w.d.Y > 0 {
		w.ty = (g.y0 + float64(w.y+1)*g.cell - w.q.o[1]) * w.q.inv[1]
	} else if w.d.Y < 0 {
		w.ty = (g.y0 + float64(w.y)*g.cell - w.q.o[1]) * w.q.inv[1]
	}
}

// exit returns the parameter at which the walk leaves the current column.
// Comparisons stand for math.Min, which handles NaN and the sign of zero
// at a cost: none of the three is NaN, and the sign of a zero changes no
// comparison the walk makes with the answer.
func (w *cellWalk) exit() float64 {
	e := w.t1
	if w.tx < e {
		e = w.tx
	}
	if w.ty < e {
		e = w.ty
	}
	return e
}

// step moves the walk to the next column and reports false once the line
// has left the grid or passed t1.
func (g *Grid) step(w *cellWalk) bool {
	if w.exit() >= w.t1 {
		return false
	}
	if w.tx <= w.ty {
		w.x += sign(w.d.X)
	} else {
		w.y += sign(w.d.Y)
	}
	if w.x < 0 || w.x >= g.nx || w.y < 0 || w.y >= g.ny {
		return false
	}
	g.setExits(w)
	return true
}

func sign(f float64) int {
	if f < 0 {
		return -1
	}
	return 1
}
