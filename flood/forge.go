package flood

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"net/netip"

	"golang.org/x/net/ipv4"
)

// forger sends UDP datagrams whose source address is another host's, as
// an attacker on the same network forges a player's: through a raw IPv4
// socket, which writes the IP header itself. The kernel lets only root
// (or a process with CAP_NET_RAW) open one.
type forger struct {
	raw      *ipv4.RawConn
	src, dst netip.AddrPort
	buf      []byte
}

func newForger(from string, to *net.UDPAddr) (*forger, error) {
	src, err := netip.ParseAddrPort(from)
	if err != nil {
		return nil, fmt.Errorf("flood: spoofed source %q: want IPv4 HOST:PORT: %w", from, err)
	}
	dst := to.AddrPort()
	src = netip.AddrPortFrom(src.Addr().Unmap(), src.Port())
	dst = netip.AddrPortFrom(dst.Addr().Unmap(), dst.Port())
	if !src.Addr().Is4() || !dst.Addr().Is4() {
		return nil, errors.New("flood: spoofing needs IPv4 addresses on both ends")
	}
	pc, err := net.ListenPacket("ip4:udp", "0.0.0.0")
	if err != nil {
		return nil, fmt.Errorf("flood: a raw socket to forge source addresses (needs root or CAP_NET_RAW): %w", err)
	}
	raw, err := ipv4.NewRawConn(pc)
	if err != nil {
		pc.Close()
		return nil, fmt.Errorf("flood: raw socket: %w", err)
	}
	return &forger{raw: raw, src: src, dst: dst}, nil
}

// send sends payload b as a UDP datagram from f.src to f.dst. The UDP
// checksum is left 0, which IPv4 allows (no checksum); the kernel fills
// in the IP header's checksum and id.
func (f *forger) send(b []byte) error {
	f.buf = f.buf[:0]
	f.buf = binary.BigEndian.AppendUint16(f.buf, f.src.Port())
	f.buf = binary.BigEndian.AppendUint16(f.buf, f.dst.Port())
	f.buf = binary.BigEndian.AppendUint16(f.buf, uint16(8+len(b)))
	f.buf = binary.BigEndian.AppendUint16(f.buf, 0)
	f.buf = append(f.buf, b...)
	src, dst := f.src.Addr().As4(), f.dst.Addr().As4()
	h := &ipv4.Header{
		Version: ipv4.Version, Len: ipv4.HeaderLen, TotalLen: ipv4.HeaderLen + len(f.buf),
		TTL: 64, Protocol: 17, Src: net.IP(src[:]), Dst: net.IP(dst[:]),
	}
	return f.raw.WriteTo(h, f.buf, nil)
}

func (f *forger) close() { f.raw.Close() }
