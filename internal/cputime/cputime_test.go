package cputime

import (
	"runtime"
	"testing"
	"time"
)

// TestThreadCountsWorkNotSleep checks that the thread's clock advances
// with work done on it and not with time spent asleep.
func TestThreadCountsWorkNotSleep(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	t0, ok := Thread()
	if !ok {
		t.Skip("no thread CPU clock on " + runtime.GOOS)
	}
	time.Sleep(50 * time.Millisecond)
	t1, _ := Thread()
	if slept := t1 - t0; slept > 25*time.Millisecond {
		t.Errorf("sleeping 50 ms cost %v of the thread's CPU time", slept)
	}
	// Work: the clock advances, by no more than the wall time taken.
	start := time.Now()
	x := uint64(1)
	for i := range 20_000_000 {
		x = x*6364136223846793005 + uint64(i)
	}
	wall := time.Since(start)
	t2, _ := Thread()
	if t2 <= t1 || t2-t1 > wall+time.Millisecond || x == 0 {
		t.Errorf("%v of work moved the clock from %v to %v", wall, t1, t2)
	}
}

// TestReadsCountsEachReading checks that Reads counts every reading, as
// the drivers' tests rely on to see that a run read no clock.
func TestReadsCountsEachReading(t *testing.T) {
	before := Reads()
	Thread()
	Thread()
	if got := Reads() - before; got != 2 {
		t.Errorf("two readings counted as %d", got)
	}
}
