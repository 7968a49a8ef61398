package transport

import (
	"bytes"
	"net"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/net/ipv4"
	"golang.org/x/sys/unix"
)

// TestRawUDPConnWrites sends with rawUDPConn's WriteMsgUDP from an
// IPv4 socket and from a dual-stack IPv6 one, to IPv4 and IPv6 peers,
// and checks each datagram arrives intact from the sending socket, and
// that a write allocates nothing.
func TestRawUDPConnWrites(t *testing.T) {
	for _, tc := range []struct{ from, to string }{
		{"127.0.0.1:0", "127.0.0.1:0"},
		{"[::]:0", "127.0.0.1:0"},
		{"[::]:0", "[::1]:0"},
	} {
		from, err := net.ListenUDP("udp", mustUDPAddr(t, tc.from))
		if err != nil {
			t.Skipf("%s: %v", tc.from, err)
		}
		defer from.Close()
		to, err := net.ListenUDP("udp", mustUDPAddr(t, tc.to))
		if err != nil {
			t.Skipf("%s: %v", tc.to, err)
		}
		defer to.Close()
		raw, ok := rawUDP(from).(*rawUDPConn)
		if !ok {
			t.Fatalf("%s: not wrapped", tc.from)
		}
		dst := to.LocalAddr().(*net.UDPAddr)
		msg, buf := payload(500, 9), make([]byte, 2048)
		allocs := testing.AllocsPerRun(100, func() {
			n, oobn, err := raw.WriteMsgUDP(msg, nil, dst)
			if err != nil || n != len(msg) || oobn != 0 {
				t.Fatalf("%s to %s: wrote %d, %d: %v", tc.from, tc.to, n, oobn, err)
			}
			to.SetReadDeadline(time.Now().Add(5 * time.Second))
			k, _, _, src, err := to.ReadMsgUDPAddrPort(buf, nil)
			if err != nil || !bytes.Equal(buf[:k], msg) {
				t.Fatalf("%s to %s: received %d bytes: %v", tc.from, tc.to, k, err)
			}
			if int(src.Port()) != from.LocalAddr().(*net.UDPAddr).Port {
				t.Fatalf("%s to %s: from port %d", tc.from, tc.to, src.Port())
			}
		})
		if allocs != 0 {
			t.Errorf("%s to %s: %v allocations per datagram", tc.from, tc.to, allocs)
		}
	}
}

func mustUDPAddr(t *testing.T, s string) *net.UDPAddr {
	t.Helper()
	a, err := net.ResolveUDPAddr("udp", s)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestRawUDPConnReadBatch reads batches of datagrams from IPv4 and IPv6
// senders with rawUDPConn's ReadBatch, with a control message asked for
// each (the TOS byte): each arrives intact with its control message and
// its sender's address, the same *net.UDPAddr each time, and reading
// allocates nothing (nor, on Linux, do the test's sends).
func TestRawUDPConnReadBatch(t *testing.T) {
	for _, tc := range []struct{ at, from string }{
		{"127.0.0.1:0", "127.0.0.1:0"},
		{"[::]:0", "127.0.0.1:0"},
		{"[::]:0", "[::1]:0"},
	} {
		sock, err := net.ListenUDP("udp", mustUDPAddr(t, tc.at))
		if err != nil {
			t.Skipf("%s: %v", tc.at, err)
		}
		defer sock.Close()
		raw, ok := rawUDP(sock).(*rawUDPConn)
		if !ok {
			t.Fatalf("%s: not wrapped", tc.at)
		}
		raw.rc.Control(func(fd uintptr) {
			unix.SetsockoptInt(int(fd), unix.IPPROTO_IP, unix.IP_RECVTOS, 1)
			unix.SetsockoptInt(int(fd), unix.IPPROTO_IPV6, unix.IPV6_RECVTCLASS, 1)
		})
		from, err := net.ListenUDP("udp", mustUDPAddr(t, tc.from))
		if err != nil {
			t.Skipf("%s: %v", tc.from, err)
		}
		defer from.Close()
		to := &net.UDPAddr{IP: from.LocalAddr().(*net.UDPAddr).IP, Port: sock.LocalAddr().(*net.UDPAddr).Port}
		ms := make([]ipv4.Message, 8)
		for i := range ms {
			ms[i].Buffers, ms[i].OOB = [][]byte{make([]byte, 1500)}, make([]byte, 128)
		}
		var first *net.UDPAddr
		const n = 5
		var sent [2][n][]byte
		for r := range sent {
			for k := range n {
				sent[r][k] = payload(100+k, byte(r))
			}
		}
		round := 0
		toAP := to.AddrPort()
		read := func() {
			round = 1 - round
			for k := range n {
				if _, err := from.WriteToUDPAddrPort(sent[round][k], toAP); err != nil {
					t.Fatal(err)
				}
			}
			for got := 0; got < n; {
				k, err := raw.ReadBatch(ms, 0)
				if err != nil {
					t.Fatalf("%s from %s: %v", tc.at, tc.from, err)
				}
				for i := range k {
					m := ms[i]
					a := m.Addr.(*net.UDPAddr)
					if !bytes.Equal(m.Buffers[0][:m.N], sent[round][got]) || m.NN == 0 || a.Port != from.LocalAddr().(*net.UDPAddr).Port || len(a.IP) != net.IPv6len {
						t.Fatalf("%s from %s: datagram %d: %d bytes, %d of control, from %v", tc.at, tc.from, got, m.N, m.NN, a)
					}
					if first == nil {
						first = a
					} else if a != first {
						t.Fatalf("%s from %s: a new address for the same sender", tc.at, tc.from)
					}
					got++
				}
			}
		}
		read()
		if allocs := testing.AllocsPerRun(50, read); allocs != 0 {
			t.Errorf("%s from %s: %v allocations per batch of 5", tc.at, tc.from, allocs)
		}
	}
}

// TestRawUDPConnForgetsSenders checks the senders' addresses kept stay
// bounded however many senders there are (spoofed ones, say), and each
// is still reported right.
func TestRawUDPConnForgetsSenders(t *testing.T) {
	sock, err := net.ListenUDP("udp", mustUDPAddr(t, "127.0.0.1:0"))
	if err != nil {
		t.Fatal(err)
	}
	defer sock.Close()
	raw := rawUDP(sock).(*rawUDPConn)
	for i := range 3 * maxUDPAddrs {
		var sa unix.RawSockaddrInet6
		b := (*[unix.SizeofSockaddrInet6]byte)(unsafe.Pointer(&sa))
		sa.Family = unix.AF_INET
		b[2], b[3] = byte(i>>8), byte(i)
		b[4], b[5], b[6], b[7] = 10, byte(i>>16), byte(i>>8), byte(i)
		a := raw.senderAddr(&sa)
		if want := net.IPv4(10, byte(i>>16), byte(i>>8), byte(i)); !a.IP.Equal(want) || a.Port != i&0xffff {
			t.Fatalf("sender %d reported as %v", i, a)
		}
		if len(raw.addrs) > maxUDPAddrs {
			t.Fatalf("%d addresses kept", len(raw.addrs))
		}
	}
}
