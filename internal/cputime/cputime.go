// Package cputime reads the CPU time of the calling OS thread, so that a
// driver can charge a piece of work its CPU time rather than its wall
// time (which a busy machine stretches with other processes' turns).
// The caller keeps its goroutine on one thread (runtime.LockOSThread)
// between two readings.
//
// A reading is a system call (the thread clocks have no vDSO path), two
// per measured piece of work, so a driver reads the clock only when its
// caller asked for the CPU time: Reads lets tests check that a run that
// did not ask read nothing.
package cputime

import (
	"sync/atomic"
	"time"
)

// reads counts the calls to Thread.
var reads atomic.Uint64

// Thread returns the calling thread's CPU time; ok is false where the
// system cannot tell it.
func Thread() (d time.Duration, ok bool) {
	reads.Add(1)
	return thread()
}

// Reads returns how many times Thread has been called in this process.
func Reads() uint64 { return reads.Load() }
