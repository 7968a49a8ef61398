// Package msec converts between durations and milliseconds as floats,
// the unit configs, flags, logs and reports speak.
package msec

import "time"

// Duration returns v milliseconds as a duration (truncated to the
// nanosecond).
func Duration(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }

// Of returns d in milliseconds.
func Of(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
