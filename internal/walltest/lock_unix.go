//go:build unix

package walltest

import (
	"os"
	"syscall"
)

// lock takes an exclusive advisory lock on f, waiting for it. flock locks
// belong to the open file, so two opens in one process exclude each other
// as two processes do; a crashed test's lock goes with its process.
func lock(f *os.File) (unlock func(), err error) {
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	return func() { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }, err
}
