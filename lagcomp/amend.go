package lagcomp

import (
	"fmt"

	"github.com/lagkit/lagkit/game"
)

// Amend replaces player id's recorded state at tick, a tick the history
// still holds, as recording that tick again with the new state would
// (its swept box grows to hold it), and leaves every other record as it
// is. A time warp re-simulation uses it for the players it changed. It
// reports false, changing nothing, when the tick is not held.
func (h *History) Amend(tick uint32, id int, st game.PlayerState) bool {
	s := int(tick % uint32(h.slots))
	if id < 0 || id >= h.maxPlayers || !h.valid[s] || h.ticks[s] != tick || tick > h.newest {
		return false
	}
	newest := h.newest
	h.newest = tick
	h.Set(id, st)
	h.newest = newest
	return true
}

// Amend replaces entity id's record at tick n, a tick the rewinder
// still holds, with pose and body (nil: absent at n), and reports
// whether it held the tick: a time warp's re-simulation settles the past
// on other poses, and a game's TraceAt at a re-run tick must test the
// bodies the server settled on. It allocates nothing for an id recorded
// before; a new id takes a free column as Record does.
func (r *Rewinder) Amend(n uint32, id int, pose Pose, body Body) (bool, error) {
	s := int(n % uint32(r.slots))
	if !r.has || !r.valid[s] || r.ticks[s] != n || n > r.newest {
		return false, nil
	}
	c, ok := r.col[id]
	if !ok {
		if body == nil {
			return true, nil // absent, as it was
		}
		if c, ok = r.freeColumn(); !ok {
			return true, fmt.Errorf("entity %d: %w", id, ErrRewinderFull)
		}
		if old := r.ids[c]; old >= 0 {
			delete(r.col, old)
		}
		r.ids[c] = id
		r.col[id] = c
	}
	rec := &r.recs[s*r.cols+c]
	if body == nil {
		if rec.id == id {
			*rec = rewindRec{}
		}
		return true, nil
	}
	*rec = rewindRec{id: id, ok: true, pose: pose, body: body}
	return true, nil
}
