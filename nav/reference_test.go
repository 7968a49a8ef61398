package nav

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/world"
)

// referenceSearch is A* as Finder.search first ran it: separate arrays of
// costs, parents and marks, a binary heap of entries, and the heuristic
// worked out from each floor's column. Finder.search must find the same
// cell paths (it orders the open set the same way, so it expands the same
// floors in the same order).
func referenceSearch(g *Grid, s, t int32) ([]int32, bool) {
	n := len(g.nodes)
	cost := make([]float64, n)
	parent := make([]int32, n)
	seen := make([]bool, n)
	done := make([]bool, n)
	var open []entry
	push := func(e entry) {
		open = append(open, e)
		for i := len(open) - 1; i > 0; {
			p := (i - 1) / 2
			if !open[i].less(open[p]) {
				break
			}
			open[i], open[p] = open[p], open[i]
			i = p
		}
	}
	pop := func() entry {
		top := open[0]
		last := len(open) - 1
		open[0] = open[last]
		open = open[:last]
		for i := 0; ; {
			l, r, m := 2*i+1, 2*i+2, i
			if l < len(open) && open[l].less(open[m]) {
				m = l
			}
			if r < len(open) && open[r].less(open[m]) {
				m = r
			}
			if m == i {
				break
			}
			open[i], open[m] = open[m], open[i]
			i = m
		}
		return top
	}
	cost[s], parent[s], seen[s] = 0, -1, true
	tx, ty := int(g.nodes[t].col)%g.nx, int(g.nodes[t].col)/g.nx
	h := func(n int32) float64 {
		dx, dy := abs(int(g.nodes[n].col)%g.nx-tx), abs(int(g.nodes[n].col)/g.nx-ty)
		return g.cell * (float64(max(dx, dy)) + (math.Sqrt2-1)*float64(min(dx, dy)))
	}
	push(entry{h(s), h(s), s})
	for len(open) > 0 {
		n := pop().n
		if done[n] {
			continue
		}
		done[n] = true
		if n == t {
			var cells []int32
			for ; n >= 0; n = parent[n] {
				cells = append(cells, n)
			}
			slices.Reverse(cells)
			return cells, true
		}
		for d := range dirs {
			m, hop := g.neighbour(n, d)
			if m < 0 || done[m] {
				continue
			}
			c := cost[n] + float64(hop)*g.stepCost[d]
			if !seen[m] || c < cost[m] {
				cost[m], parent[m], seen[m] = c, n, true
				hm := h(m)
				push(entry{c + hm, hm, m})
			}
		}
	}
	return nil, false
}

// TestSearchMatchesReference: on every shipped map, between random
// reachable floors and from every spawn to every objective, the search
// finds the very cell path of the reference A*, or none when it finds
// none.
func TestSearchMatchesReference(t *testing.T) {
	for _, name := range world.Names() {
		m := mustLoad(t, name)
		g := mustBuild(t, m)
		f := g.NewFinder()
		rng := rand.New(rand.NewPCG(11, 12))
		var pairs [][2]int32
		for range 300 {
			pairs = append(pairs, [2]int32{g.reach[rng.IntN(len(g.reach))], g.reach[rng.IntN(len(g.reach))]})
		}
		// Some floors nobody reaches: searches that fail.
		for range 20 {
			pairs = append(pairs, [2]int32{g.reach[rng.IntN(len(g.reach))], int32(rng.IntN(len(g.nodes)))})
		}
		for _, s := range m.Spawns {
			for _, o := range m.Objectives {
				a, ok1 := g.snap(s.Pos)
				b, ok2 := g.snap(o.Pos)
				if ok1 && ok2 {
					pairs = append(pairs, [2]int32{a, b})
				}
			}
		}
		for _, p := range pairs {
			want, wantOK := referenceSearch(g, p[0], p[1])
			gotOK := f.search(p[0], p[1])
			if gotOK != wantOK || gotOK && !slices.Equal(f.cells, want) {
				t.Fatalf("%s: floors %d to %d: found %v %v, reference %v %v", name, p[0], p[1], gotOK, f.cells, wantOK, want)
			}
		}
	}
}

// referenceNearest is Grid.nearest as it first ran: each floor's centre
// from point, which divides the column's index.
func referenceNearest(g *Grid, p geom.Vec3, r, dz float64, reach bool) (int32, bool) {
	x0, y0, x1, y1, ok := g.colRange(p.X, p.Y, r)
	if !ok {
		return 0, false
	}
	best, bestD := int32(-1), math.Inf(1)
	for y := y0; y <= y1; y++ {
		for x := x0; x <= x1; x++ {
			col := y*g.nx + x
			for n := g.start[col]; n < g.start[col+1]; n++ {
				if (reach && !g.nodes[n].reach) || math.Abs(g.nodes[n].z-p.Z) > dz {
					continue
				}
				if d := g.point(n).Dist(p); d < bestD {
					best, bestD = n, d
				}
			}
		}
	}
	return best, best >= 0
}

// TestNearestMatchesReference: snapping and standing random points, on
// floors, between them and off the map, picks the floor the reference
// picks, ties included (points at cell corners and on centres).
func TestNearestMatchesReference(t *testing.T) {
	for _, name := range world.Names() {
		m := mustLoad(t, name)
		g := mustBuild(t, m)
		rng := rand.New(rand.NewPCG(21, 22))
		b := m.Bounds
		for i := range 4000 {
			var p geom.Vec3
			switch i % 4 {
			case 0: // anywhere, a little off the map too
				p = geom.V(b.Min.X-2+rng.Float64()*(b.Max.X-b.Min.X+4), b.Min.Y-2+rng.Float64()*(b.Max.Y-b.Min.Y+4), rng.Float64()*b.Max.Z)
			case 1: // a floor's centre
				p = g.point(int32(rng.IntN(len(g.nodes))))
			case 2: // a cell corner on a floor: ties between columns
				c := g.point(int32(rng.IntN(len(g.nodes))))
				p = geom.V(c.X+g.cell/2, c.Y-g.cell/2, c.Z)
			default: // near a floor
				c := g.point(int32(rng.IntN(len(g.nodes))))
				p = c.Add(geom.V(rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()*0.3))
			}
			for _, q := range []struct {
				r, dz float64
				reach bool
			}{{snapRange, snapRange, true}, {g.cell, g.p.StepHeight, false}} {
				gn, gok := g.nearest(p, q.r, q.dz, q.reach)
				wn, wok := referenceNearest(g, p, q.r, q.dz, q.reach)
				if gn != wn || gok != wok {
					t.Fatalf("%s: nearest(%v, %v, %v, %v) = %d %v, reference %d %v", name, p, q.r, q.dz, q.reach, gn, gok, wn, wok)
				}
			}
		}
	}
}
