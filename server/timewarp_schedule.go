package server

import (
	"math"
	"time"

	"github.com/lagkit/lagkit/game"
)

// Time warp's scheduling: when a command runs. Each command gets its
// effective tick on arrival (warpCommand); due ones run with the tick
// (warpExecute), late ones are inserted into the ring's past and start a
// re-simulation (warpLate). See timewarp.go for the rules.

// warpScheduler runs commands under time warp: the server's scheduler
// when Config.TimeWarp is set.
type warpScheduler struct{ s *Server }

func (w warpScheduler) receive(_ time.Duration, c *client, cmd game.UserCmd) { w.s.warpCommand(c, cmd) }
func (w warpScheduler) begin()                                               { w.s.warpLate() }
func (w warpScheduler) execute(c *client)                                    { w.s.warpExecute(c) }
func (w warpScheduler) resolve(now time.Duration)                            { w.s.warpResolve(now) }
func (w warpScheduler) end()                                                 { w.s.warpRecord() }

// warpSlot is one slot's command schedule.
type warpSlot struct {
	owner   *client
	pend    []warpCmd // ring of commands waiting for their tick
	head, n int
	base    uint32 // the tick the client joined after
	lastE   uint32 // the effective tick of the newest command
	lastN   int    // commands scheduled at lastE
	credit  int

	// The newest death announced in the slot, and whose.
	died      *client
	deathTick uint32
}

// warpCmd is a command waiting for its effective tick.
type warpCmd struct {
	cmd game.UserCmd
	e   uint32
}

// slot returns c's schedule, starting it afresh when c is new in the slot.
func (w *timeWarp) slot(s *Server, c *client) *warpSlot {
	sl := &w.slots[c.id]
	if sl.owner != c {
		// The client joined after the newest tick the ring has without
		// it, or before the ring's oldest.
		base := s.tick
		for base > 0 {
			if e, ok := w.entry(base); !ok || e.owner[c.id] != c {
				break
			}
			base--
		}
		*sl = warpSlot{owner: c, pend: sl.pend, base: base, lastE: base, credit: w.slack, died: sl.died, deathTick: sl.deathTick}
	}
	return sl
}

// warpCommand schedules a command received from c under time warp (see
// the effective tick above).
func (s *Server) warpCommand(c *client, cmd game.UserCmd) {
	w := s.warp
	sl := w.slot(s, c)
	if sl.n == len(sl.pend) {
		c.cmdsDropped++
		s.stats.CmdsDropped.QueueFull++
		return // flooding: the queue is full
	}
	c.lastRecv = cmd.Tick
	cmd.Duration = min(max(cmd.Duration, 0), s.tickDur)
	next := s.tick + 1
	lead := uint32((c.rtt.Smoothed()/2 + s.tickDur/2) / s.tickDur)
	e := next - min(lead, next)
	// The oldest tick a command can be inserted at: the ring must hold
	// the state before it, the player must have been there, and the
	// round must not have restarted since.
	low := max(next-min(uint32(w.window), next), sl.base+1, w.floor+1)
	if e < low {
		e = next
		w.stats.TooOld++
	}
	switch {
	case e > sl.lastE:
		sl.credit = min(sl.credit+int(e-sl.lastE-1), w.slack)
		sl.lastN = 0
	case sl.credit > 0 && sl.lastN < maxWarpCmds:
		e = sl.lastE
		sl.credit--
	default:
		e = sl.lastE + 1
		sl.lastN = 0
	}
	sl.lastE = e
	sl.lastN++
	sl.pend[(sl.head+sl.n)%len(sl.pend)] = warpCmd{cmd: cmd, e: e}
	sl.n++
}

// pop returns the slot's next command if its effective tick is at or
// before t.
func (sl *warpSlot) pop(t uint32) (warpCmd, bool) {
	if sl.n == 0 || sl.pend[sl.head].e > t {
		return warpCmd{}, false
	}
	wc := sl.pend[sl.head]
	sl.head = (sl.head + 1) % len(sl.pend)
	sl.n--
	return wc, true
}

// warpExecute runs c's commands due at the current tick and records them.
func (s *Server) warpExecute(c *client) {
	w := s.warp
	sl := &w.slots[c.id]
	if sl.owner != c {
		return
	}
	e, _ := w.entry(s.tick)
	for e.ncmd[c.id] < maxWarpCmds {
		wc, ok := sl.pop(s.tick)
		if !ok {
			return
		}
		cmd := wc.cmd
		noteExecuted(c, &cmd)
		e.cmds[c.id*maxWarpCmds+int(e.ncmd[c.id])] = cmd
		e.ncmd[c.id]++
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
		for sl.n > 0 && sl.pend[sl.head].e <= s.tick {
			wc := &sl.pend[sl.head]
			e, ok := w.entry(wc.e)
			if !ok || e.owner[c.id] != c || e.ncmd[c.id] == maxWarpCmds || wc.e <= w.floor {
				// Scheduling keeps effective ticks within the window,
				// after the join and the last restart and two a tick at
				// most, so this happens only when the round restarted
				// after the command arrived; applying the command at the
				// next tick is the safe answer.
				wc.e = s.tick + 1
				w.stats.TooOld++
				break
			}
			sl.pop(s.tick)
			noteExecuted(c, &wc.cmd)
			e.cmds[c.id*maxWarpCmds+int(e.ncmd[c.id])] = wc.cmd
			e.ncmd[c.id]++
			w.lateFrom[c.id] = min(w.lateFrom[c.id], wc.e)
			from = min(from, wc.e)
			w.stats.Late++
		}
	}
	if from <= s.tick {
		s.resimulate(from)
	}
	w.prepare(s)
}
