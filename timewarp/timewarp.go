// Package timewarp is lagkit's time warp ([timewarp]): when each command
// received late takes effect, the past a warp re-runs, and what a
// re-simulation of it may leave as recorded. Like delay it is sans-IO
// and owns no world: no socket, clock or goroutine, and none of the
// game's rules.
//
// What lives where. This package holds the technique: each command's
// effective tick (Schedule, Rules, Lead); the record of the past a warp
// may re-run (Ring: per tick, each slot's player, states and commands;
// InsertLate puts a late command into it, or postpones it when its tick
// is gone); a re-simulation's account of the players (Span: the late,
// the affected set, the settled, and each slot's state read in place
// from the record until the re-simulation changes it); the deaths
// already announced, which no re-simulation takes back (Deaths); the
// changes the host made to players between ticks, which every
// re-simulation applies again (Change, Edit, Diff); the boxes it prunes
// by (Reach, Path, Near); the counters (Stats); and the re-simulation
// that puts them to work (Warp): it schedules each player's commands,
// records the past, inserts late commands at their ticks and re-runs
// the ticks from the oldest of them to the present, choosing the players
// each tick steps again and the state each starts from, ending each
// tick (the host's facts, the game's changes applied again) and keeping
// the box around the affected players that pruning tests against.
//
// The host is the game whose past is re-run, behind a narrow interface
// (Host): its players, one player's step through a tick's commands,
// the resolution of a tick's shots and projectiles (settling what
// differs from its record), and its own change to a player at a tick's
// end. Warp, Ring and Deaths are generic in the host's handle of a
// player, and Warp and Ring in what the host records of a tick's shots,
// projectiles and damage, so that the host's types stay its own. lagkit's
// server is a host (server/timewarp_resim.go): it schedules each command
// through a Warp, records every live tick in the Ring, and resolves a
// re-run tick's shots by the same code as a live tick's, through the
// game's shot resolver (server.Config.Shots), given the re-run tick as
// the world to trace against; it exports nothing for time warp but its
// settings (Config.TimeWarp, Config.TimeWarpHitscanOnly), its counters
// (Server.TimeWarpStats) and Server.Resimulate, which measures a warp.
// A host's Resolve is where a re-simulation's cost lies; the server's
// avoids judging again what cannot have changed (pruning, below).
//
// Effective tick. Each command gets an effective tick E when it arrives:
// the tick it would run in without time warp (the next one), less the
// client's one-way latency in ticks, round(smoothed RTT / 2 / tick),
// measured by the server from acknowledgements. The server estimates E
// itself, so a client cannot claim older times by numbering its commands
// or stamping them. Commands are one tick each (their duration is clamped
// to the tick), executed in order: E is at least the previous command's
// E + 1. The one exception is catching up: when the estimate falls behind
// the previous command's tick (the measured RTT grew, or a burst arrived),
// a command may share that tick with it (at most CmdsPerTick a tick), as
// many times as the client has credit; credit is earned by ticks the
// client left without commands and capped at the server's MoveSlack, so,
// as with the movement budget of the ordinary server, no client moves
// further than elapsed time plus MoveSlack allows. A command whose E is
// still ahead waits for its tick. One whose E is the next tick runs as
// usual. One whose E has passed but lies within the window is inserted
// at E by a warp at the start of the next tick. One whose E is older than
// the window, than the client's joining or than the round's restart is
// applied at the next tick, as without time warp, and counted
// (Stats.TooOld): the past it needs is gone, and a command is never
// dropped for being late.
//
// Hitscan shots only (Rules.HitscanOnly). The time warp study warped its
// hitscan raygun's shots and nothing else ([timewarp], sections 4.1.2
// and 5.2). Under this rule every command runs when it arrives, as on an
// ordinary server, and each hitscan shot it fires is inserted at its
// command's effective tick (Schedule.Estimate) by a warp at the start of
// the next tick, fired from where its shooter stood and aimed when the
// command ran: the ray its client drew, judged against the world its
// client saw. A shot inserted so is a fact of its tick: a later warp that
// re-runs its shooter keeps it there and does not fire it again where
// its command ran.
//
// Pruning. Players do not collide, so a late command reaches the other
// players only through shots, projectiles and damage: a re-simulation
// re-judges a shot or projectile of a player it did not step again only
// where it may meet one it did. Reach is the box around those players'
// hitboxes, Path the box around a projectile's recorded segment; a ray,
// segment or blast clear of Reach stands as recorded. A Warp keeps Reach
// for the tick being re-run (Warp.NearAffected, Warp.Near), from the
// spheres the host bounds its players' hitboxes by (Host.Bound); see the
// server's timewarp_prune.go for how its re-simulation uses them.
package timewarp

import "time"

// Max bounds a server's time warp window.
const Max = time.Second

// CmdsPerTick is how many commands of one client a tick holds under time
// warp: one, or two while the client catches up.
const CmdsPerTick = 2

// Stats count what time warp did.
type Stats struct {
	// Late counts commands inserted in the past (under HitscanOnly,
	// hitscan shots), Warps the re-simulations they caused, Resimulated the ticks re-run, and MaxDepth the most
	// ticks one warp re-ran.
	Late, Warps, Resimulated, MaxDepth int
	// TooOld counts commands whose effective tick lay beyond the window,
	// applied at the next tick instead.
	TooOld int
	// Rejudged counts pellets and projectile contacts whose outcome a
	// re-simulation changed.
	Rejudged int
	// Stood counts the shots of a game's own resolver a re-simulation
	// let stand as recorded without handing them to the resolver again:
	// their shooter was not stepped again and no player whose body
	// their recorded rays could reach had changed.
	Stood int
	// Tested counts the players re-simulations tested a ray, a segment or
	// a blast against: their hit registration work, which a warp n ticks
	// deep over m players bounds by O(n x m).
	Tested int
	// Replayed counts the host's changes to players between ticks (a
	// game's damage and edits: Change) re-simulations applied again.
	Replayed int
}

// Rules are a server's time warp settings in ticks.
type Rules struct {
	// Window is how many ticks a command may be late and still be
	// inserted in the past.
	Window int
	// Slack is the most catch-up credit a client holds, in ticks.
	Slack int
	// HitscanOnly warps hitscan shots alone, as [timewarp] warped its
	// raygun and nothing else (sections 4.1.2 and 5.2): every command
	// runs when it arrives (its lead taken as 0: movement and projectile
	// weapons are not warped), and each hitscan shot it fires is judged
	// at the tick its command was issued (Schedule.Estimate), inserted
	// there by a warp at the start of the next tick, from where and with
	// the aim its shooter fired it.
	HitscanOnly bool
}

// NewRules returns the rules of a window of window at ticks of tick,
// with the server's movement slack moveSlack: the window rounded up to
// whole ticks, the slack rounded down (at least one tick).
func NewRules(window, tick, moveSlack time.Duration) Rules {
	return Rules{
		Window: int((window + tick - 1) / tick),
		Slack:  max(1, int(moveSlack/tick)),
	}
}

// Lead returns a client's one-way latency in ticks of tick, its smoothed
// round trip rtt halved and rounded: how far before its arrival a
// command is taken to have been issued.
func Lead(rtt, tick time.Duration) uint32 {
	return uint32((rtt/2 + tick/2) / tick)
}
