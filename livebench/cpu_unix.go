//go:build unix

package livebench

import (
	"syscall"
	"time"
)

// processCPU returns the CPU time (user and system) this process has
// used: every goroutine's, none of a child's.
func processCPU() (time.Duration, error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, err
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), nil
}
