package timewarp

import (
	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
)

// Host is what a Warp needs of the game whose past it re-runs: its
// players, one player's step through a tick's commands, the resolution
// of a tick's shots and projectiles, and the host's own changes to a
// player at a tick's end. P is the host's handle of a player (the zero P
// for nobody) and L what the host records of a tick's shots,
// projectiles and damage (Tick.Lists). A Warp calls it on the host's
// goroutine only, from its own methods.
type Host[P comparable, L any] interface {
	// Player returns who plays in slot now and its live state (the
	// zero P and nil: nobody), which the Warp sets at a
	// re-simulation's end.
	Player(slot int) (P, *game.PlayerState)
	// Bound returns the sphere that holds the hitboxes of a player in
	// state st: what pruning tests rays and blasts against.
	Bound(st *game.PlayerState) (centre geom.Vec3, radius float64)

	// BeginWarp starts a re-simulation (Run), before its first tick.
	BeginWarp()
	// BeginTick starts the re-run of tick t, whose record is e.
	BeginTick(t uint32, e *Tick[P, L])
	// Step runs the commands cmds that slot ran in the tick being
	// re-run on its state st at the tick's start, as the live tick ran
	// them (keeping what they fire for Resolve), and returns its state
	// after them. The Warp calls it for the slots it steps (Steps), in
	// ascending order.
	Step(slot int, st game.PlayerState, cmds []game.UserCmd) game.PlayerState
	// Resolve resolves the tick's shots and projectiles, once its
	// players are stepped, and settles what differs from the record;
	// a player whose damage it changes joins the affected set (Join).
	Resolve()
	// EndPlayer applies the host's own change at the tick's end to the
	// re-simulated state st of slot, stepped again or affected (the end
	// of spawn protection), before the game's recorded changes are
	// applied again.
	EndPlayer(slot int, st *game.PlayerState)
	// Killed processes the death of slot's player that a change applied
	// again (Change.Apply) now deals, by by, as a re-simulated hit's.
	Killed(slot, by int)
	// EndTick ends the tick re-run, once every player's state after it
	// is recorded.
	EndTick()
	// EndWarp ends the re-simulation, after its last tick and once the
	// players' states are set.
	EndWarp()
}

// Warp is time warp's re-simulation, generic in the host's handle of a
// player P and its record of a tick L: it schedules each player's
// commands (Receive, Next), keeps the past in a Ring (Prepare, Change,
// Restart), inserts the commands that arrived late at their ticks
// (InsertLate) and re-runs the ticks from the oldest of them to the
// present (Run): which players each tick steps again and from which
// state, which it reads in place from the record, which deaths stand,
// the changes the host made between ticks applied again, and the box
// around the affected players that pruning tests against. The host
// (Host) steps a player, resolves a tick's shots and projectiles and
// settles their outcome. Like the rest of the package it is sans-IO.
type Warp[P comparable, L any] struct {
	Rules
	// Ring is the past a warp may re-run, Span a re-simulation's
	// account of the players, Deaths the deaths announced and Stats the
	// counters; the host reads and adds to them as it resolves a tick.
	Ring   *Ring[P, L]
	Span   *Span
	Deaths Deaths[P]
	Stats  Stats
	// Exhaustive turns pruning off: Near and the box tests answer that
	// everything may meet, so that every shot and projectile is judged
	// one by one, as tests compare.
	Exhaustive bool

	// Died, if set, is the game's death rule, run on a player a
	// re-applied change leaves dead silently (Change.Apply).
	Died func(slot int, st *game.PlayerState)

	host   Host[P, L]
	layout *game.Layout // the game's declared state, which changes edit
	slots  []slot[P]
	// floor is the newest tick no warp may re-run: the host restarted
	// the round after it (Restart).
	floor   uint32
	steps   []int  // the slots stepped in the tick being re-run, ascending
	stepped []bool // per slot: stepped again in the tick being re-run
	outside []bool // per slot: set by the host since the last tick
	reach   Reach
	cands   []int
	t       uint32      // the tick being re-run
	e       *Tick[P, L] // its record
}

// slot is one slot's command schedule, and whose it is.
type slot[P comparable] struct {
	owner P
	Schedule
}

// NewWarp returns the time warp of host over slots slots by rules, each
// slot's command queue holding queue commands; layout is the game's
// declared state (nil: none), whose fields edits change (Change).
func NewWarp[P comparable, L any](host Host[P, L], rules Rules, slots, queue int, layout *game.Layout) *Warp[P, L] {
	w := &Warp[P, L]{
		Rules: rules, host: host, layout: layout,
		Ring:    NewRing[P, L](rules.Window, slots),
		Span:    NewSpan(slots),
		Deaths:  NewDeaths[P](slots),
		slots:   make([]slot[P], slots),
		stepped: make([]bool, slots),
		outside: make([]bool, slots),
		cands:   make([]int, 0, slots),
	}
	for i := range w.slots {
		w.slots[i].Schedule = NewSchedule(queue)
	}
	return w
}

// Floor returns the newest tick no warp may re-run (Restart).
func (w *Warp[P, L]) Floor() uint32 { return w.floor }

// Restart makes tick t, the last run before the host restarted the
// round, the limit of the past: no warp re-runs it or a tick before it.
func (w *Warp[P, L]) Restart(t uint32) { w.floor = t }

// schedule returns the schedule of p in slot, starting it afresh when p
// is new in the slot; now is the newest tick run.
func (w *Warp[P, L]) schedule(slot int, p P, now uint32) *Schedule {
	sl := &w.slots[slot]
	if sl.owner != p {
		// The player joined after the newest tick the ring has without
		// it, or before the ring's oldest.
		sl.owner = p
		sl.Start(w.Ring.Before(slot, p, now), w.Slack)
	}
	return &sl.Schedule
}

// Schedule returns the schedule of p in slot (see Schedule), nil when p
// sent no command yet.
func (w *Warp[P, L]) Schedule(slot int, p P) *Schedule {
	if sl := &w.slots[slot]; sl.owner == p {
		return &sl.Schedule
	}
	return nil
}

// Receive schedules command cmd of p in slot, received while now is the
// newest tick run, from a client lead ticks away (Lead; see the package
// doc for its effective tick), and reports whether it did: not when the
// slot's queue is full (the client floods).
func (w *Warp[P, L]) Receive(slot int, p P, cmd game.UserCmd, now, lead uint32) bool {
	sc := w.schedule(slot, p, now)
	if sc.Full() {
		return false
	}
	if _, tooOld := sc.Add(cmd, now+1, lead, w.floor, w.Rules); tooOld {
		w.Stats.TooOld++
	}
	return true
}

// Next returns the next command of p in slot due at tick t, the tick
// being run, and records it as run there; false when none is due or the
// tick holds CmdsPerTick of the slot's already.
func (w *Warp[P, L]) Next(slot int, p P, t uint32) (game.UserCmd, bool) {
	sl := &w.slots[slot]
	if sl.owner != p {
		return game.UserCmd{}, false
	}
	e, _ := w.Ring.Entry(t)
	if e.Full(slot) {
		return game.UserCmd{}, false
	}
	pc, ok := sl.Pop(t)
	if !ok {
		return game.UserCmd{}, false
	}
	e.Add(slot, pc.Cmd)
	return pc.Cmd, true
}

// InsertLate inserts the oldest command of p in slot whose effective
// tick has run (now is the newest tick run) at that tick's record, for
// the next Run to re-run from there, and returns it and its tick; false
// when none is due (see Ring.InsertLate).
func (w *Warp[P, L]) InsertLate(slot int, p P, now uint32) (game.UserCmd, uint32, bool) {
	sl := &w.slots[slot]
	if sl.owner != p {
		return game.UserCmd{}, 0, false
	}
	return w.Ring.InsertLate(&sl.Schedule, w.Span, &w.Stats, slot, p, now, w.floor)
}

// Prepare starts the record of tick t, about to run: who plays in each
// slot and, for those whose state the host set since the tick before (a
// join, a placement), that state as a fact. The host resets its lists.
func (w *Warp[P, L]) Prepare(t uint32) *Tick[P, L] {
	prev, _ := w.Ring.Entry(t - 1)
	e := w.Ring.Begin(t)
	var none P
	for i := range e.Owner {
		p, st := w.host.Player(i)
		e.Owner[i] = p
		e.FixedEnd[i] = false
		e.FixedStart[i] = p != none && (prev.Owner[i] != p || prev.State[i] != *st)
		if p != none {
			e.Start[i] = *st
		}
	}
	return e
}

// Change records ch, a change the host made to p in slot between ticks
// (Damage, Edit), now applied and leaving it in state st, as a fact of
// tick t just run: the record's state of p after the tick becomes st, so
// that the next tick starts from it as from any tick's end (not as a
// state the host set, which a re-simulation would take as it is), and
// every re-simulation that re-runs p through the tick applies the change
// again. A death it dealt is announced: a committed fact. It reports
// whether it recorded the change: not when the ring no longer holds the
// tick, p did not play it, or the round restarted after it.
func (w *Warp[P, L]) Change(slot int, p P, t uint32, ch Change, st game.PlayerState) bool {
	e, ok := w.Ring.Entry(t)
	if !ok || e.Owner[slot] != p || t <= w.floor {
		return false
	}
	ch.Slot = slot
	e.Change(ch)
	e.State[slot] = st
	if ch.Killed {
		w.Deaths.Announce(slot, p, t)
	}
	return true
}

// Resimulate re-runs the last ticks ticks up to now as a warp for a late
// command of p in slot at the first of them does, with the commands the
// ring holds, and returns how many ticks it re-ran: at most the window,
// none before the round's restart, and none when p did not play the
// first of them. As the inputs are those the ticks ran with, it ends in
// the state it started from: it measures what a warp of that depth
// costs and checks that re-simulation reproduces the record.
func (w *Warp[P, L]) Resimulate(slot int, p P, now uint32, ticks int) int {
	ticks = min(ticks, w.Window, int(now-w.floor))
	if ticks <= 0 {
		return 0
	}
	from := now + 1 - uint32(ticks)
	if e, ok := w.Ring.Entry(from); !ok || e.Owner[slot] != p {
		return 0
	}
	w.Span.Late(slot, from)
	w.Run(from, now)
	return ticks
}

// Run re-runs ticks from to now, the newest tick run: the affected set
// starts with the slots a late command was inserted for (InsertLate)
// from their commands' ticks. Each tick steps the affected and late
// players again from their states after the tick before (or the state
// the host set at its start), with the commands it recorded (Host.Step);
// the others are read in place from the record. The host resolves the
// tick (Host.Resolve); then each player re-run ends it (a state the host
// set after it stands; else Host.EndPlayer and the game's recorded
// changes, Change.Apply) and its state is recorded. A player whose
// announced death lies within the span is settled (Deaths). At the end
// the players re-run take their re-simulated states, but for a state
// the host set since the last tick, which stands on top of the
// re-simulated past.
func (w *Warp[P, L]) Run(from, now uint32) {
	last, _ := w.Ring.Entry(now)
	w.Span.Begin()
	var none P
	for i := range w.outside {
		p, st := w.host.Player(i)
		w.outside[i] = p != none && (last.Owner[i] != p || last.State[i] != *st)
		if p != none && w.Deaths.Settles(i, p, from) {
			w.Span.Settle(i)
		}
	}
	w.host.BeginWarp()
	for t := from; t <= now; t++ {
		e, _ := w.Ring.Entry(t)
		w.t, w.e = t, e
		w.Span.Tick()
		w.host.BeginTick(t, e)
		w.move()
		w.host.Resolve()
		w.finish()
		w.host.EndTick()
	}
	w.e = nil
	for _, list := range [2][]int{w.Span.AffectedSlots(), w.Span.LateSlots()} {
		for _, i := range list {
			if p, st := w.host.Player(i); p != none && !w.outside[i] {
				if fin, ok := w.Span.Final(i); ok {
					*st = fin
				}
			}
		}
	}
	w.Span.End()
	w.host.EndWarp()
	depth := int(now - from + 1)
	w.Stats.Warps++
	w.Stats.Resimulated += depth
	w.Stats.MaxDepth = max(w.Stats.MaxDepth, depth)
}

// Steps returns the slots stepped again in the tick being re-run,
// ascending.
func (w *Warp[P, L]) Steps() []int { return w.steps }

// Stepped reports whether slot is stepped again in the tick being
// re-run.
func (w *Warp[P, L]) Stepped(slot int) bool { return w.stepped[slot] }

// State returns slot's state at this point of the tick being re-run.
func (w *Warp[P, L]) State(slot int) *game.PlayerState { return w.Span.State(slot, w.e.Moved) }

// Own returns slot's state at this point of the tick being re-run, to
// change.
func (w *Warp[P, L]) Own(slot int) *game.PlayerState { return w.Span.Own(slot, w.e.Moved) }

// Join adds slot to the affected set from this point of the tick being
// re-run on, its hitboxes to the box pruning tests against.
func (w *Warp[P, L]) Join(slot int) {
	if w.Span.Join(slot, w.e.Moved) {
		w.reachAdd(slot)
	}
}

// move steps the tick's late and affected players again (Host.Step).
func (w *Warp[P, L]) move() {
	e, sp := w.e, w.Span
	var none P
	for _, i := range sp.LateSlots() {
		if e.Owner[i] != none && sp.LateFrom(i) <= w.t {
			sp.Join(i, e.Moved) // reach is made once they are stepped
		}
	}
	// The slots stepped: the affected and the late, merged in order.
	w.steps = w.steps[:0]
	a, l := sp.AffectedSlots(), sp.LateSlots()
	for len(a) > 0 || len(l) > 0 {
		var i int
		switch {
		case len(l) == 0 || len(a) > 0 && a[0] < l[0]:
			i, a = a[0], a[1:]
		case len(a) == 0 || l[0] < a[0]:
			i, l = l[0], l[1:]
		default:
			i, a, l = a[0], a[1:], l[1:]
		}
		if e.Owner[i] != none && (sp.Affected(i) || sp.LateFrom(i) <= w.t) {
			w.steps = append(w.steps, i)
		}
	}
	prev, _ := w.Ring.Entry(w.t - 1)
	for _, i := range w.steps {
		w.stepped[i] = true
		cur := sp.Step(i, prev.State[i])
		if e.FixedStart[i] {
			*cur = e.Start[i]
		}
		*cur = w.host.Step(i, *cur, e.Cmds(i))
		e.Moved[i] = *cur
	}
	w.reach.Clear()
	for _, i := range sp.AffectedSlots() {
		w.reachAdd(i)
	}
}

// finish ends the tick for the players re-run; the others end it as
// recorded.
func (w *Warp[P, L]) finish() {
	for _, i := range w.Span.AffectedSlots() {
		w.end(i)
	}
	for _, i := range w.steps {
		if !w.Span.Affected(i) {
			w.end(i)
		}
		w.stepped[i] = false
	}
}

// end ends the tick for slot i, stepped again or affected.
func (w *Warp[P, L]) end(i int) {
	e := w.e
	var none P
	if e.Owner[i] == none {
		return
	}
	if st := w.Own(i); e.FixedEnd[i] {
		// The host's state stands, and the changes the game made after
		// the tick with it.
		*st = e.State[i]
	} else {
		w.host.EndPlayer(i, st)
		w.changes(i)
	}
	e.State[i] = *w.Own(i)
	w.Span.Carry(i)
}

// changes applies again the changes the game made to slot i after the
// tick (Damage, Edit), in the order made, to its re-simulated state, by
// Change.Apply's rules; a kill the damage now deals is the host's to
// process (Host.Killed), and one it dealt when made stands (its victim
// is settled: Deaths).
func (w *Warp[P, L]) changes(i int) {
	for k := range w.e.Changes {
		ch := &w.e.Changes[k]
		if ch.Slot != i {
			continue
		}
		w.Stats.Replayed++
		kills, died := ch.Apply(w.Own(i), w.layout, w.Span.Settled(i))
		if kills {
			w.host.Killed(i, ch.By)
		}
		if died && w.Died != nil {
			w.Died(i, w.Own(i))
		}
	}
}

// reachAdd grows the box pruning tests against to hold slot i's
// hitboxes.
func (w *Warp[P, L]) reachAdd(i int) {
	var none P
	if w.e.Owner[i] == none {
		return // neither traced nor hurt
	}
	c, r := w.host.Bound(w.State(i))
	w.reach.Add(c, r)
}

// NearAffected reports whether ray, up to maxDist, may meet an affected
// player: if not, tracing it against them finds nothing. A ray that is
// not finite is always near.
func (w *Warp[P, L]) NearAffected(ray geom.Ray, maxDist float64) bool {
	return w.Exhaustive || w.reach.MeetsRay(ray, maxDist)
}

// BlastNearAffected reports whether a blast of radius at centre may
// reach an affected player.
func (w *Warp[P, L]) BlastNearAffected(centre geom.Vec3, radius float64) bool {
	return w.Exhaustive || w.reach.BlastNear(centre, radius)
}

// PathNearAffected reports whether path p may meet an affected player.
func (w *Warp[P, L]) PathNearAffected(p *Path) bool { return w.Exhaustive || w.reach.meets(p) }

// Near returns the slots, ascending, whose hitboxes ray may meet within
// maxDist in the tick being re-run: those whose bound (Host.Bound) comes
// within reach of the segment. It returns nil, everyone, when pruning
// is off or the ray is not finite.
func (w *Warp[P, L]) Near(ray geom.Ray, maxDist float64) []int {
	if w.Exhaustive || !Finite(ray, maxDist) {
		return nil
	}
	ids := w.cands[:0]
	var none P
	for i, owner := range w.e.Owner {
		if owner == none {
			continue
		}
		if c, r := w.host.Bound(w.State(i)); Near(ray, maxDist, c, r) {
			ids = append(ids, i)
		}
	}
	w.cands = ids
	return ids
}
