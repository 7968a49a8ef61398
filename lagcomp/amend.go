package lagcomp

import "github.com/lagkit/lagkit/game"

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
