package server

import (
	"time"

	"github.com/lagkit/lagkit/game"
)

// scheduler decides when a received command runs: as soon as the
// movement budget allows, or after the hold time delay gives it (queued),
// or at the tick its client issued it, inserted into the past when it
// arrives late (time warp). It is the server's one seam for the
// techniques that move commands in time; the rest of a tick is the same
// under every one. Each technique lives in its own package, as sans-IO
// as the server: package delay decides each command's hold (queued
// applies it); package timewarp decides each command's effective tick
// and holds the past a warp re-runs (timewarp.Ring) and a
// re-simulation's account of the players (timewarp.Span), and
// warpScheduler is the server's side of it: it records each live tick
// in the ring and re-runs the server's own tick over it, with the same
// rules and the same pellet resolver as a live tick (timewarp*.go). The
// re-simulation stays in the server because it is the server's tick run
// against another world; see package timewarp for the split.
type scheduler interface {
	// receive takes command cmd of c, received at now and newer than any
	// received before.
	receive(now time.Duration, c *client, cmd game.UserCmd)
	// begin runs at the start of a tick, before any command.
	begin()
	// execute runs c's commands due in the tick, collecting their shots.
	execute(c *client)
	// resolve flies the projectiles and settles the shots of the tick,
	// whose time is now, once every player's pose is recorded.
	resolve(now time.Duration)
	// end runs when the tick's state is final.
	end()
}

// queued is the ordinary scheduler: each client's commands run in
// sequence order as they arrive (as Source does), each consuming its
// duration from the client's movement budget, a command held by time
// delay not before its release.
type queued struct{ s *Server }

func (q queued) receive(now time.Duration, c *client, cmd game.UserCmd) {
	if c.qN == len(c.queue) {
		c.cmdsDropped++
		q.s.stats.CmdsDropped.QueueFull++
		return // flooding: the queue is full
	}
	i := (c.qHead + c.qN) % len(c.queue)
	c.queue[i] = cmd
	h := &c.hold
	h.arrive[i] = now
	h.release[i], h.fresh[i] = q.s.delay.Arrive(c.id, now, &c.queue[i])
	c.qN++
	c.lastRecv = cmd.Tick
}

func (queued) begin() {}

// execute runs the client's queued commands that its movement budget and
// their holds allow.
func (q queued) execute(c *client) {
	s := q.s
	c.budget = min(c.budget+s.tickDur, s.cfg.MoveSlack)
	for c.qN > 0 {
		i := c.qHead
		if c.hold.release[i] > s.Time() {
			return
		}
		cmd := c.queue[i]
		cmd.Duration = min(cmd.Duration, s.cfg.MoveSlack)
		if cmd.Duration > c.budget {
			return
		}
		c.budget -= cmd.Duration
		if c.hold.fresh[i] {
			s.delay.Executed(c.id, s.Time()-c.hold.arrive[i])
		}
		c.qHead = (c.qHead + 1) % len(c.queue)
		c.qN--
		noteExecuted(c, &cmd)
		s.run(c, cmd)
	}
}

func (q queued) resolve(now time.Duration) {
	q.s.moveProjectiles(now)
	q.s.resolveShots(now)
}

func (queued) end() {}

// noteExecuted keeps c's command bookkeeping for a command it executes.
func noteExecuted(c *client, cmd *game.UserCmd) {
	if c.lastExec != 0 && cmd.Tick > c.lastExec+1 {
		c.cmdsLost += int(cmd.Tick - c.lastExec - 1)
	}
	c.lastExec = cmd.Tick
}
