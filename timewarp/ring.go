package timewarp

import "github.com/lagkit/lagkit/game"

// Ring is the past a warp may re-run: the record of the last window + 1
// ticks, a fixed ring, so that its memory does not depend on what
// clients send. For every tick it holds each slot's player (O, the
// host's handle of a client; the zero O for an empty slot), its states
// and the commands it ran, and L, what the host keeps of the tick's
// shots, projectiles and damage to compare a re-simulation against.
type Ring[O comparable, L any] struct {
	ticks []*Tick[O, L]
}

// Tick is the ring's record of one tick.
type Tick[O comparable, L any] struct {
	// Tick is the tick recorded.
	Tick uint32
	// Owner is who played in each slot during the tick.
	Owner []O
	// Start is each slot's state at the start of the tick where
	// FixedStart says the host set it between ticks (a join, a
	// placement): a fact every re-simulation takes as recorded.
	Start      []game.PlayerState
	FixedStart []bool
	// Moved is each slot's state after its commands, State after the
	// tick; FixedEnd marks a state after the tick the host set (a
	// respawn), a fact too.
	Moved    []game.PlayerState
	State    []game.PlayerState
	FixedEnd []bool
	// Lists is what the host recorded of the tick's shots and
	// projectiles.
	Lists L
	// Changes are the changes the host made to players after the tick,
	// in the order made (Change): damage and edits a re-simulation
	// applies again.
	Changes []Change

	ncmd     []uint8
	cmds     []game.UserCmd // CmdsPerTick per slot
	deferred []bool         // per command: its shot was judged at its issue tick
}

// NewRing returns a ring for a window of window ticks over slots slots.
func NewRing[O comparable, L any](window, slots int) *Ring[O, L] {
	r := &Ring[O, L]{ticks: make([]*Tick[O, L], window+1)}
	for i := range r.ticks {
		r.ticks[i] = &Tick[O, L]{
			Owner: make([]O, slots), Start: make([]game.PlayerState, slots),
			FixedStart: make([]bool, slots), FixedEnd: make([]bool, slots),
			Moved: make([]game.PlayerState, slots), State: make([]game.PlayerState, slots),
			ncmd: make([]uint8, slots), cmds: make([]game.UserCmd, slots*CmdsPerTick),
			deferred: make([]bool, slots*CmdsPerTick),
		}
	}
	return r
}

// Len returns how many ticks the ring holds: the window and one.
func (r *Ring[O, L]) Len() int { return len(r.ticks) }

// Entry returns the record of tick t, and whether the ring still holds
// it (else the record is of an older or newer tick).
func (r *Ring[O, L]) Entry(t uint32) (*Tick[O, L], bool) {
	e := r.ticks[t%uint32(len(r.ticks))]
	return e, e.Tick == t
}

// Begin starts the record of tick t in place of the oldest and returns
// it, without commands; the host fills in its slots and resets its
// lists.
func (r *Ring[O, L]) Begin(t uint32) *Tick[O, L] {
	e := r.ticks[t%uint32(len(r.ticks))]
	e.Tick = t
	clear(e.ncmd)
	e.Changes = e.Changes[:0]
	return e
}

// Before returns the newest tick up to t whose record the ring no longer
// holds or holds without o in slot: o played in slot in every tick after
// it up to t (0 when the ring reaches back to the first tick).
func (r *Ring[O, L]) Before(slot int, o O, t uint32) uint32 {
	for t > 0 {
		if e, ok := r.Entry(t); !ok || e.Owner[slot] != o {
			break
		}
		t--
	}
	return t
}

// InsertLate inserts the oldest of sched's commands whose effective tick
// has run (it is last, the newest tick run, or older: the command
// arrived late) at that tick's record, as run by o in slot, notes the
// slot late from there in sp and counts it (Stats.Late), and returns it
// and its tick. A command the ring can no longer take (its tick is gone,
// o did not play in the slot then, the tick holds CmdsPerTick of the
// slot's already, or the round restarted at or after it: at floor) is
// postponed to last + 1 instead, to run as the next tick's, and counted
// too old; InsertLate then reports false, as when no command is due.
func (r *Ring[O, L]) InsertLate(sched *Schedule, sp *Span, st *Stats, slot int, o O, last, floor uint32) (game.UserCmd, uint32, bool) {
	p, due := sched.Due(last)
	if !due {
		return game.UserCmd{}, 0, false
	}
	e, ok := r.Entry(p.Tick)
	if !ok || e.Owner[slot] != o || e.Full(slot) || p.Tick <= floor {
		// Scheduling keeps effective ticks within the window, after the
		// join and the last restart and CmdsPerTick a tick at most, so
		// this happens only when the round restarted after the command
		// arrived; applying it at the next tick is the safe answer.
		sched.Postpone(last + 1)
		st.TooOld++
		return game.UserCmd{}, 0, false
	}
	sched.Pop(last)
	e.Add(slot, p.Cmd)
	sp.Late(slot, p.Tick)
	st.Late++
	return p.Cmd, p.Tick, true
}

// Full reports whether slot ran CmdsPerTick commands in the tick.
func (e *Tick[O, L]) Full(slot int) bool { return e.ncmd[slot] == CmdsPerTick }

// Add appends cmd to the commands slot ran in the tick; the slot must
// not be Full.
func (e *Tick[O, L]) Add(slot int, cmd game.UserCmd) {
	k := slot*CmdsPerTick + int(e.ncmd[slot])
	e.cmds[k], e.deferred[k] = cmd, false
	e.ncmd[slot]++
}

// Cmds returns the commands slot ran in the tick, in order: the record's
// own, so that changing them changes what a re-simulation runs.
func (e *Tick[O, L]) Cmds(slot int) []game.UserCmd {
	k := slot * CmdsPerTick
	return e.cmds[k : k+int(e.ncmd[slot])]
}

// Defer marks slot's command issued at tick as one whose shot is judged
// at its issue tick instead (Rules.HitscanOnly): a re-simulation that
// runs the command again does not fire it again.
func (e *Tick[O, L]) Defer(slot int, tick uint32) {
	k := slot * CmdsPerTick
	for i := range int(e.ncmd[slot]) {
		if e.cmds[k+i].Tick == tick {
			e.deferred[k+i] = true
		}
	}
}

// Deferred reports whether the shot of slot's command i in the tick was
// deferred to its issue tick (Defer).
func (e *Tick[O, L]) Deferred(slot, i int) bool { return e.deferred[slot*CmdsPerTick+i] }
