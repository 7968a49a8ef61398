package lagcomp

import (
	"time"

	"github.com/lagkit/lagkit/game"
)

// History records every player's state at every server tick in a ring
// buffer covering a fixed span (max_unlag), and answers "where was player
// i at server time t" in O(1), interpolating between the two ticks that
// straddle t. Server time of tick n is n * tick duration.
//
// The zero History is not usable; create one with NewHistory.
type History struct {
	tickDur    time.Duration
	slots      int
	maxPlayers int
	ticks      []uint32           // tick held by each slot
	valid      []bool             // slot holds a recorded tick
	present    []bool             // slots * maxPlayers
	states     []game.PlayerState // slots * maxPlayers
	newest     uint32
	hasNewest  bool
}

// NewHistory returns a history for maxPlayers players at the given tick
// duration that keeps at least span of past ticks.
func NewHistory(tickDur, span time.Duration, maxPlayers int) *History {
	if tickDur <= 0 {
		tickDur = time.Second / 64
	}
	slots := int(span/tickDur) + 2 // both ends of the span, inclusive
	return &History{
		tickDur:    tickDur,
		slots:      slots,
		maxPlayers: maxPlayers,
		ticks:      make([]uint32, slots),
		valid:      make([]bool, slots),
		present:    make([]bool, slots*maxPlayers),
		states:     make([]game.PlayerState, slots*maxPlayers),
	}
}

// Begin starts the record of tick, discarding the oldest tick if the
// buffer is full. Ticks must be recorded in increasing order.
func (h *History) Begin(tick uint32) {
	s := int(tick % uint32(h.slots))
	h.ticks[s] = tick
	h.valid[s] = true
	clear(h.present[s*h.maxPlayers : (s+1)*h.maxPlayers])
	h.newest, h.hasNewest = tick, true
}

// Set records player id's state for the tick last passed to Begin.
func (h *History) Set(id int, st game.PlayerState) {
	if !h.hasNewest || id < 0 || id >= h.maxPlayers {
		return
	}
	i := int(h.newest%uint32(h.slots))*h.maxPlayers + id
	h.present[i] = true
	h.states[i] = st
}

// Newest returns the newest recorded tick.
func (h *History) Newest() (uint32, bool) { return h.newest, h.hasNewest }

// Oldest returns the oldest tick still held.
func (h *History) Oldest() (uint32, bool) {
	if !h.hasNewest {
		return 0, false
	}
	if h.newest < uint32(h.slots-1) {
		return 0, true
	}
	return h.newest - uint32(h.slots-1), true
}

// TickTime returns the server time of tick n.
func (h *History) TickTime(n uint32) time.Duration { return time.Duration(n) * h.tickDur }

// lookup returns the recorded state of id at tick n.
func (h *History) lookup(id int, n uint32) (*game.PlayerState, bool) {
	s := int(n % uint32(h.slots))
	if !h.valid[s] || h.ticks[s] != n || n > h.newest {
		return nil, false
	}
	i := s*h.maxPlayers + id
	if !h.present[i] {
		return nil, false
	}
	return &h.states[i], true
}

// At returns player id's state at server time t, interpolated between the
// records of the two ticks that straddle t. A time after the newest tick
// returns the newest record. It reports false when t is older than the
// history holds, negative, or the player was not present.
func (h *History) At(id int, t time.Duration) (game.PlayerState, bool) {
	a, b, frac, ok := h.straddle(id, t)
	switch {
	case !ok:
		return game.PlayerState{}, false
	case frac == 0:
		return *a, true
	}
	return game.Interpolate(*a, *b, frac), true
}

// straddle returns the records of player id that At blends for time t: a
// at fraction 0, b at 1 and the fraction between them (0 when a alone
// answers). The pose At returns lies between them: on the segment between
// their positions, or at one of them across a teleport. The pointers are
// into the history and stay valid until the next Begin.
func (h *History) straddle(id int, t time.Duration) (a, b *game.PlayerState, frac float64, ok bool) {
	if !h.hasNewest || id < 0 || id >= h.maxPlayers || t < 0 {
		return nil, nil, 0, false
	}
	n64 := int64(t / h.tickDur)
	if n64 >= int64(h.newest) {
		a, ok = h.lookup(id, h.newest)
		return a, a, 0, ok
	}
	n := uint32(n64)
	if a, ok = h.lookup(id, n); !ok {
		return nil, nil, 0, false
	}
	frac = float64(t%h.tickDur) / float64(h.tickDur)
	if frac == 0 {
		return a, a, 0, true
	}
	if b, ok = h.lookup(id, n+1); !ok {
		return a, a, 0, true
	}
	return a, b, frac, true
}
