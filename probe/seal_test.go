package probe

import (
	"context"
	"errors"
	"strings"
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

// FuzzOpen: any seal, ticket, host and round trip is refused with an
// error or opens, never panics, and one that opens is the seal Seal
// makes for them.
func FuzzOpen(f *testing.F) {
	key := SealKey([]byte("fuzzing key, sixteen bytes or more"))
	r := Result{Ticket: "0123456789abcdef0123456789abcdef", Host: "10.0.0.1:7010", RTT: 42 * time.Millisecond, At: time.UnixMilli(1_800_000_000_000)}
	f.Add(Seal(key, r), r.Ticket, r.Host, int64(r.RTT))
	f.Add("1.", "", "", int64(0))
	f.Add("-5.AAAA", "t", "h:1", int64(-1))
	f.Fuzz(func(t *testing.T, seal, ticket, host string, rtt int64) {
		at, err := Open(key, ticket, host, time.Duration(rtt), seal)
		if err != nil {
			return
		}
		d := time.Duration(rtt).Truncate(time.Microsecond)
		if again := Seal(key, Result{Ticket: ticket, Host: host, RTT: d, At: at}); again != seal {
			t.Errorf("%q opened, but Seal makes %q", seal, again)
		}
	})
}

// TestSealOneSpelling: a seal opens only as Seal spells it: the same
// time or MAC written another way is refused, so a result handed on
// twice cannot pass for two.
func TestSealOneSpelling(t *testing.T) {
	key := SealKey([]byte("a secret the host and the lobby share"))
	r := Result{Ticket: "t", Host: "h:1", RTT: time.Millisecond, At: time.UnixMilli(1_800_000_000_000)}
	seal := Seal(key, r)
	if _, err := Open(key, r.Ticket, r.Host, r.RTT, seal); err != nil {
		t.Fatal(err)
	}
	ms, mac, _ := strings.Cut(seal, ".")
	// The MAC's last character carries 2 bits beyond its 256: another
	// character decoding to the same MAC.
	last := strings.IndexByte(alphabet, mac[len(mac)-1])
	other := mac[:len(mac)-1] + string(alphabet[last^1])
	for _, s := range []string{"+" + seal, "0" + seal, ms + "." + other} {
		if _, err := Open(key, r.Ticket, r.Host, r.RTT, s); err == nil {
			t.Errorf("%q opened as well as %q", s, seal)
		}
	}
}

const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
