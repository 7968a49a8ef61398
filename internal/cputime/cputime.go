// Package cputime reads the CPU time of the calling OS thread, so that a
// driver can charge a piece of work its CPU time rather than its wall
// time (which a busy machine stretches with other processes' turns).
// The caller keeps its goroutine on one thread (runtime.LockOSThread)
// between two readings.
package cputime
