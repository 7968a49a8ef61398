package transport

import (
	"bytes"
	"net"
	"testing"
	"time"
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
