package cputime

import (
	"time"

	"golang.org/x/sys/unix"
)

// Thread returns the calling thread's CPU time; ok is false where the
// system cannot tell it.
func Thread() (d time.Duration, ok bool) {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}
