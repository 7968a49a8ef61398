package timewarp

import "github.com/lagkit/lagkit/game"

// Pending is a command waiting for its effective tick.
type Pending struct {
	Cmd  game.UserCmd
	Tick uint32
}

// Schedule is one client's commands under time warp: those received and
// not yet run, each with its effective tick, in the order received (see
// the package doc for the rules). Its size is fixed when made, so its
// memory does not depend on what the client sends.
type Schedule struct {
	pend    []Pending // ring of commands waiting for their tick
	head, n int
	base    uint32 // the tick the client joined after
	last    uint32 // the effective tick of the newest command
	lastN   int    // commands scheduled at last
	credit  int
}

// NewSchedule returns a schedule holding up to size commands (at least
// one).
func NewSchedule(size int) Schedule {
	return Schedule{pend: make([]Pending, max(size, 1))}
}

// Start starts the schedule afresh for a client that joined after tick
// base, with slack ticks of catch-up credit: no command of it runs at or
// before base, and those waiting are dropped.
func (s *Schedule) Start(base uint32, slack int) {
	*s = Schedule{pend: s.pend, base: base, last: base, credit: slack}
}

// Len returns how many commands wait.
func (s *Schedule) Len() int { return s.n }

// Size returns how many commands the schedule can hold.
func (s *Schedule) Size() int { return len(s.pend) }

// Full reports whether the schedule holds as many commands as it can.
func (s *Schedule) Full() bool { return s.n == len(s.pend) }

// At returns the k-th command waiting, oldest first (k < Len).
func (s *Schedule) At(k int) Pending { return s.pend[(s.head+k)%len(s.pend)] }

// Add schedules cmd, received while tick next is the next to run, from a
// client lead ticks away (Lead), under rules r; floor is the newest tick
// no warp may re-run (a round restart). It returns the command's
// effective tick, and whether it was too old to be inserted in the past
// (it is then scheduled from next). The schedule must not be Full.
func (s *Schedule) Add(cmd game.UserCmd, next, lead, floor uint32, r Rules) (e uint32, tooOld bool) {
	e, tooOld = s.Estimate(next, lead, floor, r)
	switch {
	case e > s.last:
		s.credit = min(s.credit+int(e-s.last-1), r.Slack)
		s.lastN = 0
	case s.credit > 0 && s.lastN < CmdsPerTick:
		e = s.last
		s.credit--
	default:
		e = s.last + 1
		s.lastN = 0
	}
	s.last = e
	s.lastN++
	s.pend[(s.head+s.n)%len(s.pend)] = Pending{Cmd: cmd, Tick: e}
	s.n++
	return e, tooOld
}

// Estimate returns the tick a command received while tick next is the
// next to run was issued at, from a client lead ticks away, and whether
// that lies too far back to be inserted (the tick is then next): beyond
// r's window, at or before the client's joining, or at or before floor
// (a round restart). Add schedules a command from it; under
// Rules.HitscanOnly it places a hitscan shot.
func (s *Schedule) Estimate(next, lead, floor uint32, r Rules) (uint32, bool) {
	e := next - min(lead, next)
	// The oldest tick a command can be inserted at: the window must hold
	// the state before it, the client must have been there, and the
	// round must not have restarted since.
	low := max(next-min(uint32(r.Window), next), s.base+1, floor+1)
	if e < low {
		return next, true
	}
	return e, false
}

// Due returns the oldest command waiting if its effective tick is at or
// before t, leaving it in place.
func (s *Schedule) Due(t uint32) (Pending, bool) {
	if s.n == 0 || s.pend[s.head].Tick > t {
		return Pending{}, false
	}
	return s.pend[s.head], true
}

// Pop removes and returns the oldest command waiting if its effective
// tick is at or before t.
func (s *Schedule) Pop(t uint32) (Pending, bool) {
	p, ok := s.Due(t)
	if ok {
		s.head = (s.head + 1) % len(s.pend)
		s.n--
	}
	return p, ok
}

// Postpone moves the oldest command waiting to tick t: the server could
// not insert it at its effective tick (the round restarted after it
// arrived) and applies it at t instead.
func (s *Schedule) Postpone(t uint32) {
	if s.n > 0 {
		s.pend[s.head].Tick = t
	}
}
