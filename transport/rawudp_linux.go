package transport

import (
	"encoding/binary"
	"errors"
	"net"
	"net/netip"
	"os"
	"strconv"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/net/ipv4"
	"golang.org/x/sys/unix"
)

// rawUDPConn is the UDP socket a Web server's QUIC transport uses: a
// net.UDPConn whose WriteMsgUDP and ReadBatch, which quic-go calls for
// every packet it sends and every batch it reads, make sendmsg(2) and
// recvmmsg(2) with syscall.RawSyscall on the non-blocking socket,
// waiting in the network poller when it is not ready, as net.UDPConn
// and golang.org/x/net do. They make the calls through syscall.Syscall,
// which wakes the scheduler's monitor thread whenever it sleeps (see
// rawTCPConn), and allocate per packet: the destination's encoding for
// each send, the sender's address for each packet read. This encodes
// into buffers of its own and keeps each sender's address (up to
// maxUDPAddrs of them). Everything else is the net.UDPConn's.
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

	rmu    sync.Mutex // one read at a time
	rhdr   []unix.Mmsghdr
	riov   []unix.Iovec
	rname  []unix.RawSockaddrInet6
	rcount int
	rflags int
	rn     int
	rerrno syscall.Errno
	readFn func(uintptr) bool
	addrs  map[udpAddrKey]*net.UDPAddr
}

// maxUDPAddrs bounds the senders' addresses a rawUDPConn keeps: past
// it, it forgets them all (spoofed sources cost memory no further).
const maxUDPAddrs = 4096

type udpAddrKey struct {
	ap   netip.AddrPort
	zone uint32
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
	r.writeFn, r.readFn = r.sendmsg, r.recvmmsg
	r.addrs = map[udpAddrKey]*net.UDPAddr{}
	return r
}

// ReadBatch reads up to len(ms) packets into ms[i].Buffers[0], with
// their control messages into ms[i].OOB, waiting for the first, as
// golang.org/x/net's ipv4.PacketConn.ReadBatch does (quic-go uses it
// when the connection has it).
func (c *rawUDPConn) ReadBatch(ms []ipv4.Message, flags int) (int, error) {
	c.rmu.Lock()
	defer c.rmu.Unlock()
	if len(ms) > len(c.rhdr) {
		c.rhdr, c.riov, c.rname = make([]unix.Mmsghdr, len(ms)), make([]unix.Iovec, len(ms)), make([]unix.RawSockaddrInet6, len(ms))
	}
	for i := range ms {
		m, h := &ms[i], &c.rhdr[i].Hdr
		if len(m.Buffers) != 1 || len(m.Buffers[0]) == 0 {
			return 0, c.opError("read", errors.New("transport: ReadBatch takes one non-empty buffer per message"))
		}
		c.riov[i].Base = &m.Buffers[0][0]
		c.riov[i].SetLen(len(m.Buffers[0]))
		h.Iov = &c.riov[i]
		h.SetIovlen(1)
		h.Name = (*byte)(unsafe.Pointer(&c.rname[i]))
		h.Namelen = unix.SizeofSockaddrInet6
		h.Control = nil
		if len(m.OOB) > 0 {
			h.Control = &m.OOB[0]
		}
		h.SetControllen(len(m.OOB))
		h.Flags = 0
	}
	c.rcount, c.rflags, c.rn, c.rerrno = len(ms), flags, 0, 0
	err := c.rc.Read(c.readFn)
	for i := range ms {
		c.riov[i].Base, c.rhdr[i].Hdr.Control = nil, nil
	}
	switch {
	case err != nil:
		return 0, c.opError("read", err)
	case c.rerrno != 0:
		return 0, c.opError("read", os.NewSyscallError("recvmmsg", c.rerrno))
	}
	for i := range c.rn {
		h := &c.rhdr[i]
		ms[i].N, ms[i].NN, ms[i].Flags = int(h.Len), int(h.Hdr.Controllen), int(h.Hdr.Flags)
		ms[i].Addr = c.senderAddr(&c.rname[i])
	}
	return c.rn, nil
}

func (c *rawUDPConn) recvmmsg(fd uintptr) bool {
	return rawPoll(&c.rn, &c.rerrno, unix.SYS_RECVMMSG, fd, uintptr(unsafe.Pointer(&c.rhdr[0])), uintptr(c.rcount), uintptr(c.rflags))
}

// senderAddr is a packet's source as x/net gives it (the IP in its
// 16-byte form), the same *net.UDPAddr for the same sender: none of
// its readers changes it.
func (c *rawUDPConn) senderAddr(sa *unix.RawSockaddrInet6) *net.UDPAddr {
	raw := (*[unix.SizeofSockaddrInet6]byte)(unsafe.Pointer(sa))
	port := binary.BigEndian.Uint16(raw[2:4])
	var k udpAddrKey
	if sa.Family == unix.AF_INET {
		k.ap = netip.AddrPortFrom(netip.AddrFrom4([4]byte(raw[4:8])), port)
	} else {
		k.ap, k.zone = netip.AddrPortFrom(netip.AddrFrom16(sa.Addr), port), sa.Scope_id
	}
	if a, ok := c.addrs[k]; ok {
		return a
	}
	a := &net.UDPAddr{IP: net.IP(k.ap.Addr().AsSlice()).To16(), Port: int(port)}
	if k.zone != 0 {
		a.Zone = strconv.FormatUint(uint64(k.zone), 10)
		if ifi, err := net.InterfaceByIndex(int(k.zone)); err == nil {
			a.Zone = ifi.Name
		}
	}
	if len(c.addrs) >= maxUDPAddrs {
		clear(c.addrs)
	}
	c.addrs[k] = a
	return a
}

// opError reports err as net.UDPConn would.
func (c *rawUDPConn) opError(op string, err error) error {
	if oe, ok := err.(*net.OpError); ok {
		err = oe.Err
	}
	return &net.OpError{Op: op, Net: "udp", Source: c.LocalAddr(), Err: err}
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
	return rawPoll(&c.n, &c.errno, unix.SYS_SENDMSG, fd, uintptr(unsafe.Pointer(&c.hdr)), 0, 0)
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
