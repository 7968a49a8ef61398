package nav

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/world"
)

// Check reports the first way in which m is not fully walkable on g, the
// Grid built from it: a spawn or objective that does not stand on walkable
// floor (a walkable cell of its own column or a neighbouring one, within a
// step of its height), or one that a player cannot walk to from some
// spawn, of any team. Errors start with the map's name and the field, as in
//
//	metro: spawns[3]: unreachable from spawns[0]
//	arena: objectives[1] (A): unreachable from spawns[0]
func Check(m *world.Map, g *Grid) error {
	if m == nil {
		return errors.New("nav: nil map")
	}
	if g == nil {
		return fmt.Errorf("%s: nil navigation grid", m.Name)
	}
	key := checkKey(m)
	if g.passed != nil && g.passed.has(key) {
		return nil
	}
	if err := check(m, g); err != nil {
		return err
	}
	if g.passed != nil {
		g.passed.set(key)
	}
	return nil
}

// check is Check without the memo.
func check(m *world.Map, g *Grid) error {
	spawns := make([]int32, len(m.Spawns))
	for i, s := range m.Spawns {
		n, ok := g.onFloor(s.Pos)
		if !ok {
			return fmt.Errorf("%s: spawns[%d]: %s is not on walkable floor", m.Name, i, vec(s.Pos))
		}
		spawns[i] = n
	}
	objectives := make([]int32, len(m.Objectives))
	for i, o := range m.Objectives {
		n, ok := g.onFloor(o.Pos)
		if !ok {
			return fmt.Errorf("%s: objectives[%d] (%s): %s is not on walkable floor", m.Name, i, o.Name, vec(o.Pos))
		}
		objectives[i] = n
	}
	seen := make([]bool, len(g.nodes))
	var queue []int32
	for i, s := range spawns {
		clear(seen)
		seen[s] = true
		queue = append(queue[:0], s)
		for len(queue) > 0 {
			n := queue[len(queue)-1]
			queue = queue[:len(queue)-1]
			for d := range dirs {
				if t, _ := g.neighbour(n, d); t >= 0 && !seen[t] {
					seen[t] = true
					queue = append(queue, t)
				}
			}
		}
		for j, t := range spawns {
			if !seen[t] {
				return fmt.Errorf("%s: spawns[%d]: unreachable from spawns[%d]", m.Name, j, i)
			}
		}
		for j, t := range objectives {
			if !seen[t] {
				return fmt.Errorf("%s: objectives[%d] (%s): unreachable from spawns[%d]", m.Name, j, m.Objectives[j].Name, i)
			}
		}
	}
	return nil
}

// vec formats p as (x, y, z).
func vec(p geom.Vec3) string { return fmt.Sprintf("(%g, %g, %g)", p.X, p.Y, p.Z) }

// checkMemo holds the key (checkKey) of the last map Check passed on a
// Grid: the answer depends only on the Grid and those places.
type checkMemo struct {
	mu  sync.Mutex
	key []uint64
}

func (c *checkMemo) has(key []uint64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.key != nil && slices.Equal(c.key, key)
}

func (c *checkMemo) set(key []uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.key = key
}

// checkKey returns the exact bits of the places Check looks at: every
// spawn's and objective's position.
func checkKey(m *world.Map) []uint64 {
	key := make([]uint64, 0, 2+3*(len(m.Spawns)+len(m.Objectives)))
	key = append(key, uint64(len(m.Spawns)), uint64(len(m.Objectives)))
	for _, s := range m.Spawns {
		key = append(key, math.Float64bits(s.Pos.X), math.Float64bits(s.Pos.Y), math.Float64bits(s.Pos.Z))
	}
	for _, o := range m.Objectives {
		key = append(key, math.Float64bits(o.Pos.X), math.Float64bits(o.Pos.Y), math.Float64bits(o.Pos.Z))
	}
	return key
}
