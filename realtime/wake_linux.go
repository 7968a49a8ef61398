package realtime

import (
	"os"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// spinMargin: a timerfd fires on time (it has no timer slack) and the
// goroutine waiting on it wakes some to tens of microseconds later; a
// 20 µs spin after it keeps most ticks' start within microseconds for
// little CPU.
const spinMargin = 20 * time.Microsecond

// sysTimer is a timerfd the match goroutine waits on in the Go
// runtime's poller: it holds no thread meanwhile, and the thread the
// poller wakes runs the goroutine itself. Go's own timers fire up to a
// millisecond late here (the poller sleeps in whole milliseconds); a
// sleep in a system call holds a thread and wakes the runtime's monitor
// thread (sysmon), which then polls every 20 µs for a millisecond or
// more (most of a live server's CPU, when it did that every tick); and
// a goroutine that waits on a timer for the match goroutine wakes a
// second thread each time it hands over. Arming, poking and reading the
// timerfd are raw system calls, which the runtime does not see, for the
// monitor's sake.
type sysTimer struct {
	f  *os.File
	rc syscall.RawConn
	fd uintptr
	// mu keeps the number from being closed under a poke (and poking
	// another file that took the number meanwhile).
	mu     sync.RWMutex
	closed bool
	read   func(uintptr) bool
	count  [8]byte
}

// newSysTimer returns a timerfd, or nil if the system refuses one.
func newSysTimer() *sysTimer {
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return nil
	}
	t := &sysTimer{f: os.NewFile(uintptr(fd), "lagkit-wake"), fd: uintptr(fd)}
	if t.rc, err = t.f.SyscallConn(); err != nil {
		t.f.Close()
		return nil
	}
	t.read = func(fd uintptr) bool {
		_, _, errno := unix.RawSyscall(unix.SYS_READ, fd, uintptr(unsafe.Pointer(&t.count[0])), uintptr(len(t.count)))
		return errno != unix.EAGAIN && errno != unix.EINTR
	}
	return t
}

// settime arms the timer d from now.
func (t *sysTimer) settime(d time.Duration) {
	spec := unix.ItimerSpec{Value: unix.NsecToTimespec(max(int64(d), 1))}
	unix.RawSyscall6(unix.SYS_TIMERFD_SETTIME, t.fd, 0, uintptr(unsafe.Pointer(&spec)), 0, 0, 0)
}

// arm makes the timer fire d from now, replacing any earlier arming
// (called by the match goroutine, which stops the timer itself).
func (t *sysTimer) arm(d time.Duration) { t.settime(d) }

// poke makes the timer fire at once.
func (t *sysTimer) poke() {
	t.mu.RLock()
	defer t.mu.RUnlock()
	if !t.closed {
		t.settime(0)
	}
}

// wait parks the goroutine in the poller until the timer has fired.
func (t *sysTimer) wait() { _ = t.rc.Read(t.read) }

// stop closes the timer.
func (t *sysTimer) stop() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.closed = true
	t.f.Close()
}
