package realtime

import (
	"time"

	"golang.org/x/sys/unix"
)

// On Linux the match goroutine sleeps the last stretch before a tick in
// the kernel (see preciseSleep): its Go timer need only wake it within
// a millisecond and a half. With the finest timer slack the kernel wakes
// a thread a few to some tens of microseconds late: a 20 µs spin keeps
// most ticks' start within microseconds for little CPU (a 60 µs spin was
// a sixth of a 10-player 128 Hz match's CPU time).
const (
	preciseTimerMargin = 1500 * time.Microsecond
	preciseSpinMargin  = 20 * time.Microsecond
)

// preciseSleep sleeps d in the kernel on the calling thread, with the
// finest timer slack (a thread's default lets the kernel wake it 50 µs
// late to batch wake-ups). It holds the thread, never more than
// preciseTimerMargin; an interrupted sleep ends early, and the spin
// after it covers the rest.
func preciseSleep(d time.Duration) {
	_ = unix.Prctl(unix.PR_SET_TIMERSLACK, 1, 0, 0, 0)
	ts := unix.NsecToTimespec(int64(d))
	_ = unix.ClockNanosleep(unix.CLOCK_MONOTONIC, 0, &ts, nil)
}
