//go:build !unix

package livebench

import (
	"errors"
	"runtime"
	"time"
)

// processCPU is not available without getrusage.
func processCPU() (time.Duration, error) {
	return 0, errors.New("livebench: the process's CPU time is not available on " + runtime.GOOS)
}
