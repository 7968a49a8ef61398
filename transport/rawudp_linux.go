package transport

import (
	"encoding/binary"
	"net"
	"os"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// rawUDPConn is the UDP socket a Web server's QUIC transport uses: a
// net.UDPConn whose WriteMsgUDP, which quic-go calls for every packet
// it sends, makes sendmsg(2) with syscall.RawSyscall on the
// non-blocking socket, waiting in the network poller when the socket
// is full, as net.UDPConn does. net.UDPConn makes the call through
// syscall.Syscall, which wakes the scheduler's monitor thread whenever
// it sleeps (see rawTCPConn), and encodes the address anew each time
// (an allocation per packet); this encodes it into a buffer of its own.
// Everything else is the net.UDPConn's.
type rawUDPConn struct {
	*net.UDPConn
	rc syscall.RawConn
	v6 bool // the socket is AF_INET6

	mu      sync.Mutex // one write at a time (as the socket's own lock)
	name    unix.RawSockaddrInet6
	iov     unix.Iovec
	hdr     unix.Msghdr
	n       int
	errno   syscall.Errno
	writeFn func(uintptr) bool
}

// rawUDP wraps c for quic-go, or returns it as it is if its descriptor
// cannot be reached.
func rawUDP(c *net.UDPConn) net.PacketConn {
	rc, err := c.SyscallConn()
	if err != nil {
		return c
	}
	r := &rawUDPConn{UDPConn: c, rc: rc}
	domain := -1
	if err := rc.Control(func(fd uintptr) {
		domain, _ = unix.GetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_DOMAIN)
	}); err != nil || (domain != unix.AF_INET && domain != unix.AF_INET6) {
		return c
	}
	r.v6 = domain == unix.AF_INET6
	r.hdr.Name = (*byte)(unsafe.Pointer(&r.name))
	r.hdr.Iov = &r.iov
	r.hdr.SetIovlen(1)
	r.writeFn = r.sendmsg
	return r
}

// WriteMsgUDP sends b with the control messages oob to addr.
func (c *rawUDPConn) WriteMsgUDP(b, oob []byte, addr *net.UDPAddr) (n, oobn int, err error) {
	if addr == nil {
		return c.UDPConn.WriteMsgUDP(b, oob, addr)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.putAddr(addr) {
		return c.UDPConn.WriteMsgUDP(b, oob, addr) // its error, as net gives it
	}
	c.iov.Base = nil
	if len(b) > 0 {
		c.iov.Base = &b[0]
	}
	c.iov.SetLen(len(b))
	c.hdr.Control = nil
	if len(oob) > 0 {
		c.hdr.Control = &oob[0]
	}
	c.hdr.SetControllen(len(oob))
	c.n, c.errno = 0, 0
	werr := c.rc.Write(c.writeFn)
	c.iov.Base, c.hdr.Control = nil, nil
	switch {
	case werr != nil:
		if oe, ok := werr.(*net.OpError); ok {
			werr = oe.Err
		}
		return 0, 0, &net.OpError{Op: "write", Net: "udp", Source: c.LocalAddr(), Addr: addr, Err: werr}
	case c.errno != 0:
		return 0, 0, &net.OpError{Op: "write", Net: "udp", Source: c.LocalAddr(), Addr: addr, Err: os.NewSyscallError("sendmsg", c.errno)}
	}
	return c.n, len(oob), nil
}

func (c *rawUDPConn) sendmsg(fd uintptr) bool {
	for {
		r, _, e := syscall.RawSyscall(unix.SYS_SENDMSG, fd, uintptr(unsafe.Pointer(&c.hdr)), 0)
		switch e {
		case 0:
			c.n = int(r)
			return true
		case unix.EINTR:
			continue
		case unix.EAGAIN:
			return false // wait in the poller
		default:
			c.errno = e
			return true
		}
	}
}

// putAddr encodes addr as the socket's family wants it (an IPv4 address
// as IPv4-mapped IPv6 on an AF_INET6 socket); false if it cannot.
func (c *rawUDPConn) putAddr(addr *net.UDPAddr) bool {
	sa := &c.name
	raw := (*[unix.SizeofSockaddrInet6]byte)(unsafe.Pointer(sa))
	*sa = unix.RawSockaddrInet6{}
	binary.BigEndian.PutUint16(raw[2:4], uint16(addr.Port))
	ip4 := addr.IP.To4()
	switch {
	case !c.v6 && ip4 != nil:
		sa.Family = unix.AF_INET
		copy(raw[4:8], ip4)
		c.hdr.Namelen = unix.SizeofSockaddrInet4
	case c.v6 && addr.Zone == "" && (ip4 != nil || len(addr.IP) == net.IPv6len):
		// (A scoped address goes through net, which knows its interface.)
		sa.Family = unix.AF_INET6
		copy(sa.Addr[:], addr.IP.To16())
		c.hdr.Namelen = unix.SizeofSockaddrInet6
	default:
		return false
	}
	return true
}
