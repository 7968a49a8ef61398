package token

import (
	"bytes"
	"errors"
	"testing"
	"time"
)

func TestSealOpen(t *testing.T) {
	key, _ := NewKey()
	now := time.Unix(1_800_000_000, 0)
	c := Claims{Match: "m1", Player: "bot-03", Seat: 3, Expires: now.Add(30 * time.Second), Address: "127.0.0.1:27015"}
	b, err := Seal(key, c)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Open(key, b, now)
	if err != nil {
		t.Fatal(err)
	}
	if got.ID == 0 || got.Match != c.Match || got.Player != c.Player || got.Seat != 3 || !got.Expires.Equal(c.Expires) || got.Address != c.Address {
		t.Fatalf("got %+v, sealed %+v", got, c)
	}
	if err := got.Check("m1", "127.0.0.1:27015"); err != nil {
		t.Fatal(err)
	}
	if err := got.Check("m2", "127.0.0.1:27015"); !errors.Is(err, ErrWrongMatch) {
		t.Fatalf("wrong match: %v", err)
	}
	if err := got.Check("m1", "127.0.0.1:27016"); !errors.Is(err, ErrWrongAddress) {
		t.Fatalf("wrong address: %v", err)
	}
	if _, err := Open(key, b, c.Expires); !errors.Is(err, ErrExpired) {
		t.Fatalf("at expiry: %v", err)
	}
	other, _ := NewKey()
	if _, err := Open(other, b, now); !errors.Is(err, ErrInvalid) {
		t.Fatalf("other key: %v", err)
	}
	for i := range b {
		bad := bytes.Clone(b)
		bad[i] ^= 0x40
		if _, err := Open(key, bad, now); !errors.Is(err, ErrInvalid) {
			t.Fatalf("flipped byte %d: %v", i, err)
		}
	}
	if _, err := Open(key, b[:len(b)-1], now); !errors.Is(err, ErrInvalid) {
		t.Fatalf("truncated: %v", err)
	}
}

func TestMaxSize(t *testing.T) {
	key, _ := NewKey()
	long := string(bytes.Repeat([]byte("x"), MaxStrings-2))
	b, err := Seal(key, Claims{Match: "m", Player: "p", Address: long, Expires: time.Unix(2e9, 0)})
	if err != nil {
		t.Fatal(err)
	}
	if len(b) != MaxSize {
		t.Fatalf("largest token %d bytes, want %d", len(b), MaxSize)
	}
	if _, err := Seal(key, Claims{Match: "mm", Player: "p", Address: long, Expires: time.Unix(2e9, 0)}); err == nil {
		t.Fatal("sealed a token too large")
	}
}
