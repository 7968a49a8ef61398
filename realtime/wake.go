package realtime

import "time"

// wakeTimer is what the match goroutine waits on between ticks: armed
// for spinMargin before the next tick, and poked by whoever hands the
// match something (a command, a closed connection, an in-process
// datagram, a batch filling up), which makes it fire at once. Where the
// system has a precise timer the goroutine can wait on in Go's poller
// (Linux's timerfd, sysTimer), waiting on it holds no thread and wakes
// the goroutine itself, with no other goroutine between; elsewhere it is
// a Go timer, which fires up to a millisecond late (spinMargin is half
// a millisecond there).
//
// The goroutine arms the timer, then looks at its channels without
// waiting, then waits: a sender that comes after the look pokes after
// the arming, so nothing waits past the goroutine's next wake, and even
// a poke lost to a race waits no longer than the next tick.
type wakeTimer struct {
	sys *sysTimer // nil where there is none
	c   chan struct{}
	gt  *time.Timer
}

func newWakeTimer() *wakeTimer {
	t := &wakeTimer{sys: newSysTimer()}
	if t.sys == nil {
		t.c = make(chan struct{}, 1)
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

// arm makes the timer fire d from now, replacing any earlier arming.
func (t *wakeTimer) arm(d time.Duration) {
	if t.sys != nil {
		t.sys.arm(d)
		return
	}
	t.gt.Reset(d)
}

// poke makes the timer fire now; any goroutine may call it, at any
// time, also after stop.
func (t *wakeTimer) poke() {
	if t.sys != nil {
		t.sys.poke()
		return
	}
	t.fire()
}

// wait returns once the timer has fired since the last wait.
func (t *wakeTimer) wait() {
	if t.sys != nil {
		t.sys.wait()
		return
	}
	<-t.c
}

// stop ends the timer.
func (t *wakeTimer) stop() {
	if t.sys != nil {
		t.sys.stop()
		return
	}
	t.gt.Stop()
}
