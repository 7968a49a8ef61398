package server

import (
	"fmt"
	"time"

	"github.com/lagkit/lagkit/delay"
	"github.com/lagkit/lagkit/game"
)

// Time delay. Package delay decides each client's added one-way delay,
// each command's hold and the measurements (see its doc for the rules);
// the server holds the commands in the client's queue until their release
// (see queued.execute) and the snapshots in a small queue per client.
//
// The movement budget is left as it is, so no delay lets a client move
// further than elapsed time plus MoveSlack. While a held command waits,
// the commands that continue it queue behind it and the budget banks up
// to MoveSlack; when it is released, the banked budget runs the queued
// ones in the same tick. So with D <= MoveSlack (the defaults: Max =
// MoveSlack = 100 ms, enough for a 200 ms round-trip gap) a held input is
// back on time at once, as the second input-delay rule asks, and the
// player's movement catches up by D in one tick; a larger D leaves the
// held stream D - MoveSlack late for as long as commands keep coming
// without a hold. Raise MoveSlack with Max to equalise larger gaps.
//
// Snapshots to client i wait in a small queue for its added delay
// (none under delay.Config.InputsOnly), rounded to whole ticks (the server sends only at ticks), and go out in
// the order they were built. The round-trip estimates keep measuring the
// network alone: the server takes a held snapshot's release as its send
// time, and the snapshot's echo hold includes its wait, so the client's
// estimate leaves it out too.
//
// Delay works with every lag compensation policy. The server's estimate
// of a client's view time subtracts its snapshot hold (see targetTime); a
// shot's command may also have waited up to D for its input hold, so the
// client's own view time lies within about D plus two ticks of the
// estimate and, while that is within ViewTimeTolerance (200 ms by
// default), is trusted: rewinding policies test shots against what the
// client saw.
//
// Delay and time warp are alternatives (time warp runs each command at
// its client's tick): a configuration with both is refused.

// checkDelay fills in the delay's defaults and checks it against the
// rest of the config.
func (c *Config) checkDelay() error {
	d, err := c.Delay.WithDefaults()
	if err != nil {
		return fmt.Errorf("server: config: %w", err)
	}
	if d.Mode != delay.None && c.TimeWarp > 0 {
		// Time warp runs each command at the tick its client issued it;
		// delay runs commands later on purpose. They are alternatives.
		return fmt.Errorf("server: config: delay mode %q and time warp cannot be combined", d.Mode)
	}
	c.Delay = d
	return nil
}

// clientHold is what the server holds of one client for its time delay.
type clientHold struct {
	// Per queued command, at its index in client.queue: when it arrived,
	// when it may run (0: at once), and whether it is a new input.
	arrive, release []time.Duration
	fresh           []bool

	held    []heldSnapshot // ring of snapshots waiting to go out
	head, n int
}

// heldSnapshot is an encoded snapshot waiting for its due tick.
type heldSnapshot struct {
	tick, due uint32
	data      []byte
}

// holdConnect sets up a new client's delay state. Under a delay mode the
// command queue grows by Max of commands, so holding inputs does not eat
// into the flooding allowance.
func (s *Server) holdConnect(c *client) {
	s.delay.Join(c.id)
	extra := s.delay.MaxTicks()
	h := &c.hold
	if extra > 0 {
		c.queue = make([]game.UserCmd, len(c.queue)+extra)
		h.held = make([]heldSnapshot, extra+2)
	}
	h.arrive = make([]time.Duration, len(c.queue))
	h.release = make([]time.Duration, len(c.queue))
	h.fresh = make([]bool, len(c.queue))
}

// updateDelay shows the players to the delay for the tick at now.
func (s *Server) updateDelay(now time.Duration) {
	for i, c := range s.clients {
		p := &s.delayView[i]
		*p = delay.Player{Present: c != nil}
		if c != nil {
			p.Latency, p.State = c.rtt.Smoothed()/2, c.state
		}
	}
	s.delay.Tick(now, s.delayView, s.areEnemies)
}

// enemySlots reports whether the players in slots i and j are enemies.
func (s *Server) enemySlots(i, j int) bool {
	a, b := s.clients[i], s.clients[j]
	return s.rules.Enemies(a.id, a.team, b.id, b.team)
}

// snapshotDue returns the tick the snapshot being built for c may go out
// at: its added delay rounded to whole ticks, and never before the
// snapshots already waiting.
func (s *Server) snapshotDue(c *client) uint32 {
	h := &c.hold
	due := s.tick + uint32((s.delay.SnapshotHold(c.id)+s.tickDur/2)/s.tickDur)
	if h.n > 0 {
		due = max(due, h.held[(h.head+h.n-1)%len(h.held)].due)
	}
	return due
}

// outputHold returns how long the snapshot being built for c will wait.
func (s *Server) outputHold(c *client) time.Duration {
	return time.Duration(s.snapshotDue(c)-s.tick) * s.tickDur
}

// emitSnapshot sends the snapshot just built for c, or holds it.
func (s *Server) emitSnapshot(c *client, out []byte) {
	h := &c.hold
	due := s.snapshotDue(c)
	if due == s.tick && h.n == 0 {
		s.queue(c.peer, out)
		return
	}
	if h.n == len(h.held) {
		// Cannot happen: a snapshot waits at most Max, and the ring has
		// room for a snapshot from every tick of that. Dropping it is the
		// safe answer if it ever does.
		c.sent[s.tick%snapRing] = false
		return
	}
	hs := &h.held[(h.head+h.n)%len(h.held)]
	hs.tick, hs.due, hs.data = s.tick, due, append(hs.data[:0], out...)
	h.n++
}

// releaseSnapshots sends c's held snapshots that are due, taking now as
// their send time for the round-trip estimate.
func (s *Server) releaseSnapshots(now time.Duration, c *client) {
	h := &c.hold
	for h.n > 0 {
		hs := &h.held[h.head]
		if hs.due > s.tick {
			return
		}
		s.queue(c.peer, hs.data)
		if c.snaps.Get(hs.tick) != nil {
			c.sentAt[hs.tick%snapRing] = now
		}
		h.head = (h.head + 1) % len(h.held)
		h.n--
	}
}
