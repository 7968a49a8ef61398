package server

import (
	"math"
	"slices"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/timewarp"
)

// Time warp's scheduling: when a command runs, by package timewarp's
// rules (timewarp.Warp). Each command gets its effective tick on arrival
// (warpCommand); due ones run with the tick (warpExecute), late ones are
// inserted into the ring's past and start a re-simulation (warpLate).

// warpScheduler runs commands under time warp: the server's scheduler
// when Config.TimeWarp is set.
type warpScheduler struct{ s *Server }

func (w warpScheduler) receive(_ time.Duration, c *client, cmd game.UserCmd) { w.s.warpCommand(c, cmd) }
func (w warpScheduler) begin()                                               { w.s.warpLate() }
func (w warpScheduler) execute(c *client)                                    { w.s.warpExecute(c) }
func (w warpScheduler) resolve(now time.Duration)                            { w.s.warpResolve(now) }
func (w warpScheduler) end()                                                 { w.s.warpRecord() }

// warpCommand schedules a command received from c under time warp (see
// package timewarp for its effective tick).
func (s *Server) warpCommand(c *client, cmd game.UserCmd) {
	w := s.warp.d
	cmd.Duration = min(max(cmd.Duration, 0), s.tickDur)
	var lead uint32 // hitscan only: every command runs when it arrives
	if !w.HitscanOnly {
		lead = timewarp.Lead(c.rtt.Smoothed(), s.tickDur)
	}
	if !w.Receive(c.id, c, cmd, s.tick, lead) {
		c.cmdsDropped++
		s.stats.CmdsDropped.QueueFull++
		return // flooding: the queue is full
	}
	c.lastRecv = cmd.Tick
}

// warpExecute runs c's commands due at the current tick, recorded in its
// record.
func (s *Server) warpExecute(c *client) {
	for {
		cmd, ok := s.warp.d.Next(c.id, c, s.tick)
		if !ok {
			return
		}
		noteExecuted(c, &cmd)
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
		if c == nil {
			continue
		}
		for {
			cmd, t, ok := w.d.InsertLate(c.id, c, s.tick)
			if !ok {
				break
			}
			noteExecuted(c, &cmd)
			from = min(from, t)
		}
	}
	from = min(from, s.insertShots())
	if from <= s.tick {
		w.d.Run(from, s.tick)
	}
	e := w.d.Prepare(s.tick + 1)
	e.Lists = warpLists{
		shots: e.Lists.shots[:0], pellets: e.Lists.pellets[:0], flights: e.Lists.flights[:0], paths: e.Lists.paths[:0],
		hits: e.Lists.hits[:0], flying: e.Lists.flying[:0],
	}
}

// deferShot takes hitscan shot ps of c, fired in the tick being run, to
// be judged at its command's issue tick under timewarp.Rules.HitscanOnly,
// and reports whether it did: not when time warp warps whole commands,
// the weapon fires projectiles, or the issue tick is this tick or too old
// (the shot is then judged now, as on an ordinary server).
func (s *Server) deferShot(c *client, ps *pendingShot) bool {
	w := s.warp
	if w == nil || !w.d.HitscanOnly || !ps.hitscan {
		return false
	}
	sc := w.d.Schedule(c.id, c)
	if sc == nil {
		return false
	}
	e, tooOld := sc.Estimate(s.tick, timewarp.Lead(c.rtt.Smoothed(), s.tickDur), w.d.Floor(), w.d.Rules)
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
		if c == nil || !ok || e.Owner[c.id] != c || ls.e <= w.d.Floor() {
			continue
		}
		sh := warpShot{pendingShot: ls.pendingShot, deferred: true}
		k := len(e.Lists.shots)
		for k > 0 && before(&sh, &e.Lists.shots[k-1]) {
			k--
		}
		e.Lists.shots = slices.Insert(e.Lists.shots, k, sh)
		from = min(from, ls.e)
		w.d.Stats.Late++
	}
	w.shotsLate = w.shotsLate[:0]
	return from
}
