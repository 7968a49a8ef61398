package probe

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lagkit/lagkit/transport"
)

// TestSealedMeasurement: a server that seals hands the client, with the
// round trip, a seal that opens under the shared key for that ticket,
// round trip and host, and for nothing else: another round trip,
// ticket, host or key is refused with ErrSeal.
func TestSealedMeasurement(t *testing.T) {
	key := SealKey([]byte("a secret the host and the lobby share"))
	const host = "node-1.example:7010"
	at := time.UnixMilli(1_800_000_000_123)
	w, _ := serve(t, &Server{Pings: 3, Seal: func(ticket string, rtt time.Duration) string {
		return Seal(key, Result{Ticket: ticket, Host: host, RTT: rtt, At: at})
	}})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := transport.Dial(ctx, "wss://"+w.Addr(), transport.DialOptions{TLS: transport.ClientTLS{CertHash: w.CertHash()}})
	if err != nil {
		t.Fatal(err)
	}
	rtt, seal, err := MeasureSealed(ctx, c, "t-ok")
	c.Close("done")
	if err != nil {
		t.Fatal(err)
	}
	got, err := Open(key, "t-ok", host, rtt, seal)
	if err != nil || !got.Equal(at) {
		t.Fatalf("open %q: %v, %v", seal, got, err)
	}
	for _, tc := range []struct {
		name        string
		key         []byte
		ticket, hst string
		rtt         time.Duration
	}{
		{"shorter round trip", key, "t-ok", host, rtt - time.Microsecond},
		{"another ticket", key, "t-other", host, rtt},
		{"another host", key, "t-ok", "node-2.example:7010", rtt},
		{"another key", SealKey([]byte("not the lobby's")), "t-ok", host, rtt},
	} {
		if _, err := Open(tc.key, tc.ticket, tc.hst, tc.rtt, seal); !errors.Is(err, ErrSeal) {
			t.Errorf("%s: %v, want ErrSeal", tc.name, err)
		}
	}
	for _, bad := range []string{"", "x", "12.", "abc.def", "1.!!"} {
		if _, err := Open(key, "t-ok", host, rtt, bad); err == nil {
			t.Errorf("seal %q opened", bad)
		}
	}
	// A server that does not seal gives none.
	w2, _ := serve(t, &Server{Pings: 3})
	c, err = transport.Dial(ctx, "wss://"+w2.Addr(), transport.DialOptions{TLS: transport.ClientTLS{CertHash: w2.CertHash()}})
	if err != nil {
		t.Fatal(err)
	}
	_, seal, err = MeasureSealed(ctx, c, "t-ok")
	c.Close("done")
	if err != nil || seal != "" {
		t.Errorf("unsealed: %q, %v", seal, err)
	}
}
