package nav

import (
	"errors"
	"fmt"

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
