//go:build !linux

package cputime

import "time"

// Thread returns the calling thread's CPU time; ok is false where the
// system cannot tell it, as here.
func Thread() (d time.Duration, ok bool) { return 0, false }
