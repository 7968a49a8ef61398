package geom

import (
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
)

// testMap returns about 150 boxes laid out like a 60 x 60 m shooter map:
// outer walls, interior walls, pillars, low covers and a few platforms.
func testMap(seed uint64) []AABB {
	rng := rand.New(rand.NewPCG(seed, 1))
	boxes := []AABB{
		Box(V(0, 0, 0), V(60, 0.5, 3)),
		Box(V(0, 59.5, 0), V(60, 60, 3)),
		Box(V(0, 0, 0), V(0.5, 60, 3)),
		Box(V(59.5, 0, 0), V(60, 60, 3)),
	}
	at := func() (float64, float64) { return 1 + 58*rng.Float64(), 1 + 58*rng.Float64() }
	for range 30 { // interior walls, 2-12 m long, either orientation
		x, y := at()
		l := 2 + 10*rng.Float64()
		if rng.IntN(2) == 0 {
			boxes = append(boxes, Box(V(x, y, 0), V(math.Min(x+l, 59.5), y+0.3, 3)))
		} else {
			boxes = append(boxes, Box(V(x, y, 0), V(x+0.3, math.Min(y+l, 59.5), 3)))
		}
	}
	for range 50 { // pillars
		x, y := at()
		boxes = append(boxes, Box(V(x, y, 0), V(x+0.8, y+0.8, 3)))
	}
	for range 60 { // low covers
		x, y := at()
		boxes = append(boxes, Box(V(x, y, 0), V(x+0.5+2*rng.Float64(), y+0.5+rng.Float64(), 1)))
	}
	for range 6 { // raised platforms
		x, y := at()
		z := 1 + 2*rng.Float64()
		boxes = append(boxes, Box(V(x, y, z), V(x+4, y+4, z+0.3)))
	}
	return boxes
}

// Brute-force references over every box.

func bruteQuery(boxes []AABB, region AABB) []int {
	var out []int
	for i, b := range boxes {
		if indexable(b) && !hasNaN(region.Min) && !hasNaN(region.Max) && b.Overlaps(region) {
			out = append(out, i)
		}
	}
	return out
}

func bruteRaycast(boxes []AABB, r Ray, maxDist float64) (RayHit, bool) {
	best, found := RayHit{}, false
	for i, b := range boxes {
		if !indexable(b) {
			continue
		}
		if d, n, ok := RayAABB(r, maxDist, b); ok && (!found || d < best.Dist) {
			best, found = RayHit{d, n, i}, true
		}
	}
	return best, found
}

func bruteSegmentBlocked(boxes []AABB, a, b Vec3) bool {
	for _, box := range boxes {
		if indexable(box) && SegmentAABB(a, b, box) {
			return true
		}
	}
	return false
}

// randPoint returns a point in and around the map, a quarter of them on
// whole metres so that rays and regions often lie exactly on cell and box
// boundaries.
func randPoint(rng *rand.Rand) Vec3 {
	p := V(-20+100*rng.Float64(), -20+100*rng.Float64(), -2+8*rng.Float64())
	if rng.IntN(4) == 0 {
		p = V(math.Round(p.X), math.Round(p.Y), math.Round(p.Z))
	}
	return p
}

// randDir returns a unit direction, often axis-aligned or horizontal.
func randDir(rng *rand.Rand) Vec3 {
	switch rng.IntN(6) {
	case 0:
		axes := []Vec3{V(1, 0, 0), V(-1, 0, 0), V(0, 1, 0), V(0, -1, 0), V(0, 0, 1), V(0, 0, -1)}
		return axes[rng.IntN(len(axes))]
	case 1, 2:
		a := 2 * math.Pi * rng.Float64()
		return V(math.Cos(a), math.Sin(a), 0)
	}
	for {
		d := V(rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64())
		if d.Len2() > 1e-6 {
			return d.Norm()
		}
	}
}

// gridCellSizes are the cell sizes the grid tests run with: automatic,
// fine, coarse, one cell for the whole map and one far below the limits.
var gridCellSizes = []float64{0, 1, 3.7, 200, 1e-4}

const gridTrials = 4000

func TestGridQueryMatchesBruteForce(t *testing.T) {
	boxes := testMap(1)
	for _, cell := range gridCellSizes {
		g := NewGrid(boxes, cell)
		rng := rand.New(rand.NewPCG(2, uint64(cell*1e4)))
		var got []int
		for trial := range gridTrials {
			region := Box(randPoint(rng), randPoint(rng))
			if trial%2 == 0 { // mostly small regions, like a player's move
				region = AABB{region.Min, region.Min}.Expand(3 * rng.Float64())
			}
			if trial%97 == 0 {
				region = boxes[rng.IntN(len(boxes))] // exactly a box: touches its neighbours
			}
			got = g.Query(region, got[:0])
			slices.Sort(got)
			if want := bruteQuery(boxes, region); !slices.Equal(got, want) {
				t.Fatalf("cell %v, trial %d: Query(%v) = %v, want %v", cell, trial, region, got, want)
			}
		}
	}
}

func TestGridRaycastMatchesBruteForce(t *testing.T) {
	boxes := testMap(3)
	for _, cell := range gridCellSizes {
		g := NewGrid(boxes, cell)
		rng := rand.New(rand.NewPCG(4, uint64(cell*1e4)))
		for trial := range gridTrials {
			r := Ray{randPoint(rng), randDir(rng)}
			maxDist := 200 * rng.Float64()
			if trial%5 == 0 {
				maxDist = inf
			}
			got, ok := g.Raycast(r, maxDist)
			want, wantOK := bruteRaycast(boxes, r, maxDist)
			if ok != wantOK || ok && (got.Dist != want.Dist || got.Normal != want.Normal || got.Box != want.Box) {
				t.Fatalf("cell %v, trial %d: Raycast(%v, %v) = %+v, %v; want %+v, %v",
					cell, trial, r, maxDist, got, ok, want, wantOK)
			}
		}
	}
}

func TestGridSegmentBlockedMatchesBruteForce(t *testing.T) {
	boxes := testMap(5)
	for _, cell := range gridCellSizes {
		g := NewGrid(boxes, cell)
		rng := rand.New(rand.NewPCG(6, uint64(cell*1e4)))
		for trial := range gridTrials {
			a, b := randPoint(rng), randPoint(rng)
			if trial%3 == 0 { // short sight lines
				b = a.AddScaled(randDir(rng), 10*rng.Float64())
			}
			if trial%50 == 0 {
				b = a
			}
			if got, want := g.SegmentBlocked(a, b), bruteSegmentBlocked(boxes, a, b); got != want {
				t.Fatalf("cell %v, trial %d: SegmentBlocked(%v, %v) = %v, want %v", cell, trial, a, b, got, want)
			}
		}
	}
}

func TestGridEdgeCases(t *testing.T) {
	wall := Box(V(0, 0, 0), V(1, 10, 3))
	tests := []struct {
		name  string
		boxes []AABB
		check func(t *testing.T, g *Grid)
	}{
		{"empty grid", nil, func(t *testing.T, g *Grid) {
			if got := g.Query(Box(V(-1e9, -1e9, -1e9), V(1e9, 1e9, 1e9)), nil); len(got) != 0 {
				t.Errorf("Query = %v, want none", got)
			}
			if _, ok := g.Raycast(ray(0, 0, 0, 1, 0, 0), inf); ok {
				t.Error("Raycast hit an empty grid")
			}
			if g.SegmentBlocked(V(0, 0, 0), V(1, 1, 1)) || g.SegmentBlocked(V(0, 0, 0), V(0, 0, 0)) {
				t.Error("SegmentBlocked in an empty grid")
			}
		}},
		{"invalid boxes keep their index but are never reported", []AABB{
			{V(nan, 0, 0), V(1, 1, 1)},
			{V(0, 0, 0), V(inf, 1, 1)},
			{V(2, 0, 0), V(1, 1, 1)},
			wall,
		}, func(t *testing.T, g *Grid) {
			if len(g.Boxes()) != 4 {
				t.Errorf("Boxes has %d boxes, want 4", len(g.Boxes()))
			}
			if got := g.Query(Box(V(-5, -5, -5), V(5, 5, 5)), nil); !slices.Equal(got, []int{3}) {
				t.Errorf("Query = %v, want [3]", got)
			}
			if h, ok := g.Raycast(ray(-5, 0.5, 0.5, 1, 0, 0), inf); !ok || h.Box != 3 || h.Dist != 5 {
				t.Errorf("Raycast = %+v, %v; want box 3 at 5", h, ok)
			}
		}},
		{"ray from far outside the grid", []AABB{wall}, func(t *testing.T, g *Grid) {
			h, ok := g.Raycast(ray(-1000, 5, 1, 1, 0, 0), inf)
			if want := (RayHit{1000, V(-1, 0, 0), 0}); !ok || h != want {
				t.Errorf("Raycast = %+v, %v; want %+v", h, ok, want)
			}
		}},
		{"vertical ray onto the top face", []AABB{wall}, func(t *testing.T, g *Grid) {
			h, ok := g.Raycast(ray(0.5, 5, 10, 0, 0, -1), inf)
			if want := (RayHit{7, V(0, 0, 1), 0}); !ok || h != want {
				t.Errorf("Raycast = %+v, %v; want %+v", h, ok, want)
			}
		}},
		{"ray starting inside two boxes reports the lower index", []AABB{wall, wall.Expand(1)}, func(t *testing.T, g *Grid) {
			h, ok := g.Raycast(ray(0.5, 5, 1, 0, 1, 0), inf)
			if want := (RayHit{0, V(0, -1, 0), 0}); !ok || h != want {
				t.Errorf("Raycast = %+v, %v; want %+v", h, ok, want)
			}
		}},
		{"invalid rays and segments", []AABB{wall}, func(t *testing.T, g *Grid) {
			for _, r := range []Ray{{V(nan, 5, 1), V(1, 0, 0)}, {V(-5, 5, 1), Vec3{}}, {V(-5, 5, 1), V(inf, 0, 0)}} {
				if h, ok := g.Raycast(r, 100); ok {
					t.Errorf("Raycast(%v) = %+v, true; want a miss", r, h)
				}
			}
			if h, ok := g.Raycast(ray(-5, 5, 1, 1, 0, 0), nan); ok {
				t.Errorf("Raycast with NaN maxDist = %+v, true; want a miss", h)
			}
			if g.SegmentBlocked(V(-5, 5, 1), V(nan, 5, 1)) {
				t.Error("SegmentBlocked with a NaN end")
			}
			if got := g.Query(AABB{V(nan, 0, 0), V(1, 1, 1)}, nil); len(got) != 0 {
				t.Errorf("Query with a NaN region = %v", got)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.check(t, NewGrid(tc.boxes, 0))
		})
	}
	for name, g := range map[string]*Grid{"zero Grid": {}, "nil Grid": nil} {
		t.Run(name, func(t *testing.T) {
			if got := g.Query(wall, nil); len(got) != 0 {
				t.Errorf("Query = %v", got)
			}
			if _, ok := g.Raycast(ray(0, 0, 0, 1, 0, 0), 1); ok {
				t.Error("Raycast hit")
			}
			if g.SegmentBlocked(V(0, 0, 0), V(1, 1, 1)) || g.SegmentBlocked(V(0, 0, 0), V(0, 0, 0)) {
				t.Error("SegmentBlocked")
			}
			if len(g.Boxes()) != 0 || g.Bounds() != (AABB{}) {
				t.Errorf("Boxes = %v, Bounds = %v", g.Boxes(), g.Bounds())
			}
		})
	}
}

// TestGridCopiesBoxes checks that the grid does not alias the caller's
// slice, so a map's grid cannot change under a running match.
func TestGridCopiesBoxes(t *testing.T) {
	boxes := []AABB{Box(V(0, 0, 0), V(1, 1, 1))}
	g := NewGrid(boxes, 0)
	boxes[0] = Box(V(5, 5, 5), V(6, 6, 6))
	if got := g.Boxes()[0]; got != Box(V(0, 0, 0), V(1, 1, 1)) {
		t.Errorf("Boxes()[0] = %v after the caller's slice changed", got)
	}
}

// TestGridLimits checks that an absurdly small cell size is coarsened to
// keep the index bounded.
func TestGridLimits(t *testing.T) {
	boxes := []AABB{Box(V(5, 5, 0), V(6, 6, 1))}
	for range 20 {
		boxes = append(boxes, Box(V(0, 0, 0), V(1000, 1000, 1)))
	}
	g := NewGrid(boxes, 1e-9)
	if n := g.nx * g.ny; n > maxGridCells {
		t.Errorf("%d cells, over the limit of %d", n, maxGridCells)
	}
	if n := len(g.entries); n > maxGridEntries {
		t.Errorf("%d entries, over the limit of %d", n, maxGridEntries)
	}
	if got := g.Query(Box(V(5.5, 5.5, 0), V(5.5, 5.5, 0)), nil); len(got) != len(boxes) {
		t.Errorf("Query = %v, want all %d boxes", got, len(boxes))
	}
}

// TestGridConcurrent runs queries from several goroutines on one grid, as
// parallel matches on one map do; run with -race to check for shared
// scratch state.
func TestGridConcurrent(t *testing.T) {
	boxes := testMap(7)
	g := NewGrid(boxes, 0)
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for w := range 8 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(8, uint64(w)))
			var got []int
			for range 500 {
				a, b := randPoint(rng), randPoint(rng)
				got = g.Query(Box(a, b), got[:0])
				if len(got) != len(bruteQuery(boxes, Box(a, b))) {
					errs <- "Query disagrees with brute force"
					return
				}
				r := Ray{a, randDir(rng)}
				h, ok := g.Raycast(r, 100)
				if want, wantOK := bruteRaycast(boxes, r, 100); ok != wantOK || h != want {
					errs <- "Raycast disagrees with brute force"
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

func TestGridZeroAllocs(t *testing.T) {
	g := NewGrid(testMap(9), 0)
	dst := make([]int, 0, 256)
	region := Box(V(10, 10, 0), V(30, 30, 2))
	r := ray(1, 2, 1.65, 1, 0.6, 0)
	if n := testing.AllocsPerRun(100, func() { dst = g.Query(region, dst[:0]) }); n != 0 {
		t.Errorf("Query: %v allocs", n)
	}
	if n := testing.AllocsPerRun(100, func() { g.Raycast(r, 100) }); n != 0 {
		t.Errorf("Raycast: %v allocs", n)
	}
	if n := testing.AllocsPerRun(100, func() { g.SegmentBlocked(V(1, 1, 1.6), V(58, 57, 1.6)) }); n != 0 {
		t.Errorf("SegmentBlocked: %v allocs", n)
	}
}

// benchRays returns eye-height shots across the map with slight pitch, the
// load hit registration puts on the grid.
func benchRays() []Ray {
	rng := rand.New(rand.NewPCG(10, 11))
	rays := make([]Ray, 1024)
	for i := range rays {
		yaw, pitch := 2*math.Pi*rng.Float64(), 0.2*(rng.Float64()-0.5)
		rays[i] = Ray{
			V(1+58*rng.Float64(), 1+58*rng.Float64(), 1.65),
			V(math.Cos(yaw)*math.Cos(pitch), math.Sin(yaw)*math.Cos(pitch), math.Sin(pitch)),
		}
	}
	return rays
}

func BenchmarkGridRaycast(b *testing.B) {
	b.ReportAllocs()
	g := NewGrid(testMap(12), 0)
	rays := benchRays()
	i := 0
	for b.Loop() {
		g.Raycast(rays[i%len(rays)], 100)
		i++
	}
}

func BenchmarkGridSegmentBlocked(b *testing.B) {
	b.ReportAllocs()
	g := NewGrid(testMap(12), 0)
	rays := benchRays()
	i := 0
	for b.Loop() {
		r := rays[i%len(rays)]
		g.SegmentBlocked(r.Origin, r.At(20))
		i++
	}
}

func BenchmarkGridQuery(b *testing.B) {
	b.ReportAllocs()
	g := NewGrid(testMap(12), 0)
	rays := benchRays()
	dst := make([]int, 0, 64)
	i := 0
	for b.Loop() {
		p := rays[i%len(rays)].Origin
		dst = g.Query(AABB{p, p}.Expand(1), dst[:0])
		i++
	}
}

// TestGridOnCellBoundaries casts rays and segments that start on, run
// along and end on cell boundaries at cell sizes that are not exact in
// binary, against boxes whose faces lie on those boundaries. Here rounding
// puts a computed column one off the true one, which the hair's margin in
// the boxes' footprints must absorb.
func TestGridOnCellBoundaries(t *testing.T) {
	for _, cell := range []float64{0.1, 0.3, 0.7} {
		rng := rand.New(rand.NewPCG(13, uint64(cell*10)))
		onGrid := func() float64 { return math.Round(60*rng.Float64()/cell) * cell }
		var boxes []AABB
		for range 300 {
			x, y := onGrid(), onGrid()
			w, h := cell*float64(1+rng.IntN(3)), cell*float64(1+rng.IntN(3))
			boxes = append(boxes, Box(V(x, y, 0), V(x+w, y+h, 3)))
		}
		g := NewGrid(boxes, cell)
		for trial := range 3000 {
			d := V(float64(rng.IntN(3)-1), float64(rng.IntN(3)-1), 0)
			if trial%2 == 0 {
				d = randDir(rng)
				d.Z = 0
			}
			if d == (Vec3{}) {
				continue
			}
			r := Ray{V(onGrid(), onGrid(), 1), d.Norm()}
			got, ok := g.Raycast(r, 30)
			if want, wantOK := bruteRaycast(boxes, r, 30); ok != wantOK || got != want {
				t.Fatalf("cell %v, trial %d: Raycast(%v) = %+v, %v; want %+v, %v", cell, trial, r, got, ok, want, wantOK)
			}
			b := r.At(5 * rng.Float64())
			if got, want := g.SegmentBlocked(r.Origin, b), bruteSegmentBlocked(boxes, r.Origin, b); got != want {
				t.Fatalf("cell %v, trial %d: SegmentBlocked(%v, %v) = %v, want %v", cell, trial, r.Origin, b, got, want)
			}
		}
	}
}
