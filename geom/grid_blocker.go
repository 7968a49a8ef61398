package geom

// SegmentBlocker is SegmentBlocked naming a box that blocks: the index
// into Boxes of the first box found to share a point with the segment from
// a to b, and true, or -1 and false when none does (its answer is always
// SegmentBlocked's). A caller testing many segments near one another can
// keep the box and test it first, with SegmentAABB, before walking the
// grid: the box is indexed, so a segment it meets is blocked.
func (g *Grid) SegmentBlocker(a, b Vec3) (int, bool) {
	if !a.IsFinite() || !b.IsFinite() {
		return -1, false
	}
	if a == b {
		// A zero direction has no cells to walk; the point's own column is
		// the only one to check.
		if g.empty() || !g.bounds.Contains(a) {
			return -1, false
		}
		for _, i := range g.cellEntries(g.cellX(a.X), g.cellY(a.Y)) {
			if g.boxes[i].Contains(a) {
				return int(i), true
			}
		}
		return -1, false
	}
	d := b.Sub(a)
	var w cellWalk
	ok := g.walk(&w, a, d, 1)
	for ok {
		for _, i := range g.cellEntries(w.x, w.y) {
			if box := &g.boxes[i]; !w.q.misses(box, 1) && segmentBox(a, d, *box) {
				return int(i), true
			}
		}
		ok = g.step(&w)
	}
	return -1, false
}
