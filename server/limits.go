package server

import (
	"errors"
	"fmt"
	"time"

	"github.com/lagkit/lagkit/wire"
)

// Limits bound what one client may send. Each is counted per client over
// whole seconds of server time since the client joined; a client that
// goes over one within a second is disconnected with the limit's
// wire.DisconnectCode and a reason in words, and Stats.Kicked counts it
// by that code. An honest client stays far below every default: it sends
// one command packet per tick, every command within the window, one
// answer per provisional hit (and at most two copies of it until the
// verdict arrives), and no malformed datagram at all.
type Limits struct {
	// Malformed is how many datagrams that fail to decode a client may
	// send per second (default 10).
	Malformed int
	// OutOfWindow is how many commands whose tick lies beyond the
	// command window a client may send per second (default 64).
	OutOfWindow int
	// Appeals is how many appeal datagrams a client may send per second
	// (default 64; AppealRate already bounds the provisional hits it can
	// answer).
	Appeals int
	// Reports is how many SBC report datagrams a client may send per
	// second before it is disconnected (default 16); below it, reports
	// beyond the report bucket (see report.go) are only not kept.
	Reports int
	// BytesPerSecond is how many datagram bytes a client may send per
	// second (default 64 KiB; a 128 Hz client sending full command
	// packets uses about a tenth of it).
	BytesPerSecond int
	// AckTimeout is how long a client may go without acknowledging a
	// new snapshot before it is dropped (default Config.Timeout). After
	// unackedGrace without one, its snapshots slow to one per
	// unackedInterval, so a client that sends commands but ignores
	// snapshots does not keep a full stream coming.
	AckTimeout time.Duration
}

// unackedGrace is how long a client may leave snapshots unacknowledged
// before its stream slows to one per unackedInterval: a second is 64
// command packets at 64 Hz, each repeating the newest acknowledgement,
// so only a blackout or a client that ignores snapshots gets there.
const (
	unackedGrace    = time.Second
	unackedInterval = 250 * time.Millisecond
)

// limit names a counted limit.
type limit int

const (
	limitMalformed limit = iota
	limitOutOfWindow
	limitAppeals
	limitReports
	limitBytes
	numLimits
)

var limitInfo = [numLimits]struct {
	code wire.DisconnectCode
	what string
}{
	{wire.DisconnectMalformed, "malformed datagrams"},
	{wire.DisconnectOutOfWindow, "commands outside the command window"},
	{wire.DisconnectAppeals, "appeals"},
	{wire.DisconnectReports, "reports"},
	{wire.DisconnectBytes, "bytes"},
}

// of returns the limit l per second.
func (x *Limits) of(l limit) int {
	return [numLimits]int{x.Malformed, x.OutOfWindow, x.Appeals, x.Reports, x.BytesPerSecond}[l]
}

// withDefaults fills in the zero limits; timeout is the server's
// Config.Timeout.
func (x *Limits) withDefaults(timeout time.Duration) error {
	for _, f := range []struct {
		v   *int
		def int
	}{{&x.Malformed, 10}, {&x.OutOfWindow, 64}, {&x.Appeals, 64}, {&x.Reports, 16}, {&x.BytesPerSecond, 64 << 10}} {
		if *f.v < 0 {
			return fmt.Errorf("server: config: limits: %d is negative", *f.v)
		}
		if *f.v == 0 {
			*f.v = f.def
		}
	}
	if x.AckTimeout < 0 {
		return fmt.Errorf("server: config: limits: ack timeout %v is negative", x.AckTimeout)
	}
	if x.AckTimeout == 0 {
		x.AckTimeout = timeout
	}
	return nil
}

// LimitCounts are what a client was charged against its limits, in
// total over its session.
type LimitCounts struct {
	Malformed, OutOfWindow, Appeals, Reports, Bytes int
}

// usage is one client's charges against its limits.
type usage struct {
	second time.Duration // start of the second being counted
	n      [numLimits]int
	total  [numLimits]int
}

func (u *usage) counts() LimitCounts {
	t := u.total
	return LimitCounts{Malformed: t[limitMalformed], OutOfWindow: t[limitOutOfWindow], Appeals: t[limitAppeals], Reports: t[limitReports], Bytes: t[limitBytes]}
}

// ErrOverLimit is returned by Step for a datagram that took its client
// over one of its Limits; the client has been disconnected.
var ErrOverLimit = errors.New("server: client over a limit, disconnected")

// charge counts n against c's limit l, and disconnects c when that puts
// it over the limit within the current second. It reports whether c is
// still connected.
func (s *Server) charge(now time.Duration, c *client, l limit, n int) bool {
	if n <= 0 {
		return true
	}
	u := &c.usage
	if now-u.second >= time.Second {
		u.second = now - (now-c.joinedAt)%time.Second
		u.n = [numLimits]int{}
	}
	u.n[l] += n
	u.total[l] += n
	if max := s.cfg.Limits.of(l); u.n[l] > max {
		info := limitInfo[l]
		s.drop(c.id, info.code, fmt.Sprintf("too many %s: %d in a second, at most %d", info.what, u.n[l], max))
		s.overLimit = true
		return false
	}
	return true
}

// acked notes that c acknowledged a new snapshot at now.
func (c *client) acked(now time.Duration) { c.ackedAt = now }

// stale reports whether c has acknowledged no new snapshot for longer
// than the grace, and so gets snapshots only every unackedInterval.
func (c *client) stale(now time.Duration) bool { return now-c.ackedAt > unackedGrace }

// dueSnapshot reports whether c gets a snapshot at this tick: every
// snapEvery ticks, or, for a client whose acknowledgements stopped,
// once per unackedInterval.
func (s *Server) dueSnapshot(now time.Duration, c *client) bool {
	if s.tick%c.snapEvery != 0 {
		return false
	}
	return !c.stale(now) || now-c.lastSnapAt >= unackedInterval
}

// overdue returns the code and reason for dropping c at now, if it must
// go: silent, not acknowledging, or with too many events unacknowledged.
func (s *Server) overdue(now time.Duration, c *client) (wire.DisconnectCode, string, bool) {
	switch {
	case now-c.lastHeard > s.cfg.Timeout:
		return wire.DisconnectTimedOut, "timed out", true
	case now-c.ackedAt > s.cfg.Limits.AckTimeout:
		return wire.DisconnectNoAcks, fmt.Sprintf("no snapshot acknowledged for %v", s.cfg.Limits.AckTimeout), true
	case c.overflow:
		return wire.DisconnectEventBacklog, "too many unacknowledged events", true
	}
	return 0, "", false
}
