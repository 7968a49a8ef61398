package delay

import (
	"time"

	"github.com/lagkit/lagkit/game"
)

// Inputs applies the input-delay rules to one player's commands, in the
// order they arrive. The zero value has seen no command.
type Inputs struct {
	last    game.UserCmd // the previous command received
	lastNew time.Duration
	hasNew  bool
}

// Arrive returns the hold of cmd, received at now while the player's
// added delay is added, and whether cmd is a new input.
func (in *Inputs) Arrive(now, added time.Duration, cmd *game.UserCmd) (hold time.Duration, fresh bool) {
	fresh = NewInput(&in.last, cmd)
	in.last = *cmd
	if !fresh {
		return 0, false // rule 2: a held input continues without a hold of its own
	}
	hold = added // rule 1: the full delay after an idle gap
	if in.hasNew {
		hold = min(hold, now-in.lastNew) // rule 3: only the time since the previous press
	}
	in.lastNew, in.hasNew = now, true
	return hold, true
}

// NewInput reports whether cmd is a new input after prev: a button
// pressed or released, a weapon switch, or a movement key pressed or
// released. Move intents compare by direction (the sign of each axis: the
// keys a keyboard player holds, as in the study's game), so an analogue
// stick's drift or a bot's steering is no new press; aim alone never is.
func NewInput(prev, cmd *game.UserCmd) bool {
	sign := func(v int8) int8 { return max(-1, min(1, v)) }
	return cmd.Buttons != prev.Buttons || cmd.Weapon != prev.Weapon ||
		sign(cmd.Forward) != sign(prev.Forward) || sign(cmd.Side) != sign(prev.Side) || sign(cmd.Up) != sign(prev.Up)
}
