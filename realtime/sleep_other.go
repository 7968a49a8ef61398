//go:build !linux

package realtime

import "time"

// Elsewhere the match goroutine wakes on its Go timer half a
// millisecond before a tick and spins the rest.
const (
	preciseTimerMargin = 500 * time.Microsecond
	preciseSpinMargin  = preciseTimerMargin
)

// preciseSleep is never called here: the two margins are the same.
func preciseSleep(d time.Duration) { time.Sleep(d) }
