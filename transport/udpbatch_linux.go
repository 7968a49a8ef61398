package transport

import (
	"encoding/binary"
	"net/netip"
	"os"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// sysBatch reads with recvmmsg and writes with sendmmsg: up to ioBatch
// datagrams per system call, through headers, I/O vectors and addresses
// allocated once (golang.org/x/net's ReadBatch allocates each sender's
// address anew, which a server reading thousands of datagrams a second
// cannot afford).
type sysBatch struct {
	rc syscall.RawConn
	v6 bool // the socket is AF_INET6 (dual stack when bound to [::])

	rhdr  []unix.Mmsghdr
	riov  []unix.Iovec
	rname []unix.RawSockaddrInet6
	whdr  []unix.Mmsghdr
	wiov  []unix.Iovec
	wname []unix.RawSockaddrInet6 // large enough for either family

	// The system call's arguments and results, and the functions bound
	// once that RawConn runs (a closure made per call would allocate).
	count, n int
	err      error
	readF    func(fd uintptr) bool
	writeF   func(fd uintptr) bool
}

func (s *sysBatch) init(b *udpBatchIO) {
	s.rhdr, s.riov, s.rname = make([]unix.Mmsghdr, ioBatch), make([]unix.Iovec, ioBatch), make([]unix.RawSockaddrInet6, ioBatch)
	s.whdr, s.wiov, s.wname = make([]unix.Mmsghdr, ioBatch), make([]unix.Iovec, ioBatch), make([]unix.RawSockaddrInet6, ioBatch)
	for i := range s.rhdr {
		s.riov[i].Base = &b.rbuf[i][0]
		s.rhdr[i].Hdr.Iov = &s.riov[i]
		s.rhdr[i].Hdr.SetIovlen(1)
		s.rhdr[i].Hdr.Name = (*byte)(unsafe.Pointer(&s.rname[i]))
		s.whdr[i].Hdr.Iov = &s.wiov[i]
		s.whdr[i].Hdr.SetIovlen(1)
		s.whdr[i].Hdr.Name = (*byte)(unsafe.Pointer(&s.wname[i]))
	}
	s.readF, s.writeF = s.recvmmsg, s.sendmmsg
	rc, err := b.sock.SyscallConn()
	if err != nil {
		return // read and write then fail with the socket's error
	}
	s.rc = rc
	_ = rc.Control(func(fd uintptr) {
		if d, err := unix.GetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_DOMAIN); err == nil {
			s.v6 = d == unix.AF_INET6
		}
	})
}

func (s *sysBatch) recvmmsg(fd uintptr) bool {
	r, _, e := unix.Syscall6(unix.SYS_RECVMMSG, fd, uintptr(unsafe.Pointer(&s.rhdr[0])), uintptr(s.count), unix.MSG_DONTWAIT, 0, 0)
	return s.done(r, e)
}

func (s *sysBatch) sendmmsg(fd uintptr) bool {
	r, _, e := unix.Syscall6(unix.SYS_SENDMMSG, fd, uintptr(unsafe.Pointer(&s.whdr[0])), uintptr(s.count), unix.MSG_DONTWAIT, 0, 0)
	return s.done(r, e)
}

// done notes a system call's result; false asks RawConn to wait until
// the socket is ready and call again.
func (s *sysBatch) done(r uintptr, e syscall.Errno) bool {
	switch e {
	case 0:
		s.n, s.err = int(r), nil
	case unix.EAGAIN, unix.EINTR:
		return false
	default:
		s.n, s.err = 0, e
	}
	return true
}

// read reads up to ioBatch datagrams, waiting for the first.
func (b *udpBatchIO) read() (int, error) {
	s := &b.sys
	if s.rc == nil {
		return 0, os.ErrInvalid
	}
	for i := range s.rhdr {
		s.riov[i].SetLen(len(b.rbuf[i]))
		s.rhdr[i].Hdr.Namelen = unix.SizeofSockaddrInet6
		s.rhdr[i].Hdr.Flags = 0
	}
	s.count = ioBatch
	if err := s.rc.Read(s.readF); err != nil {
		return 0, err
	}
	if s.err != nil {
		return 0, os.NewSyscallError("recvmmsg", s.err)
	}
	for i := range s.n {
		b.rlen[i] = int(s.rhdr[i].Len)
		b.rfrom[i] = sockaddrPort(&s.rname[i])
	}
	return s.n, nil
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
func (s *sysBatch) putSockaddr(i int, to netip.AddrPort) uint32 {
	sa := &s.wname[i]
	raw := (*[unix.SizeofSockaddrInet6]byte)(unsafe.Pointer(sa))
	*sa = unix.RawSockaddrInet6{}
	binary.BigEndian.PutUint16(raw[2:4], to.Port())
	a := to.Addr()
	if !s.v6 {
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
	if s.rc == nil {
		return 0, os.ErrInvalid
	}
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
			s.whdr[i].Hdr.Namelen = s.putSockaddr(i, to[sent+i])
		}
		s.count = k
		if err := s.rc.Write(s.writeF); err != nil {
			return sent, err
		}
		if s.err != nil {
			return sent, os.NewSyscallError("sendmmsg", s.err)
		}
		if s.n <= 0 {
			return sent, os.NewSyscallError("sendmmsg", unix.EIO) // sent nothing, said nothing
		}
		sent += s.n
	}
	return sent, nil
}
