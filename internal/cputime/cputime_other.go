//go:build !linux

package cputime

import "time"

// thread cannot tell the thread's CPU time here.
func thread() (time.Duration, bool) { return 0, false }
