package realtime

import "time"

// wakeTimer wakes the match goroutine before a tick while it waits on
// its channels. Where the system has a precise timer the goroutine's
// poller can watch (Linux's timerfd, sysTimer) it fires within tens of
// microseconds and the goroutine spins spinMargin; elsewhere it is a Go
// timer, which fires up to a millisecond late, and the goroutine spins
// the last spinMargin (half a millisecond).
type wakeTimer struct {
	c   chan struct{}
	sys *sysTimer   // nil where there is none
	gt  *time.Timer // else this
}

func newWakeTimer() *wakeTimer {
	t := &wakeTimer{c: make(chan struct{}, 1)}
	if t.sys = newSysTimer(t.c); t.sys == nil {
		t.gt = time.AfterFunc(time.Hour, t.fire)
		t.gt.Stop()
	}
	return t
}

func (t *wakeTimer) fire() {
	select {
	case t.c <- struct{}{}:
	default:
	}
}

// C receives a value when the timer fires. A value may be left from an
// earlier arming: the receiver checks the time.
func (t *wakeTimer) C() <-chan struct{} { return t.c }

// arm makes the timer fire d from now, replacing any earlier arming.
func (t *wakeTimer) arm(d time.Duration) {
	if t.sys != nil {
		t.sys.arm(d)
		return
	}
	t.gt.Reset(d)
}

// stop ends the timer.
func (t *wakeTimer) stop() {
	if t.sys != nil {
		t.sys.stop()
		return
	}
	t.gt.Stop()
}
