package nav

import (
	"math"
	"reflect"
	"slices"
	"sync"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/world"
)

// maxCachedGrids is how many Grids BuildWithOptions keeps for reuse: an
// experiment plays many matches on a few maps, and a Grid of a 64 m map
// takes about a megabyte (at most about 70 MB, see maxNodes).
const maxCachedGrids = 4

// builds holds the Grids built last. A Grid is read-only after Build, so
// Build returns the same Grid for a map and settings it built before: the
// floors, edges and lists depend only on the numbers in the key, not on
// which copy of the map they came from.
var builds gridCache

// gridCache is a small most-recently-used list of built Grids by the exact
// bits of everything Build reads.
type gridCache struct {
	mu      sync.Mutex
	entries []cachedGrid // most recently used first
}

type cachedGrid struct {
	key []uint64
	g   *Grid
}

// get returns the Grid built for key, or nil.
func (c *gridCache) get(key []uint64) *Grid {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, e := range c.entries {
		if slices.Equal(e.key, key) {
			copy(c.entries[1:i+1], c.entries[:i])
			c.entries[0] = e
			return e.g
		}
	}
	return nil
}

// put keeps g as the Grid built for key, forgetting the least recently
// used one beyond maxCachedGrids.
func (c *gridCache) put(key []uint64, g *Grid) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, e := range c.entries {
		if slices.Equal(e.key, key) {
			return // built meanwhile by another goroutine
		}
	}
	if len(c.entries) < maxCachedGrids {
		c.entries = append(c.entries, cachedGrid{})
	}
	copy(c.entries[1:], c.entries[:len(c.entries)-1])
	c.entries[0] = cachedGrid{key, g}
}

// buildKey returns the exact bits of everything Build reads from m, p and
// the cell size: the bounds, the boxes of the broad phase it uses, the
// spawns' positions (reachability) and every field of p. The broad phase
// itself is not part of it: Build only asks it for sets of boxes, which do
// not depend on how it is laid out.
func buildKey(m *world.Map, p *game.Params, cell float64) []uint64 {
	var boxes []geom.AABB
	if m.Grid != nil {
		boxes = m.Grid.Boxes()
	}
	key := make([]uint64, 0, 16+6*max(len(boxes), len(m.Boxes))+3*len(m.Spawns))
	f := func(xs ...float64) {
		for _, x := range xs {
			key = append(key, math.Float64bits(x))
		}
	}
	v := func(ps ...geom.Vec3) {
		for _, p := range ps {
			f(p.X, p.Y, p.Z)
		}
	}
	f(cell)
	pv := reflect.ValueOf(p).Elem()
	for i := range pv.NumField() {
		switch fv := pv.Field(i); fv.Kind() {
		case reflect.Float64:
			f(fv.Float())
		case reflect.Bool:
			key = append(key, uint64(btoi(fv.Bool())))
		default:
			panic("nav: buildKey: game.Params field " + pv.Type().Field(i).Name + " of unexpected kind")
		}
	}
	v(m.Bounds.Min, m.Bounds.Max)
	if m.Grid != nil {
		key = append(key, 1, uint64(len(boxes)))
		for _, b := range boxes {
			v(b.Min, b.Max)
		}
	} else {
		key = append(key, 0, uint64(len(m.Boxes)))
		for _, b := range m.Boxes {
			v(b.Min, b.Max)
		}
	}
	key = append(key, uint64(len(m.Spawns)))
	for _, s := range m.Spawns {
		v(s.Pos)
	}
	return key
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
