package lagcomp

import (
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
)

// sweepTicks is the length of a sweep chunk: History keeps, per player,
// the box around its positions over each run of sweepTicks consecutive
// ticks. Shorter chunks give tighter boxes (at 128 Hz and 4 m/s a chunk
// spans 12.5 cm, against a player 80 cm across) so that a shot enters
// fewer of them and walks the world's grid less far, but more boxes to
// keep: 6 coordinates a player a chunk, under a fifth of the states'
// size. Chunks of 16 ticks were 6% slower a rewound shot; of 2 or 1, no
// faster. A power of two keeps the chunk index a shift.
const sweepTicks = 4

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

	// Swept bounds, the broad phase of Tracer: chunk c (ticks c*sweepTicks
	// to c*sweepTicks+sweepTicks-1) lives in sweep slot c % chunks, and
	// holds for each player the box around its positions at those ticks
	// and at the first tick of chunk c+1, so that every pose interpolated
	// between two recorded ticks of chunk c lies inside it (lightyear's
	// swept bounds over the history window, cut into chunks so the box
	// stays tight and never needs shrinking).
	chunks   int
	chunkKey []uint32 // chunk held by each sweep slot
	chunkOK  []bool   // sweep slot holds a chunk
	// The boxes, maxPlayers of them a chunk: each sweep slot holds one
	// block of 6 * maxPlayers coordinates, by axis the minimum corners of
	// every player's box and then the maximum ones (sweptBoxes), so that
	// the broad phase reads each as a run.
	swept   []float64
	sweptOK []bool // chunks * maxPlayers: box holds a position
}

// sweptBoxes are the swept boxes of one chunk, indexed by player id < n:
// on axis a, the minimum corners are c[2*a*n:][:n] and the maximum ones
// c[(2*a+1)*n:][:n]. ok reports whether each box holds a position.
type sweptBoxes struct {
	c  []float64
	ok []bool
}

// side returns the run of the minimum (hi false) or maximum (hi true)
// coordinates of every box on axis a.
func (b *sweptBoxes) side(a int, hi bool) []float64 {
	n := len(b.ok)
	k := 2 * a
	if hi {
		k++
	}
	return b.c[k*n : (k+1)*n]
}

// NewHistory returns a history for maxPlayers players at the given tick
// duration that keeps at least span of past ticks.
func NewHistory(tickDur, span time.Duration, maxPlayers int) *History {
	if tickDur <= 0 {
		tickDur = time.Second / 64
	}
	slots := int(span/tickDur) + 2 // both ends of the span, inclusive
	// Enough chunks to cover every tick the ring holds, wherever the ring
	// starts within a chunk.
	chunks := (slots-1)/sweepTicks + 2
	h := &History{
		chunks:     chunks,
		chunkKey:   make([]uint32, chunks),
		chunkOK:    make([]bool, chunks),
		swept:      make([]float64, chunks*6*maxPlayers),
		sweptOK:    make([]bool, chunks*maxPlayers),
		tickDur:    tickDur,
		slots:      slots,
		maxPlayers: maxPlayers,
		ticks:      make([]uint32, slots),
		valid:      make([]bool, slots),
		present:    make([]bool, slots*maxPlayers),
		states:     make([]game.PlayerState, slots*maxPlayers),
	}
	return h
}

// Begin starts the record of tick, discarding the oldest tick if the
// buffer is full. Ticks must be recorded in increasing order.
func (h *History) Begin(tick uint32) {
	s := int(tick % uint32(h.slots))
	h.ticks[s] = tick
	h.valid[s] = true
	clear(h.present[s*h.maxPlayers : (s+1)*h.maxPlayers])
	h.newest, h.hasNewest = tick, true
	c := tick / sweepTicks
	if cs := int(c % uint32(h.chunks)); !h.chunkOK[cs] || h.chunkKey[cs] != c {
		h.chunkKey[cs], h.chunkOK[cs] = c, true
		clear(h.sweptOK[cs*h.maxPlayers : (cs+1)*h.maxPlayers])
	}
}

// Set records player id's state for the tick last passed to Begin.
func (h *History) Set(id int, st game.PlayerState) {
	if !h.hasNewest || id < 0 || id >= h.maxPlayers {
		return
	}
	i := int(h.newest%uint32(h.slots))*h.maxPlayers + id
	h.present[i] = true
	h.states[i] = st
	c := h.newest / sweepTicks
	h.sweep(c, id, st.Pos)
	if h.newest%sweepTicks == 0 && c > 0 {
		// The first tick of a chunk also bounds the poses between it and
		// the last tick of the chunk before.
		h.sweep(c-1, id, st.Pos)
	}
}

// sweep grows player id's box of chunk c to hold pos, if the chunk is
// still held.
func (h *History) sweep(c uint32, id int, pos geom.Vec3) {
	cs := int(c % uint32(h.chunks))
	if !h.chunkOK[cs] || h.chunkKey[cs] != c {
		return
	}
	i, n := cs*h.maxPlayers+id, h.maxPlayers
	box := h.swept[cs*6*n : (cs+1)*6*n]
	p := [3]float64{pos.X, pos.Y, pos.Z}
	if !h.sweptOK[i] {
		for a := range 3 {
			box[2*a*n+id], box[(2*a+1)*n+id] = p[a], p[a]
		}
		h.sweptOK[i] = true
		return
	}
	for a := range 3 {
		lo, hi := &box[2*a*n+id], &box[(2*a+1)*n+id]
		*lo, *hi = min(*lo, p[a]), max(*hi, p[a])
	}
}

// sweptAt returns, indexed by player, the boxes around every position At
// can return for time t, and whether each box holds any position: a
// player without one has no pose at t. It reports false when no chunk
// answers for t; then nothing can be pruned.
func (h *History) sweptAt(t time.Duration) (sweptBoxes, bool) {
	if !h.hasNewest || t < 0 {
		return sweptBoxes{}, false
	}
	n := h.newest
	if n64 := int64(t / h.tickDur); n64 < int64(h.newest) {
		n = uint32(n64)
	}
	c := n / sweepTicks
	cs := int(c % uint32(h.chunks))
	if !h.chunkOK[cs] || h.chunkKey[cs] != c {
		return sweptBoxes{}, false
	}
	m := h.maxPlayers
	return sweptBoxes{c: h.swept[cs*6*m : (cs+1)*6*m], ok: h.sweptOK[cs*m : (cs+1)*m]}, true
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

// PosAt returns player id's position and teleport count at server time
// t: the same as those of At's state, without blending the rest of it.
func (h *History) PosAt(id int, t time.Duration) (pos geom.Vec3, teleport uint8, ok bool) {
	a, b, frac, ok := h.straddle(id, t)
	switch {
	case !ok:
		return geom.Vec3{}, 0, false
	case frac == 0:
		return a.Pos, a.Teleport, true
	case a.Teleport != b.Teleport: // game.Interpolate keeps the nearer record
		if frac < 0.5 {
			return a.Pos, a.Teleport, true
		}
		return b.Pos, b.Teleport, true
	}
	return a.Pos.Lerp(b.Pos, frac), a.Teleport, true
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

// Instant is a server time as the history answers for it, for asking
// where many players were at that one time: what straddle works out
// from the time alone (the ticks that straddle it, held or not, and
// the fraction between them) is worked out once. It is valid until the
// next Begin.
type Instant struct {
	h *History
	// a and b are the index in states of slot 0 of the records at
	// fraction 0 and 1, -1 when that tick is not held (b also when a
	// alone answers); frac is the fraction.
	a, b int
	frac float64
}

// Instant returns the instant of server time t, for Instant.PosAt.
func (h *History) Instant(t time.Duration) Instant {
	in := Instant{h: h, a: -1, b: -1}
	if !h.hasNewest || t < 0 {
		return in
	}
	held := func(n uint32) int {
		s := int(n % uint32(h.slots))
		if !h.valid[s] || h.ticks[s] != n || n > h.newest {
			return -1
		}
		return s * h.maxPlayers
	}
	n64 := int64(t / h.tickDur)
	if n64 >= int64(h.newest) {
		in.a = held(h.newest)
		return in
	}
	n := uint32(n64)
	if in.a = held(n); in.a < 0 {
		return in
	}
	if in.frac = float64(t%h.tickDur) / float64(h.tickDur); in.frac != 0 {
		in.b = held(n + 1)
	}
	return in
}

// PosAt returns what History.PosAt returns for player id at the
// instant's time, with the same arithmetic.
func (in *Instant) PosAt(id int) (pos geom.Vec3, teleport uint8, ok bool) {
	h := in.h
	if h == nil || in.a < 0 || id < 0 || id >= h.maxPlayers || !h.present[in.a+id] {
		return geom.Vec3{}, 0, false
	}
	a := &h.states[in.a+id]
	if in.b < 0 || !h.present[in.b+id] {
		return a.Pos, a.Teleport, true
	}
	b, frac := &h.states[in.b+id], in.frac
	if a.Teleport != b.Teleport { // game.Interpolate keeps the nearer record
		if frac < 0.5 {
			return a.Pos, a.Teleport, true
		}
		return b.Pos, b.Teleport, true
	}
	return a.Pos.Lerp(b.Pos, frac), a.Teleport, true
}
