package transport

import (
	"encoding/binary"
	"net"
	"net/netip"
	"os"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// canPoll: a listener's socket can be read without waiting (polled) by
// the goroutines that consume its datagrams, each before its tick.
const canPoll = true

// udpSock is a listener's socket, kept out of the Go runtime's network
// poller: a socket in the poller wakes a thread for every datagram that
// arrives, whether or not a goroutine waits for it, and a server whose
// matches read their datagrams once per tick would pay that wake-up per
// datagram all the same. So the listener takes a copy of the socket's
// descriptor and closes the original (which leaves the poller). The
// copy blocks: the reader goroutine waits in recvmmsg (with a receive
// timeout of pollCheck, so it looks at the time now and then) while no
// consumer polls, and consumers read it with MSG_DONTWAIT.
//
// Every call on fd holds mu for reading; close holds it for writing,
// so the number is never closed under a call (and reused by another
// file meanwhile).
type udpSock struct {
	mu     sync.RWMutex
	fd     int
	v6     bool // AF_INET6 (dual stack when bound to [::])
	closed bool
	once   sync.Once
}

// takeSock takes c's socket out of Go's poller (see udpSock); c is
// closed either way.
func takeSock(c *net.UDPConn) (*udpSock, error) {
	defer c.Close() // the original leaves the poller; the copy was never in it
	rc, err := c.SyscallConn()
	if err != nil {
		return nil, err
	}
	fd, derr := -1, error(nil)
	if err := rc.Control(func(f uintptr) { fd, derr = unix.FcntlInt(f, unix.F_DUPFD_CLOEXEC, 0) }); err != nil {
		return nil, err
	}
	if derr != nil {
		return nil, os.NewSyscallError("fcntl", derr)
	}
	s := &udpSock{fd: fd}
	if err := s.setup(); err != nil {
		unix.Close(fd)
		return nil, err
	}
	return s, nil
}

func (s *udpSock) setup() error {
	if err := unix.SetNonblock(s.fd, false); err != nil {
		return os.NewSyscallError("fcntl", err)
	}
	tv := unix.NsecToTimeval(int64(pollCheck))
	if err := unix.SetsockoptTimeval(s.fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv); err != nil {
		return os.NewSyscallError("setsockopt", err)
	}
	// Without it (an old kernel) arrivals are the read's time.
	_ = unix.SetsockoptInt(s.fd, unix.SOL_SOCKET, unix.SO_TIMESTAMPNS, 1)
	// Datagrams wait in the kernel for the next tick's read: room for a
	// few ticks of a flood (the kernel caps it at net.core.rmem_max).
	_ = unix.SetsockoptInt(s.fd, unix.SOL_SOCKET, unix.SO_RCVBUF, recvBuffer)
	d, err := unix.GetsockoptInt(s.fd, unix.SOL_SOCKET, unix.SO_DOMAIN)
	if err != nil {
		return os.NewSyscallError("getsockopt", err)
	}
	s.v6 = d == unix.AF_INET6
	return nil
}

// close wakes a reader waiting in recvmmsg, waits for the calls under
// way and closes the descriptor; later calls fail with net.ErrClosed.
func (s *udpSock) close() error {
	var err error
	s.once.Do(func() {
		s.mu.RLock()
		_ = unix.Shutdown(s.fd, unix.SHUT_RDWR) // an unconnected UDP socket says ENOTCONN, and wakes its readers
		s.mu.RUnlock()
		s.mu.Lock()
		defer s.mu.Unlock()
		s.closed = true
		err = unix.Close(s.fd)
	})
	return err
}

// mmsg makes one recvmmsg or sendmmsg of count headers: without wait as
// a raw, non-blocking system call; with it as one the scheduler sees,
// which blocks (a read, until a datagram or the receive timeout; a
// write, until the send buffer has room). Raw calls matter: a system
// call the scheduler sees wakes its monitor thread (sysmon) if the
// process was idle, which then polls every 20 µs for a millisecond or
// more; on a server that did it every tick that cost more CPU than the
// reads and writes. A read finding nothing returns 0.
func (s *udpSock) mmsg(trap uintptr, h *unix.Mmsghdr, count int, wait bool) (int, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return 0, net.ErrClosed
	}
	for {
		var r uintptr
		var e syscall.Errno
		if wait {
			// A read waits for the first datagram only (MSG_WAITFORONE).
			flags := uintptr(0)
			if trap == unix.SYS_RECVMMSG {
				flags = unix.MSG_WAITFORONE
			}
			r, _, e = unix.Syscall6(trap, uintptr(s.fd), uintptr(unsafe.Pointer(h)), uintptr(count), flags, 0, 0)
		} else {
			r, _, e = unix.RawSyscall6(trap, uintptr(s.fd), uintptr(unsafe.Pointer(h)), uintptr(count), unix.MSG_DONTWAIT, 0, 0)
		}
		switch e {
		case 0:
			return int(r), nil
		case unix.EINTR:
		case unix.EAGAIN:
			if trap == unix.SYS_SENDMMSG && !wait {
				wait = true // the send buffer is full: wait for room
				continue
			}
			return 0, nil
		default:
			name := "recvmmsg"
			if trap == unix.SYS_SENDMMSG {
				name = "sendmmsg"
			}
			return 0, os.NewSyscallError(name, e)
		}
	}
}

// sysBatch reads with recvmmsg and writes with sendmmsg: up to ioBatch
// datagrams per system call, through headers, I/O vectors and addresses
// allocated once (golang.org/x/net's ReadBatch allocates each sender's
// address anew, which a server reading thousands of datagrams a second
// cannot afford). The kernel stamps each datagram's arrival
// (SO_TIMESTAMPNS), so a datagram read a tick after it arrived keeps
// its arrival time.
type sysBatch struct {
	rhdr  []unix.Mmsghdr
	riov  []unix.Iovec
	rname []unix.RawSockaddrInet6
	rctl  []byte // each datagram's control messages, ctlLen bytes apart
	whdr  []unix.Mmsghdr
	wiov  []unix.Iovec
	wname []unix.RawSockaddrInet6 // large enough for either family
}

// recvBuffer is the receive buffer a listener's socket asks for.
const recvBuffer = 4 << 20

// ctlLen is the room for one datagram's control messages: its arrival
// time.
var ctlLen = unix.CmsgSpace(int(unsafe.Sizeof(unix.Timespec{})))

func (s *sysBatch) init(b *udpBatchIO) {
	s.rhdr, s.riov, s.rname = make([]unix.Mmsghdr, ioBatch), make([]unix.Iovec, ioBatch), make([]unix.RawSockaddrInet6, ioBatch)
	s.whdr, s.wiov, s.wname = make([]unix.Mmsghdr, ioBatch), make([]unix.Iovec, ioBatch), make([]unix.RawSockaddrInet6, ioBatch)
	s.rctl = make([]byte, ioBatch*ctlLen)
	for i := range s.rhdr {
		s.riov[i].Base = &b.rbuf[i][0]
		s.rhdr[i].Hdr.Iov = &s.riov[i]
		s.rhdr[i].Hdr.SetIovlen(1)
		s.rhdr[i].Hdr.Name = (*byte)(unsafe.Pointer(&s.rname[i]))
		s.rhdr[i].Hdr.Control = &s.rctl[i*ctlLen]
		s.whdr[i].Hdr.Iov = &s.wiov[i]
		s.whdr[i].Hdr.SetIovlen(1)
		s.whdr[i].Hdr.Name = (*byte)(unsafe.Pointer(&s.wname[i]))
	}
}

// read reads up to ioBatch datagrams: with wait, waiting for the first;
// without, only those already there (0 if none).
func (b *udpBatchIO) read(wait bool) (int, error) {
	s := &b.sys
	for i := range s.rhdr {
		s.riov[i].SetLen(len(b.rbuf[i]))
		s.rhdr[i].Hdr.Namelen = unix.SizeofSockaddrInet6
		s.rhdr[i].Hdr.SetControllen(ctlLen)
		s.rhdr[i].Hdr.Flags = 0
	}
	n, err := b.sock.mmsg(unix.SYS_RECVMMSG, &s.rhdr[0], ioBatch, wait)
	if err != nil {
		return 0, err
	}
	// The kernel stamps arrivals on the wall clock; this read's instant,
	// on both clocks, places them on the monotonic one.
	now := time.Now()
	mono, wall := int64(now.Sub(epoch)), now.UnixNano()
	for i := range n {
		h := &s.rhdr[i].Hdr
		b.rlen[i] = int(s.rhdr[i].Len)
		b.rfrom[i] = sockaddrPort(&s.rname[i])
		b.rat[i] = mono
		if ns, ok := stamp(s.rctl[i*ctlLen : i*ctlLen+int(h.Controllen)]); ok {
			// A wall clock stepped since keeps the arrival within the
			// last second, never after the read.
			b.rat[i] = mono - min(max(wall-ns, 0), int64(time.Second))
		}
	}
	return n, nil
}

// stamp finds the arrival time (SCM_TIMESTAMPNS, Unix nanoseconds) in
// one datagram's control messages.
func stamp(ctl []byte) (int64, bool) {
	hl := unix.CmsgLen(0)
	for len(ctl) >= hl {
		h := (*unix.Cmsghdr)(unsafe.Pointer(&ctl[0]))
		n := int(h.Len)
		if n < hl || n > len(ctl) {
			return 0, false
		}
		if h.Level == unix.SOL_SOCKET && h.Type == unix.SCM_TIMESTAMPNS && n-hl >= int(unsafe.Sizeof(unix.Timespec{})) {
			ts := (*unix.Timespec)(unsafe.Pointer(&ctl[hl]))
			return ts.Nano(), true
		}
		ctl = ctl[min(unix.CmsgSpace(n-hl), len(ctl)):]
	}
	return 0, false
}

// sockaddrPort reads a sockaddr_in or sockaddr_in6.
func sockaddrPort(sa *unix.RawSockaddrInet6) netip.AddrPort {
	raw := (*[unix.SizeofSockaddrInet6]byte)(unsafe.Pointer(sa))
	port := binary.BigEndian.Uint16(raw[2:4])
	if sa.Family == unix.AF_INET {
		return netip.AddrPortFrom(netip.AddrFrom4([4]byte(raw[4:8])), port)
	}
	return netip.AddrPortFrom(netip.AddrFrom16(sa.Addr).Unmap(), port)
}

// putSockaddr writes to as the socket's family wants it: an IPv4
// address as IPv4-mapped IPv6 on an AF_INET6 socket.
func (s *sysBatch) putSockaddr(i int, to netip.AddrPort, v6 bool) uint32 {
	sa := &s.wname[i]
	raw := (*[unix.SizeofSockaddrInet6]byte)(unsafe.Pointer(sa))
	*sa = unix.RawSockaddrInet6{}
	binary.BigEndian.PutUint16(raw[2:4], to.Port())
	a := to.Addr()
	if !v6 {
		sa.Family = unix.AF_INET
		a4 := a.Unmap().As4()
		copy(raw[4:8], a4[:])
		return unix.SizeofSockaddrInet4
	}
	sa.Family = unix.AF_INET6
	sa.Addr = a.As16()
	return unix.SizeofSockaddrInet6
}

// write sends ps[i] to to[i], ioBatch datagrams per system call, and
// returns how many were sent before the first error.
func (b *udpBatchIO) write(ps [][]byte, to []netip.AddrPort) (int, error) {
	s := &b.sys
	sent := 0
	for sent < len(ps) {
		k := min(len(ps)-sent, ioBatch)
		for i := range k {
			p := ps[sent+i]
			if len(p) == 0 {
				s.wiov[i].Base = nil
			} else {
				s.wiov[i].Base = &p[0]
			}
			s.wiov[i].SetLen(len(p))
			s.whdr[i].Hdr.Namelen = s.putSockaddr(i, to[sent+i], b.sock.v6)
		}
		n, err := b.sock.mmsg(unix.SYS_SENDMMSG, &s.whdr[0], k, false)
		if err != nil {
			return sent, err
		}
		if n <= 0 {
			return sent, os.NewSyscallError("sendmmsg", unix.EIO) // sent nothing, said nothing
		}
		sent += n
	}
	return sent, nil
}
