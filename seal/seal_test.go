package seal

import (
	"bytes"
	"testing"
)

func pair(t testing.TB, nonce uint64) (cli, srv *Session) {
	t.Helper()
	ck, err := NewKey()
	if err != nil {
		t.Fatal(err)
	}
	sk, err := NewKey()
	if err != nil {
		t.Fatal(err)
	}
	cp, sp := ck.PublicKey().Bytes(), sk.PublicKey().Bytes()
	if cli, err = New(Client, ck, cp, sp, nonce); err != nil {
		t.Fatal(err)
	}
	if srv, err = New(Server, sk, cp, sp, nonce); err != nil {
		t.Fatal(err)
	}
	return cli, srv
}

// TestRoundTrip checks that each side opens what the other sealed, in
// both directions, and that the overhead is as documented.
func TestRoundTrip(t *testing.T) {
	cli, srv := pair(t, 42)
	for i, p := range [][]byte{{4, 1, 2, 3}, bytes.Repeat([]byte{5}, 1100), {6}} {
		b := cli.Seal(nil, p)
		if len(b) != len(p)+Overhead || !Is(b) {
			t.Fatalf("sealed %d bytes into %d, want %d", len(p), len(b), len(p)+Overhead)
		}
		got, err := srv.Open(nil, b)
		if err != nil || !bytes.Equal(got, p) {
			t.Fatalf("datagram %d: server opened %x, %v", i, got, err)
		}
		back := srv.Seal(nil, p)
		if got, err := cli.Open(nil, back); err != nil || !bytes.Equal(got, p) {
			t.Fatalf("datagram %d: client opened %x, %v", i, got, err)
		}
	}
}

// TestRefuses checks every way a datagram that is not the session's own
// is refused, each counted, and that a refusal leaves the session able
// to open what comes next.
func TestRefuses(t *testing.T) {
	cli, srv := pair(t, 7)
	other, _ := pair(t, 7)
	good := cli.Seal(nil, []byte{4, 9, 9})
	flipped := bytes.Clone(good)
	flipped[len(flipped)-1] ^= 1
	seqForged := bytes.Clone(good)
	seqForged[2] ^= 1
	cases := map[string][]byte{
		"plain datagram":   {4, 1, 2, 3},
		"empty":            {},
		"short":            good[:Overhead-1],
		"tag flipped":      flipped,
		"sequence changed": seqForged,
		"other session":    other.Seal(nil, []byte{4, 9, 9}),
		"own direction":    srv.Seal(nil, []byte{4}), // a server's datagram reflected back
	}
	n := uint64(0)
	for name, b := range cases {
		if _, err := srv.Open(nil, b); err != ErrOpen {
			t.Errorf("%s: %v, want ErrOpen", name, err)
		}
		n++
		if srv.Forged() != n {
			t.Errorf("%s: Forged %d, want %d", name, srv.Forged(), n)
		}
	}
	if _, err := srv.Open(nil, good); err != nil {
		t.Fatalf("the genuine datagram after refusals: %v", err)
	}
	if _, err := srv.Open(nil, good); err != ErrOpen {
		t.Errorf("a replay opened: %v", err)
	}
}

// TestWindow checks reordering within the window opens once each, and
// that datagrams older than the window are refused.
func TestWindow(t *testing.T) {
	cli, srv := pair(t, 1)
	var sealed [][]byte
	for range 300 {
		sealed = append(sealed, cli.Seal(nil, []byte{4}))
	}
	// Newest first within a window's reach: each opens once.
	for i := 127; i >= 0; i-- {
		if _, err := srv.Open(nil, sealed[i]); err != nil {
			t.Fatalf("seq %d out of order: %v", i+1, err)
		}
	}
	for i := range 128 {
		if _, err := srv.Open(nil, sealed[i]); err != ErrOpen {
			t.Fatalf("seq %d twice: %v", i+1, err)
		}
	}
	if _, err := srv.Open(nil, sealed[299]); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.Open(nil, sealed[150]); err != ErrOpen {
		t.Errorf("seq 151, 149 behind the newest: %v, want ErrOpen", err)
	}
	if _, err := srv.Open(nil, sealed[200]); err != nil {
		t.Errorf("seq 201 within the window: %v", err)
	}
}

// TestBadKeys checks that a public key of the wrong size or a low-order
// point is refused.
func TestBadKeys(t *testing.T) {
	k, _ := NewKey()
	pub := k.PublicKey().Bytes()
	if _, err := New(Server, k, make([]byte, 31), pub, 1); err == nil {
		t.Error("a 31-byte key was taken")
	}
	if _, err := New(Server, k, make([]byte, 32), pub, 1); err == nil {
		t.Error("the all-zero key was taken")
	}
}

// TestSealAllocatesNothing checks that sealing and opening into kept
// buffers allocate nothing.
func TestSealAllocatesNothing(t *testing.T) {
	cli, srv := pair(t, 3)
	p := bytes.Repeat([]byte{5}, 400)
	out := make([]byte, 0, 1200)
	in := make([]byte, 0, 1200)
	allocs := testing.AllocsPerRun(200, func() {
		b := cli.Seal(out[:0], p)
		if _, err := srv.Open(in[:0], b); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("%.1f allocations a datagram, want 0", allocs)
	}
}

// BenchmarkSealOpen400 seals and opens a 400-byte datagram, about a
// 64-player snapshot: the cost sealing adds to one datagram each way.
func BenchmarkSealOpen400(b *testing.B) {
	cli, srv := pair(b, 3)
	p := bytes.Repeat([]byte{5}, 400)
	out := make([]byte, 0, 1200)
	in := make([]byte, 0, 1200)
	b.ReportAllocs()
	b.SetBytes(int64(len(p)))
	for b.Loop() {
		s := cli.Seal(out[:0], p)
		if _, err := srv.Open(in[:0], s); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkHandshake derives one session's keys, as a server does once
// per proven Connect.
func BenchmarkHandshake(b *testing.B) {
	ck, _ := NewKey()
	sk, _ := NewKey()
	cp, sp := ck.PublicKey().Bytes(), sk.PublicKey().Bytes()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := New(Server, sk, cp, sp, 9); err != nil {
			b.Fatal(err)
		}
	}
}
