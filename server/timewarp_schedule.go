package server

import (
	"math"
	"slices"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/timewarp"
)

// Time warp's scheduling: when a command runs. Each command gets its
// effective tick on arrival from its client's timewarp.Schedule
// (warpCommand); due ones run with the tick (warpExecute), late ones are
// inserted into the ring's past and start a re-simulation (warpLate).
// See package timewarp for the rules.

// warpScheduler runs commands under time warp: the server's scheduler
// when Config.TimeWarp is set.
type warpScheduler struct{ s *Server }

func (w warpScheduler) receive(_ time.Duration, c *client, cmd game.UserCmd) { w.s.warpCommand(c, cmd) }
func (w warpScheduler) begin()                                               { w.s.warpLate() }
func (w warpScheduler) execute(c *client)                                    { w.s.warpExecute(c) }
func (w warpScheduler) resolve(now time.Duration)                            { w.s.warpResolve(now) }
func (w warpScheduler) end()                                                 { w.s.warpRecord() }

// warpSlot is one slot's command schedule, and whose it is.
type warpSlot struct {
	owner *client
	timewarp.Schedule
}

// slot returns c's schedule, starting it afresh when c is new in the slot.
func (w *timeWarp) slot(s *Server, c *client) *warpSlot {
	sl := &w.slots[c.id]
	if sl.owner != c {
		// The client joined after the newest tick the ring has without
		// it, or before the ring's oldest.
		sl.owner = c
		sl.Start(w.ring.Before(c.id, c, s.tick), w.Slack)
	}
	return sl
}

// warpCommand schedules a command received from c under time warp (see
// package timewarp for its effective tick).
func (s *Server) warpCommand(c *client, cmd game.UserCmd) {
	w := s.warp
	sl := w.slot(s, c)
	if sl.Full() {
		c.cmdsDropped++
		s.stats.CmdsDropped.QueueFull++
		return // flooding: the queue is full
	}
	c.lastRecv = cmd.Tick
	cmd.Duration = min(max(cmd.Duration, 0), s.tickDur)
	var lead uint32 // hitscan only: every command runs when it arrives
	if !w.HitscanOnly {
		lead = timewarp.Lead(c.rtt.Smoothed(), s.tickDur)
	}
	if _, tooOld := sl.Add(cmd, s.tick+1, lead, w.floor, w.Rules); tooOld {
		w.stats.TooOld++
	}
}

// warpExecute runs c's commands due at the current tick and records them.
func (s *Server) warpExecute(c *client) {
	w := s.warp
	sl := &w.slots[c.id]
	if sl.owner != c {
		return
	}
	e, _ := w.entry(s.tick)
	for !e.Full(c.id) {
		wc, ok := sl.Pop(s.tick)
		if !ok {
			return
		}
		cmd := wc.Cmd
		noteExecuted(c, &cmd)
		e.Add(c.id, cmd)
		s.run(c, cmd)
	}
}

// warpLate runs at the start of every tick under time warp: it inserts
// the commands that arrived late at their ticks, re-simulates from the
// oldest of them to the present, and prepares the record of the tick
// about to run.
func (s *Server) warpLate() {
	w := s.warp
	from := uint32(math.MaxUint32)
	for _, c := range s.clients {
		if c == nil || w.slots[c.id].owner != c {
			continue
		}
		sl := &w.slots[c.id]
		for {
			cmd, t, ok := w.ring.InsertLate(&sl.Schedule, &w.span, &w.stats, c.id, c, s.tick, w.floor)
			if !ok {
				break
			}
			noteExecuted(c, &cmd)
			from = min(from, t)
		}
	}
	from = min(from, s.insertShots())
	if from <= s.tick {
		s.resimulate(from)
	}
	w.prepare(s)
}

// deferShot takes hitscan shot ps of c, fired in the tick being run, to
// be judged at its command's issue tick under timewarp.Rules.HitscanOnly,
// and reports whether it did: not when time warp warps whole commands,
// the weapon fires projectiles, or the issue tick is this tick or too old
// (the shot is then judged now, as on an ordinary server).
func (s *Server) deferShot(c *client, ps *pendingShot) bool {
	w := s.warp
	if w == nil || !w.HitscanOnly || s.cfg.Weapons[ps.state.Weapon].Kind == game.Projectile {
		return false
	}
	sl := &w.slots[c.id]
	if sl.owner != c {
		return false
	}
	e, tooOld := sl.Estimate(s.tick, timewarp.Lead(c.rtt.Smoothed(), s.tickDur), w.floor, w.Rules)
	if tooOld || e >= s.tick {
		return false
	}
	rec, _ := w.entry(s.tick)
	rec.Defer(c.id, ps.cmd.Tick)
	if ps.cmd.HasPress {
		c.pressShots++
	}
	w.shotsLate = append(w.shotsLate, lateShot{pendingShot: *ps, e: e})
	return true
}

// insertShots inserts the hitscan shots deferred in the last tick at
// their issue ticks, in firing order, and returns the oldest of those
// ticks (MaxUint32: none). A shot whose shooter left, or whose tick the
// round restarted after, is void, as a shot of a player who left is.
func (s *Server) insertShots() uint32 {
	w := s.warp
	from := uint32(math.MaxUint32)
	for i := range w.shotsLate {
		ls := &w.shotsLate[i]
		c := s.clients[ls.shooter]
		e, ok := w.entry(ls.e)
		if c == nil || !ok || e.Owner[c.id] != c || ls.e <= w.floor {
			continue
		}
		sh := warpShot{pendingShot: ls.pendingShot, deferred: true}
		k := len(e.Lists.shots)
		for k > 0 && before(&sh, &e.Lists.shots[k-1]) {
			k--
		}
		e.Lists.shots = slices.Insert(e.Lists.shots, k, sh)
		from = min(from, ls.e)
		w.stats.Late++
	}
	w.shotsLate = w.shotsLate[:0]
	return from
}
