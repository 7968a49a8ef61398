package game

import (
	"time"

	"github.com/lagkit/lagkit/geom"
)

// StepFunc is a game's movement and firing rule: it advances player s
// by one command in context ctx and reports whether the command fired a
// shot. The server and every client of a match must run the same one:
// the server steps each player with it live and when time warp re-runs
// a tick, the owner's client predicts with it, and bots play through
// clients. It must be deterministic (a function of its arguments alone)
// or prediction disagrees with the server. DefaultStep, lagkit's own
// Step, is every core's default; a game with movement of its own (a
// dash, a vehicle) wraps it (ctx.Step) or replaces it, and keeps state
// of its own in PlayerState.Game (Declare). ctx is the caller's and
// read-only; do not keep it.
type StepFunc func(s PlayerState, cmd UserCmd, ctx *StepCtx) (PlayerState, bool)

// StepCtx is what a step reads beside the player and its command: the
// match's rules and where the command runs. Each of its fields is the
// same on the server, live and when time warp re-runs the command, and
// in the owner's prediction, so a step that reads them predicts exactly.
type StepCtx struct {
	// Grid is the map's collision grid and Params the movement rules.
	Grid   *geom.Grid
	Params *Params
	// Slot is the player's slot and Team its team (0 in free-for-all),
	// as the server last told the client (a team change reaches the
	// owner's prediction a round trip late, and is corrected then).
	Slot, Team int
	// Tick is the command's number (UserCmd.Tick), and Time the time
	// on the player's command clock at the command's end: Tick whole
	// ticks (TickDuration of the tick rate). Unlike server time, both
	// are known exactly to the owner when it predicts; a cooldown
	// counted down by cmd.Duration, kept in the declared state, needs
	// neither.
	Tick uint32
	Time time.Duration
	// View is what the step sees of the match beyond its own player:
	// the game's entities and its match state (see MatchView), nil
	// when its caller has none. Read only.
	View *MatchView
}

// Step runs lagkit's movement (Step) on s in this context: a game's
// StepFunc that adds to lagkit's movement starts with it. It never
// fires.
func (ctx *StepCtx) Step(s PlayerState, cmd UserCmd) (PlayerState, bool) {
	return Step(s, cmd, ctx.Grid, ctx.Params), false
}

// DefaultStep is every core's StepFunc unless the game sets its own:
// lagkit's movement (Step) in the context's world, firing nothing.
// lagkit's shooter steps with its weapons too (weapon.StepFunc).
func DefaultStep(s PlayerState, cmd UserCmd, ctx *StepCtx) (PlayerState, bool) {
	return Step(s, cmd, ctx.Grid, ctx.Params), false
}

// MaxHealth is a player's health at spawn.
const MaxHealth = 100

// Step advances player s by one command of lagkit's movement (Move): a
// dead player keeps falling but does not move by its own will. It is
// the one function the server and the owner's client both run.
func Step(s PlayerState, cmd UserCmd, g *geom.Grid, p *Params) PlayerState {
	StepIn(&s, cmd, g, p)
	return s
}

// StepIn is Step on the state s points to, in place: for a step that
// adds to lagkit's movement without copying the state (weapon.Step).
func StepIn(s *PlayerState, cmd UserCmd, g *geom.Grid, p *Params) {
	// Flags are tested directly: s.Has would copy the whole state, and a
	// copy of a struct just stored field by field stalls (see Move).
	if s.Flags&FlagDead != 0 {
		cmd.Forward, cmd.Side, cmd.Up, cmd.Buttons = 0, 0, 0, 0
	}
	*s = move(s, &cmd, g, p)
}
