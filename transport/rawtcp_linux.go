package transport

import (
	"io"
	"net"
	"os"
	"sync"
	"syscall"
	"unsafe"
)

// rawTCPListener accepts TCP connections whose reads and writes make
// their system calls raw (see rawTCPConn).
type rawTCPListener struct{ *net.TCPListener }

// rawTCP wraps l's connections as rawTCPConns where it can.
func rawTCP(l net.Listener) net.Listener {
	if t, ok := l.(*net.TCPListener); ok {
		return rawTCPListener{t}
	}
	return l
}

func (l rawTCPListener) Accept() (net.Conn, error) {
	c, err := l.AcceptTCP()
	if err != nil {
		return nil, err
	}
	return newRawTCPConn(c), nil
}

// rawTCPConn is a TCP connection whose Read and Write call read(2) and
// write(2) on the non-blocking socket with syscall.RawSyscall, waiting
// in the network poller when the socket is not ready, as net.TCPConn
// does. net.TCPConn makes the same calls through syscall.Syscall,
// which tells the Go scheduler the thread may block: while the
// scheduler's monitor thread sleeps, each such call wakes it, and it
// then polls every 20 µs for a millisecond or more. A WebSocket session
// reads and writes a few hundred bytes per datagram, so that cost a
// live WebSocket server about a fifth of its CPU. Deadlines and Close
// act as on net.TCPConn (the poller enforces them); neither direction
// allocates.
type rawTCPConn struct {
	*net.TCPConn
	rc syscall.RawConn

	rmu     sync.Mutex
	rbuf    []byte
	rn      int
	rerr    syscall.Errno
	readFn  func(uintptr) bool
	wmu     sync.Mutex
	wbuf    []byte
	wn      int
	werr    syscall.Errno
	writeFn func(uintptr) bool
}

func newRawTCPConn(c *net.TCPConn) net.Conn {
	rc, err := c.SyscallConn()
	if err != nil {
		return c
	}
	r := &rawTCPConn{TCPConn: c, rc: rc}
	r.readFn, r.writeFn = r.doRead, r.doWrite
	return r
}

func (c *rawTCPConn) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	c.rmu.Lock()
	defer c.rmu.Unlock()
	c.rbuf, c.rn, c.rerr = p, 0, 0
	err := c.rc.Read(c.readFn)
	c.rbuf = nil
	switch {
	case err != nil:
		return 0, c.opError("read", err)
	case c.rerr != 0:
		return 0, c.opError("read", os.NewSyscallError("read", c.rerr))
	case c.rn == 0:
		return 0, io.EOF
	}
	return c.rn, nil
}

func (c *rawTCPConn) doRead(fd uintptr) bool {
	return rawPoll(&c.rn, &c.rerr, syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&c.rbuf[0])), uintptr(len(c.rbuf)), 0)
}

func (c *rawTCPConn) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.wbuf, c.wn, c.werr = p, 0, 0
	err := c.rc.Write(c.writeFn)
	c.wbuf = nil
	switch {
	case err != nil:
		return c.wn, c.opError("write", err)
	case c.werr != 0:
		return c.wn, c.opError("write", os.NewSyscallError("write", c.werr))
	}
	return c.wn, nil
}

func (c *rawTCPConn) doWrite(fd uintptr) bool {
	for c.wn < len(c.wbuf) {
		// A broken connection fails with EPIPE: the runtime ignores
		// SIGPIPE for descriptors other than standard output and error.
		var n int
		if !rawPoll(&n, &c.werr, syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&c.wbuf[c.wn])), uintptr(len(c.wbuf)-c.wn), 0) {
			return false
		}
		if c.werr != 0 {
			return true
		}
		c.wn += n
	}
	return true
}

// rawPoll makes a non-blocking system call with syscall.RawSyscall6,
// which the scheduler does not see, for a RawConn's Read or Write:
// false (wait in the poller) when it would block, else true with its
// result in *r or its error in *errno. An interrupted call is made
// again.
func rawPoll(r *int, errno *syscall.Errno, trap, a1, a2, a3, a4 uintptr) bool {
	for {
		n, _, e := syscall.RawSyscall6(trap, a1, a2, a3, a4, 0, 0)
		switch e {
		case 0:
			*r = int(n)
			return true
		case syscall.EINTR:
		case syscall.EAGAIN:
			return false
		default:
			*errno = e
			return true
		}
	}
}

// opError reports err as net.TCPConn would, keeping what callers test
// with errors.Is (net.ErrClosed, os.ErrDeadlineExceeded) and whether
// it is a timeout.
func (c *rawTCPConn) opError(op string, err error) error {
	if oe, ok := err.(*net.OpError); ok {
		err = oe.Err
	}
	return &net.OpError{Op: op, Net: "tcp", Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: err}
}
