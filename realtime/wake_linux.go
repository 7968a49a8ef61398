package realtime

import (
	"os"
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

// sysTimer is a timerfd watched by the Go runtime's poller: a goroutine
// parked on it passes each expiry to the wake timer's channel, holding
// no thread meanwhile. Go's own timers fire up to a millisecond late
// here (the poller sleeps in whole milliseconds), and a sleep in a
// system call holds a thread and wakes the runtime's monitor thread
// (sysmon), which then polls every 20 µs for a millisecond or more:
// most of a live server's CPU, when it did that every tick. Arming and
// reading the timerfd are raw system calls, which the runtime does not
// see, for the same reason.
type sysTimer struct {
	f  *os.File
	rc syscall.RawConn
	fd uintptr
}

// newSysTimer returns a timerfd that signals c, or nil if the system
// refuses one.
func newSysTimer(c chan struct{}) *sysTimer {
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return nil
	}
	t := &sysTimer{f: os.NewFile(uintptr(fd), "lagkit-wake"), fd: uintptr(fd)}
	if t.rc, err = t.f.SyscallConn(); err != nil {
		t.f.Close()
		return nil
	}
	go t.loop(c)
	return t
}

// loop passes each expiry to c until the timer is stopped.
func (t *sysTimer) loop(c chan struct{}) {
	var count [8]byte
	var errno syscall.Errno
	read := func(fd uintptr) bool {
		_, _, errno = unix.RawSyscall(unix.SYS_READ, fd, uintptr(unsafe.Pointer(&count[0])), uintptr(len(count)))
		return errno != unix.EAGAIN && errno != unix.EINTR
	}
	for {
		if err := t.rc.Read(read); err != nil || errno != 0 {
			return // stopped
		}
		select {
		case c <- struct{}{}:
		default:
		}
	}
}

// arm makes the timer fire d from now, replacing any earlier arming.
func (t *sysTimer) arm(d time.Duration) {
	spec := unix.ItimerSpec{Value: unix.NsecToTimespec(max(int64(d), 1))}
	unix.RawSyscall6(unix.SYS_TIMERFD_SETTIME, t.fd, 0, uintptr(unsafe.Pointer(&spec)), 0, 0, 0)
}

// stop ends the timer and its goroutine.
func (t *sysTimer) stop() { t.f.Close() }
