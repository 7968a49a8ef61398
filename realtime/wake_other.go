//go:build !linux

package realtime

import "time"

// spinMargin: the match goroutine wakes on a Go timer half a
// millisecond before a tick and spins the rest.
const spinMargin = 500 * time.Microsecond

// sysTimer: there is none here (newSysTimer returns nil).
type sysTimer struct{}

func newSysTimer() *sysTimer        { return nil }
func (*sysTimer) arm(time.Duration) {}
func (*sysTimer) poke()             {}
func (*sysTimer) wait()             {}
func (*sysTimer) stop()             {}
