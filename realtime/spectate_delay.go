package realtime

import (
	"fmt"
	"time"
)

// A delay on what spectators see, as Source's SourceTV delays its
// broadcast (tv_delay, 30 s by default: Valve Developer Community,
// "SourceTV", <https://developer.valvesoftware.com/wiki/SourceTV>; not
// among lagkit's source texts, not verified). Without it a player could
// spectate the match it plays, in a second tab, and see everyone.

// DefaultSpectateDelay is the delay lagkit serve puts on spectating,
// SourceTV's default tv_delay.
const DefaultSpectateDelay = 30 * time.Second

// MaxSpectateDelay is the longest delay a host takes: a match keeps a
// view every spectateEvery over the delay, 6,002 views at this bound.
const MaxSpectateDelay = 5 * time.Minute

// CheckSpectateDelay says what is wrong with d as a spectate delay:
// negative, or over MaxSpectateDelay. 0 turns the delay off.
func CheckSpectateDelay(d time.Duration) error {
	switch {
	case d < 0:
		return fmt.Errorf("spectate delay %v is negative: want 0 (no delay) up to %v", d, MaxSpectateDelay)
	case d > MaxSpectateDelay:
		return fmt.Errorf("spectate delay %v is over %v, the longest a match keeps its views for", d, MaxSpectateDelay)
	}
	return nil
}

// SetSpectateDelay makes every match started after it serve Spectate as
// the match was d ago (0: as it is now). Such a match costs nothing
// until someone spectates it: from the first Spectate on it builds its
// view every spectateEvery and keeps d's worth, so the first spectator
// waits d (the view says how long), and it stops, forgetting the views,
// once nobody has asked for d and spectateWatch more.
func (h *Host) SetSpectateDelay(d time.Duration) error {
	if err := CheckSpectateDelay(d); err != nil {
		return err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.spectateDelay = d
	return nil
}

// delayedViews is a match's ring of the views it built, owned by its
// goroutine: each with only the hits and shots new since the one before,
// so that a view costs its players, not MaxViewRewinds and MaxViewShots
// again.
type delayedViews struct {
	delay time.Duration
	ring  []delayedView
	n     int    // views kept so far; the newest is ring[(n-1)%len(ring)]
	hits  uint64 // the last hit and shot kept in a view
	shots uint64
	// watched is set by a Spectate, at server time watchedAt: views
	// are built only while someone watches.
	watched   bool
	watchedAt time.Duration
}

// delayedView is one view, built at match time at.
type delayedView struct {
	at time.Duration
	v  View
}

// newDelayedViews sizes the ring to cover delay: views are at least
// spectateEvery apart, so len views span at least delay+spectateEvery.
func newDelayedViews(delay time.Duration) *delayedViews {
	return &delayedViews{delay: delay, ring: make([]delayedView, int(delay/spectateEvery)+2)}
}

// watch notes a Spectate at server time now: a match not watched until
// now starts its views afresh.
func (d *delayedViews) watch(now time.Duration, shots uint64) {
	if !d.watched {
		d.watched, d.shots = true, shots
	}
	d.watchedAt = now
}

// keepDelayed builds the view of the match now into its ring, at most
// every spectateEvery, while someone watches; once nobody has asked for
// the delay and spectateWatch more it forgets its views.
func (m *Match) keepDelayed() {
	d := m.delayed
	now := m.srv.Time()
	if !d.watched {
		return
	}
	if now-d.watchedAt > d.delay+spectateWatch {
		d.watched, d.n = false, 0
		clear(d.ring)
		return
	}
	if d.n > 0 && now-d.ring[(d.n-1)%len(d.ring)].at < spectateEvery {
		return
	}
	v := m.view(d.hits)
	if len(v.Rewinds) > 0 {
		d.hits = v.Rewinds[len(v.Rewinds)-1].Seq
	}
	s := &m.shots
	v.Shots = []ViewShot{}
	for seq := max(d.shots, s.seq-min(s.seq, MaxViewShots)) + 1; seq <= s.seq; seq++ {
		v.Shots = append(v.Shots, s.ring[seq%MaxViewShots])
	}
	d.shots = s.seq
	d.ring[d.n%len(d.ring)] = delayedView{at: now, v: v}
	d.n++
}

// delayedView returns the newest view kept at least the delay ago, with
// the hits and shots of the views before it (up to MaxViewRewinds and
// MaxViewShots); before there is one, an empty view saying when there
// will be.
func (m *Match) delayedView() View {
	d := m.delayed
	now := m.srv.Time()
	delayS := d.delay.Seconds()
	oldest := max(0, d.n-len(d.ring))
	j := -1
	for i := d.n - 1; i >= oldest; i-- {
		if d.ring[i%len(d.ring)].at <= now-d.delay {
			j = i
			break
		}
	}
	if j < 0 {
		first := now
		if d.n > 0 {
			first = d.ring[oldest%len(d.ring)].at
		}
		cfg := m.srv.Config()
		return View{
			Match: m.id, Map: cfg.Map.Name, Mode: m.r.cfg.Mode, DelayS: delayS,
			StartsInS: max(first+d.delay-now, spectateEvery).Seconds(),
			Players:   []ViewPlayer{}, Rewinds: []ViewRewind{}, Shots: []ViewShot{},
		}
	}
	v := d.ring[j%len(d.ring)].v
	v.DelayS = delayS
	// Walk back for the hits and shots of the views before j, newest
	// first, then put them oldest first.
	var hits [][]ViewRewind
	var shots [][]ViewShot
	nh, ns := 0, 0
	for i := j; i >= oldest && (nh < MaxViewRewinds || ns < MaxViewShots); i-- {
		e := &d.ring[i%len(d.ring)].v
		if nh < MaxViewRewinds && len(e.Rewinds) > 0 {
			hits, nh = append(hits, e.Rewinds), nh+len(e.Rewinds)
		}
		if ns < MaxViewShots && len(e.Shots) > 0 {
			shots, ns = append(shots, e.Shots), ns+len(e.Shots)
		}
	}
	v.Rewinds = joinNewest(hits, MaxViewRewinds)
	v.Shots = joinNewest(shots, MaxViewShots)
	return v
}

// joinNewest joins parts, given newest first, oldest first, keeping the
// last n.
func joinNewest[T any](parts [][]T, n int) []T {
	out := []T{}
	for i := len(parts) - 1; i >= 0; i-- {
		out = append(out, parts[i]...)
	}
	return out[len(out)-min(len(out), n):]
}
