package timewarp

import (
	"math"

	"github.com/lagkit/lagkit/game"
)

// Span is a re-simulation's account of the players, from the oldest late
// command's tick to the present: the late players and the tick each is
// re-run from, the affected set (the late, and every player whose damage
// the re-simulation changed, from then on), the settled (whose
// announced death lies within the span: they keep their recorded health
// and no re-judged shot newly hits them), and each slot's state at the
// current point of the tick being re-run. That state is the record's
// (the ring's Tick.Moved), read in place, for every player the
// re-simulation has not changed in the tick, and the span's own copy for
// the players stepped again and those damage in the tick changed: an
// unaffected player costs nothing per tick. Its memory is fixed when
// made.
type Span struct {
	work     []game.PlayerState
	cur      []uint32 // work[i] is current in the tick when cur[i] == epoch
	epoch    uint32   // counts the ticks re-run, from 1
	carried  []bool   // work holds the state after the previous tick re-run
	in       []bool
	list     []int // the affected, ascending
	settled  []bool
	lateFrom []uint32 // per slot: the first tick a late command was inserted at
	late     []int    // the slots with a late command, ascending
}

// NewSpan returns a span over slots slots, with no late player.
func NewSpan(slots int) *Span {
	sp := &Span{
		work: make([]game.PlayerState, slots), cur: make([]uint32, slots),
		carried: make([]bool, slots), in: make([]bool, slots), list: make([]int, 0, slots),
		settled: make([]bool, slots), lateFrom: make([]uint32, slots),
	}
	for i := range sp.lateFrom {
		sp.lateFrom[i] = math.MaxUint32
	}
	return sp
}

// Late notes a command of slot inserted at tick t: the slot is re-run
// from the oldest such tick by the next re-simulation.
func (sp *Span) Late(slot int, t uint32) { sp.lateFrom[slot] = min(sp.lateFrom[slot], t) }

// LateFrom returns the tick slot is re-run from (math.MaxUint32: it has
// no late command).
func (sp *Span) LateFrom(slot int) uint32 { return sp.lateFrom[slot] }

// LateSlots returns the slots with a late command, ascending, as of
// Begin.
func (sp *Span) LateSlots() []int { return sp.late }

// Begin starts a re-simulation: nobody affected, settled or carried yet,
// the late ones those Late noted since the last End.
func (sp *Span) Begin() {
	clear(sp.in)
	clear(sp.settled)
	clear(sp.carried)
	sp.list = sp.list[:0]
	sp.late = sp.late[:0]
	for i, t := range sp.lateFrom {
		if t != math.MaxUint32 {
			sp.late = append(sp.late, i)
		}
	}
}

// Settle marks slot as settled for this re-simulation.
func (sp *Span) Settle(slot int) { sp.settled[slot] = true }

// Settled reports whether slot is settled.
func (sp *Span) Settled(slot int) bool { return sp.settled[slot] }

// End ends a re-simulation: the late commands are inserted.
func (sp *Span) End() {
	for _, i := range sp.late {
		sp.lateFrom[i] = math.MaxUint32
	}
}

// Tick starts the next tick re-run: every slot's state is the record's
// again until the span takes it (Own, Step).
func (sp *Span) Tick() {
	if sp.epoch++; sp.epoch == 0 {
		clear(sp.cur)
		sp.epoch = 1
	}
}

// State returns slot's state at this point of the tick: the span's own
// if it took it, else moved[slot] (the tick's recorded state after the
// commands), in place.
func (sp *Span) State(slot int, moved []game.PlayerState) *game.PlayerState {
	if sp.cur[slot] == sp.epoch {
		return &sp.work[slot]
	}
	return &moved[slot]
}

// Own returns slot's state at this point of the tick to change: the
// span's own, taken from moved[slot] if it had not taken it yet.
func (sp *Span) Own(slot int, moved []game.PlayerState) *game.PlayerState {
	if sp.cur[slot] != sp.epoch {
		sp.work[slot], sp.cur[slot] = moved[slot], sp.epoch
	}
	return &sp.work[slot]
}

// Step takes slot's state at the start of the tick to step it again: the
// one the span carried from the previous tick re-run, else prev (its
// recorded state after the previous tick).
func (sp *Span) Step(slot int, prev game.PlayerState) *game.PlayerState {
	if !sp.carried[slot] {
		sp.work[slot] = prev
	}
	sp.cur[slot] = sp.epoch
	return &sp.work[slot]
}

// Carry ends the tick for slot, stepped again or affected: the span's
// state of it is the one the next tick starts from.
func (sp *Span) Carry(slot int) { sp.carried[slot] = true }

// Final returns slot's state after the last tick re-run, and whether the
// span carried one (else the slot ends as recorded).
func (sp *Span) Final(slot int) (game.PlayerState, bool) {
	return sp.work[slot], sp.carried[slot]
}

// Join adds slot to the affected set, taking its state, and reports
// whether it joined: not when it already belongs or is settled.
func (sp *Span) Join(slot int, moved []game.PlayerState) bool {
	if sp.in[slot] || sp.settled[slot] {
		return false
	}
	sp.Own(slot, moved)
	sp.in[slot] = true
	k := len(sp.list)
	sp.list = append(sp.list, slot)
	for k > 0 && sp.list[k-1] > slot {
		sp.list[k], k = sp.list[k-1], k-1
	}
	sp.list[k] = slot
	return true
}

// Affected reports whether slot is in the affected set.
func (sp *Span) Affected(slot int) bool { return sp.in[slot] }

// AffectedSlots returns the affected set, ascending.
func (sp *Span) AffectedSlots() []int { return sp.list }

// Deaths are the newest death announced in each slot: committed facts
// no re-simulation takes back. A player whose announced death lies
// within a re-simulation is settled for it (Span.Settle): its recorded
// health stands, and no re-judged shot newly hits it.
type Deaths[O comparable] struct {
	who  []O
	tick []uint32
}

// NewDeaths returns the deaths of slots slots, none announced.
func NewDeaths[O comparable](slots int) Deaths[O] {
	return Deaths[O]{who: make([]O, slots), tick: make([]uint32, slots)}
}

// Announce notes that o died in slot at tick t and was announced.
func (d *Deaths[O]) Announce(slot int, o O, t uint32) { d.who[slot], d.tick[slot] = o, t }

// Settles reports whether a re-simulation from tick from reaches back to
// the newest death announced in slot, o's (o is not the zero O): o is
// then settled for it.
func (d *Deaths[O]) Settles(slot int, o O, from uint32) bool {
	return d.who[slot] == o && d.tick[slot] >= from
}
