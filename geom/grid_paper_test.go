package geom

import (
	"math/rand/v2"
	"testing"
)

// TestWalkVisitsCellsInRayOrder checks the property Grid.Raycast's early
// exit rests on: "the algorithm ... visits the voxels in the order that the
// ray traverses them", stepping to a neighbour at each iteration, and it
// visits every voxel the ray passes through (our cells are columns, so the
// walk is the 2D case). A cell whose closed square the segment crosses
// (shrunk by a hair, so that touching only a corner does not count) must be
// visited; a visited cell must be met by the segment within that hair.
//
// Reference: J. Amanatides and A. Woo, "A Fast Voxel Traversal Algorithm
// for Ray Tracing", Eurographics 1987, section 2.
func TestWalkVisitsCellsInRayOrder(t *testing.T) {
	g := NewGrid([]AABB{Box(V(0, 0, 0), V(10, 10, 3))}, 0.7)
	rng := rand.New(rand.NewPCG(15, 16))
	const hair = 1e-9
	for trial := range 1000 {
		a, b := randPoint(rng), randPoint(rng)
		a, b = a.Scale(0.2), b.Scale(0.2) // around the 10 x 10 m grid
		if a == b {
			continue
		}
		var w cellWalk
		ok := g.walk(&w, a, b.Sub(a), 1)
		visited := map[[2]int]bool{}
		prevExit := -1.0
		prev := [2]int{-1, -1}
		for ok {
			c := [2]int{w.x, w.y}
			if visited[c] {
				t.Fatalf("trial %d: %v-%v visits cell %v twice", trial, a, b, c)
			}
			if prev[0] >= 0 && abs(c[0]-prev[0])+abs(c[1]-prev[1]) != 1 {
				t.Fatalf("trial %d: %v-%v steps from %v to %v, not a neighbour", trial, a, b, prev, c)
			}
			if e := w.exit(); e < prevExit {
				t.Fatalf("trial %d: %v-%v leaves cell %v at %v, before the previous one (%v)", trial, a, b, c, e, prevExit)
			}
			visited[c], prev, prevExit = true, c, w.exit()
			ok = g.step(&w)
		}
		for x := range g.nx {
			for y := range g.ny {
				// The walk is clipped to the bounds, which the last row and
				// column overhang.
				sq := AABB{
					V(g.x0+float64(x)*g.cell, g.y0+float64(y)*g.cell, g.bounds.Min.Z),
					V(g.x0+float64(x+1)*g.cell, g.y0+float64(y+1)*g.cell, g.bounds.Max.Z).Min(g.bounds.Max),
				}
				crosses := SegmentAABB(a, b, sq.Expand(-hair))
				touches := SegmentAABB(a, b, sq.Expand(hair))
				if crosses && !visited[[2]int{x, y}] {
					t.Fatalf("trial %d: %v-%v crosses cell (%d, %d) but the walk skips it", trial, a, b, x, y)
				}
				if visited[[2]int{x, y}] && !touches {
					t.Fatalf("trial %d: %v-%v visits cell (%d, %d), which it does not meet", trial, a, b, x, y)
				}
			}
		}
	}
}

func abs(i int) int {
	if i < 0 {
		return -i
	}
	return i
}
