package timewarp

import (
	"github.com/lagkit/lagkit/game"
)

// Changes the host makes to a player between ticks. A game hurts and
// edits its players outside their step (a server's Damage and Edit,
// called between ticks): such a change is a fact of the present, which
// no re-simulation may lose, yet the player's state it lands on may be
// re-simulated (the player's own late command moves it, a late shot
// hurts it). A warp therefore neither keeps the state as it was after
// the change (that would undo the late command's effect on the player)
// nor re-runs the host's code (a game's closure, its counters and events
// are not re-runnable): the host records each change as a Change in the
// record of the tick it was made after (Tick.Change), and every
// re-simulation that re-runs the player through that tick applies it
// again, in order, to the re-simulated state at the end of the tick:
// damage as the health it took, an edit as the fields it wrote. So the
// time warp study's engine kept, beside its past states, every input
// and step event since them, and handled them all again after
// inserting the late one ([timewarp], section 3.2.2).

// Change is one change the host made to the player in Slot between
// ticks: damage (Damage > 0, dealt by By; Killed: it killed when it was
// dealt) or an edit (Edit).
type Change struct {
	Slot   int
	Damage int16
	By     int
	Killed bool
	Edit   Edit
}

// Edit is what an edit of a player's state wrote: the fields it changed
// and the values it gave them. Applied to another state of the player (a
// re-simulated one) it writes those fields and leaves the rest: the
// edit's grant of loot or shield stands on the re-simulated position,
// health and ammunition. lagkit's fields count as one each (a flag bit
// as one), the declared state's as its Layout's fields.
type Edit struct {
	fields editFields
	flags  game.StateFlags // the flag bits written
	game   uint64          // the declared fields written, bit i for field i
	to     game.PlayerState
}

// editFields marks lagkit's fields of game.PlayerState an edit wrote.
type editFields uint8

const (
	fPos editFields = 1 << iota
	fVel
	fYaw
	fPitch
	fTeleport
	fHealth
)

// Diff returns the edit that turned before into after, a player's states
// around a change made between ticks; l is the declared state's layout
// (nil: none). A declared state has at most game.StateSize fields (each
// takes a byte at least), so a bit each fits.
func Diff(before, after *game.PlayerState, l *game.Layout) Edit {
	e := Edit{to: *after, flags: before.Flags ^ after.Flags}
	mark := func(f editFields, changed bool) {
		if changed {
			e.fields |= f
		}
	}
	mark(fPos, before.Pos != after.Pos)
	mark(fVel, before.Vel != after.Vel)
	mark(fYaw, before.Yaw != after.Yaw)
	mark(fPitch, before.Pitch != after.Pitch)
	mark(fTeleport, before.Teleport != after.Teleport)
	mark(fHealth, before.Health != after.Health)
	for i := range l.Fields() {
		if !l.Same(&before.Game, &after.Game, i) {
			e.game |= 1 << uint(i)
		}
	}
	return e
}

// Empty reports whether the edit wrote nothing.
func (e *Edit) Empty() bool { return e.fields == 0 && e.flags == 0 && e.game == 0 }

// Apply writes the edit's fields into st; l is the layout Diff was given.
func (e *Edit) Apply(st *game.PlayerState, l *game.Layout) {
	to := &e.to
	if e.fields&fPos != 0 {
		st.Pos = to.Pos
	}
	if e.fields&fVel != 0 {
		st.Vel = to.Vel
	}
	if e.fields&fYaw != 0 {
		st.Yaw = to.Yaw
	}
	if e.fields&fPitch != 0 {
		st.Pitch = to.Pitch
	}
	if e.fields&fTeleport != 0 {
		st.Teleport = to.Teleport
	}
	if e.fields&fHealth != 0 {
		st.Health = to.Health
	}
	st.Flags = st.Flags&^e.flags | to.Flags&e.flags
	if e.game != 0 {
		for i := range l.Fields() {
			if e.game&(1<<uint(i)) != 0 {
				l.SetUnits(&st.Game, i, l.Units(&to.Game, i))
			}
		}
	}
}

// Apply applies c again to st, its player's re-simulated state at the
// end of the tick c was made after; l is the declared state's layout
// (Diff's), and settled whether the player's announced death lies
// within the re-simulation (Deaths). An edit writes the fields it wrote.
// Damage takes its health as the host's damage did, from a player alive
// and not spawn protected, never below none; on a settled player a
// kill it dealt when made is dealt again, and any kill is silent (the
// player dead, at no health; died reports it, and the game's death rule
// is then the caller's to run). kills reports whether the damage now
// brings a player who is not settled to no health: a kill the
// re-simulation finds anew, which the host processes as one (its
// death, score and announcement), the player's flags left to it.
func (c *Change) Apply(st *game.PlayerState, l *game.Layout, settled bool) (kills, died bool) {
	switch {
	case c.Damage == 0:
		c.Edit.Apply(st, l)
		return false, false
	case settled && c.Killed:
		die(st)
		return false, true
	case st.Has(game.FlagDead) || st.Has(game.FlagProtected):
		return false, false
	}
	st.Health -= min(c.Damage, max(st.Health, 0))
	switch {
	case st.Health > 0:
		return false, false
	case settled:
		die(st)
		return false, true
	}
	return true, false
}

// die marks st dead, as a kill does.
func die(st *game.PlayerState) {
	st.Health = 0
	st.Flags |= game.FlagDead
}

// Change records c, made by the host after the tick (between it and the
// next), in the tick's record: every re-simulation that re-runs c's
// player through the tick applies it again (see Change).
func (e *Tick[O, L]) Change(c Change) { e.Changes = append(e.Changes, c) }
