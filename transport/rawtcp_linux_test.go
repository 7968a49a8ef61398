package transport

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"testing"
	"time"
)

// rawPair connects a rawTCPConn (accepted) to a plain TCP client.
func rawPair(t *testing.T) (raw, peer net.Conn) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	rl := rawTCP(l)
	peer, err = net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	raw, err = rl.Accept()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := raw.(*rawTCPConn); !ok {
		t.Fatalf("accepted a %T", raw)
	}
	t.Cleanup(func() { raw.Close(); peer.Close() })
	return raw, peer
}

// TestRawTCPConnCarriesAStream writes far more than the socket buffers
// hold both ways, so writes wait in the poller, and checks every byte
// arrives in order.
func TestRawTCPConnCarriesAStream(t *testing.T) {
	raw, peer := rawPair(t)
	data := payload(8<<20, 3)
	for _, dir := range []struct {
		name     string
		from, to net.Conn
	}{{"raw writes", raw, peer}, {"raw reads", peer, raw}} {
		errc := make(chan error, 1)
		go func() {
			_, err := dir.from.Write(data)
			errc <- err
		}()
		got := make([]byte, len(data))
		// Read in small pieces, slower than the writer writes.
		for off := 0; off < len(got); {
			n, err := dir.to.Read(got[off:min(off+4096, len(got))])
			if err != nil {
				t.Fatalf("%s: read at %d: %v", dir.name, off, err)
			}
			off += n
		}
		if err := <-errc; err != nil {
			t.Fatalf("%s: write: %v", dir.name, err)
		}
		if !bytes.Equal(got, data) {
			t.Fatalf("%s: the stream arrived changed", dir.name)
		}
	}
}

// TestRawTCPConnEnds checks deadlines, the peer's close and a local
// close end reads and writes as net.TCPConn's do.
func TestRawTCPConnEnds(t *testing.T) {
	raw, peer := rawPair(t)
	raw.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
	_, err := raw.Read(make([]byte, 10))
	var ne net.Error
	if !errors.Is(err, os.ErrDeadlineExceeded) || !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("read past its deadline: %v", err)
	}
	raw.SetReadDeadline(time.Time{})
	peer.Write([]byte("last"))
	peer.Close()
	got, err := io.ReadAll(raw)
	if err != nil || string(got) != "last" {
		t.Fatalf("after the peer's close: %q, %v", got, err)
	}
	raw.Close()
	if _, err := raw.Read(make([]byte, 1)); !errors.Is(err, net.ErrClosed) {
		t.Errorf("read after Close: %v", err)
	}
	if _, err := raw.Write([]byte("x")); !errors.Is(err, net.ErrClosed) {
		t.Errorf("write after Close: %v", err)
	}
}

// TestRawTCPConnAllocatesNothing writes and reads a datagram's worth.
func TestRawTCPConnAllocatesNothing(t *testing.T) {
	raw, peer := rawPair(t)
	msg, buf := payload(300, 1), make([]byte, 4096)
	allocs := testing.AllocsPerRun(200, func() {
		if _, err := raw.Write(msg); err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(peer, buf[:len(msg)]); err != nil {
			t.Fatal(err)
		}
		if _, err := peer.Write(msg); err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(raw, buf[:len(msg)]); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per exchange", allocs)
	}
}
