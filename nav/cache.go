package nav

import (
	"encoding/binary"
	"math"
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

// gridCache is a small most-recently-used list of built Grids by
// everything Build reads.
type gridCache struct {
	mu      sync.Mutex
	entries []cachedGrid // most recently used first
}

type cachedGrid struct {
	key gridKey
	g   *Grid
}

// gridKey is everything Build reads: the movement settings, the cell
// size and the exact bits of the map's geometry (geometry).
type gridKey struct {
	params   game.Params
	cell     float64
	geometry string
}

// get returns the Grid built for key, or nil.
func (c *gridCache) get(key gridKey) *Grid {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, e := range c.entries {
		if e.key == key {
			copy(c.entries[1:i+1], c.entries[:i])
			c.entries[0] = e
			return e.g
		}
	}
	return nil
}

// put keeps g as the Grid built for key, forgetting the least recently
// used one beyond maxCachedGrids.
func (c *gridCache) put(key gridKey, g *Grid) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, e := range c.entries {
		if e.key == key {
			return // built meanwhile by another goroutine
		}
	}
	if len(c.entries) < maxCachedGrids {
		c.entries = append(c.entries, cachedGrid{})
	}
	copy(c.entries[1:], c.entries[:len(c.entries)-1])
	c.entries[0] = cachedGrid{key, g}
}

// geometry returns the exact bits of what Build reads of m's geometry:
// the bounds, the boxes of the broad phase it uses and the spawns'
// positions (reachability). The broad phase itself is not part of it:
// Build only asks it for sets of boxes, which do not depend on how it is
// laid out.
func geometry(m *world.Map) string {
	boxes := m.Boxes
	if m.Grid != nil {
		boxes = nil
		for _, b := range m.Grid.Boxes() {
			boxes = append(boxes, world.Box{AABB: b})
		}
	}
	b := make([]byte, 0, 8*(8+6*len(boxes)+3*len(m.Spawns)))
	v := func(ps ...geom.Vec3) {
		for _, p := range ps {
			for _, x := range [3]float64{p.X, p.Y, p.Z} {
				b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
			}
		}
	}
	v(m.Bounds.Min, m.Bounds.Max)
	b = binary.LittleEndian.AppendUint64(b, uint64(len(boxes)))
	for _, x := range boxes {
		v(x.Min, x.Max)
	}
	b = binary.LittleEndian.AppendUint64(b, uint64(len(m.Spawns)))
	for _, s := range m.Spawns {
		v(s.Pos)
	}
	return string(b)
}
