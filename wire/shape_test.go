package wire

import (
	"strings"
	"testing"

	"github.com/lagkit/lagkit/game"
)

// TestPartsBeyondFour: a body of up to MaxParts parts names each of them
// in every message that carries a part, through the long code from 15
// on, and lagkit's own parts keep their 4 bits.
func TestPartsBeyondFour(t *testing.T) {
	for _, p := range []game.PartKind{0, 3, 4, 14, 15, 16, 200, 255} {
		h := HitEvent{Shooter: 2, ShotTick: 77, Part: p, Damage: 9, Parts: MaxParts}
		b, err := AppendHitEvent(nil, &h)
		if err != nil {
			t.Fatalf("part %d: %v", p, err)
		}
		got := HitEvent{Parts: MaxParts}
		if err := DecodeHitEvent(b, &got); err != nil || got != h {
			t.Errorf("hit part %d: decoded %+v, %v", p, got, err)
		}
		c := ConfirmEvent{ShotTick: 5, Victim: 3, Part: p, Damage: 1, Parts: 256}
		b, err = AppendConfirmEvent(nil, &c)
		if err != nil {
			t.Fatal(err)
		}
		gotC := ConfirmEvent{Parts: 256}
		if err := DecodeConfirmEvent(b, &gotC); err != nil || gotC != c {
			t.Errorf("confirm part %d: decoded %+v, %v", p, gotC, err)
		}
		r := goldenRewind()
		r.Part, r.Parts = p, MaxParts
		b, err = AppendRewindEvent(nil, &r)
		if err != nil {
			t.Fatal(err)
		}
		gotR := RewindEvent{Parts: MaxParts}
		if err := DecodeRewindEvent(b, &gotR); err != nil || gotR != r {
			t.Errorf("rewind part %d: decoded %+v, %v", p, gotR, err)
		}
		m := Commands{Cmds: held(5, 1), Parts: MaxParts, Sightings: []Sighting{{Shooter: 1, ShotTick: 2, Part: p, SBC: true}}}
		b, err = AppendCommands(nil, &m)
		if err != nil {
			t.Fatal(err)
		}
		gotM := Commands{Parts: MaxParts}
		if err := DecodeCommands(b, &gotM); err != nil || len(gotM.Sightings) != 1 || gotM.Sightings[0] != m.Sightings[0] {
			t.Errorf("sighting part %d: decoded %+v, %v", p, gotM.Sightings, err)
		}
	}
	// The code's width: 4 bits below 15, 12 from 15 on.
	for p, want := range map[game.PartKind]uint{0: 4, 3: 4, 14: 4, 15: 12, 255: 12} {
		if _, n := partCode(p); n != want {
			t.Errorf("part %d coded in %d bits, want %d", p, n, want)
		}
	}
}

// TestHitOnABody: a hit on a game's body (OnBody) names its part, 0 to
// MaxParts-1, through the long code's mark, in 20 bits where a part
// alone takes 4 or 12; lagkit's own hits keep their bytes; the mark is
// a HitEvent's alone, and a part beyond the body is refused with it.
func TestHitOnABody(t *testing.T) {
	for _, p := range []game.PartKind{0, 3, 14, 15, 255} {
		h := HitEvent{Shooter: 2, ShotTick: 77, Part: p, Damage: 9, Appeal: 4, Parts: MaxParts, OnBody: true}
		b, err := AppendHitEvent(nil, &h)
		if err != nil {
			t.Fatalf("part %d: %v", p, err)
		}
		got := HitEvent{Parts: MaxParts}
		if err := DecodeHitEvent(b, &got); err != nil || got != h {
			t.Errorf("part %d on a body: decoded %+v, %v", p, got, err)
		}
		h.OnBody = false
		plain, err := AppendHitEvent(nil, &h)
		if err != nil {
			t.Fatal(err)
		}
		// The mark and the part in 8 bits: 20 bits, where the part alone
		// took n.
		if _, n := partCode(p); len(b) != len(plain)+int(20-n)/8 {
			t.Errorf("part %d: %d bytes on a body, %d on the humanoid", p, len(b), len(plain))
		}
		if got := (HitEvent{Parts: MaxParts}); DecodeHitEvent(plain, &got) != nil || got.OnBody {
			t.Errorf("part %d on the humanoid decoded on a body", p)
		}
	}
	h := HitEvent{Part: 5, Parts: 6, OnBody: true}
	b, err := AppendHitEvent(nil, &h)
	if err != nil {
		t.Fatal(err)
	}
	if err := DecodeHitEvent(b, &HitEvent{Parts: 5}); err == nil || err.Error() != "wire: hit event: part 5 out of range: the body has 5 parts" {
		t.Errorf("decode a body's part beyond the shape: %v", err)
	}
	// The mark in a confirmation is a part in the long code below 15.
	w := bitWriter{}
	w.writeBits(0, 32+8)
	writeHitPart(&w, 2, true)
	w.writeBits(0, 16+outcomeBits)
	if err := DecodeConfirmEvent(w.buf, &ConfirmEvent{}); err == nil || err.Error() != "wire: confirm event: part 0 in the long code" {
		t.Errorf("a body's mark in a confirmation: %v", err)
	}
}

// TestPartsOverTheBody: a part at or beyond the body's part count is
// refused by the encoder and the decoder, naming both.
func TestPartsOverTheBody(t *testing.T) {
	h := HitEvent{Part: 6, Parts: 6}
	if _, err := AppendHitEvent(nil, &h); err == nil || err.Error() != "wire: hit event: part 6 out of range: the body has 6 parts" {
		t.Errorf("encode: %v", err)
	}
	h.Parts = 20
	b, err := AppendHitEvent(nil, &h)
	if err != nil {
		t.Fatal(err)
	}
	if err := DecodeHitEvent(b, &HitEvent{Parts: 6}); err == nil || err.Error() != "wire: hit event: part 6 out of range: the body has 6 parts" {
		t.Errorf("decode: %v", err)
	}
	c := ConfirmEvent{Part: 17, Parts: 20}
	b, err = AppendConfirmEvent(nil, &c)
	if err != nil {
		t.Fatal(err)
	}
	if err := DecodeConfirmEvent(b, &ConfirmEvent{Parts: 17}); err == nil || !strings.Contains(err.Error(), "part 17 out of range: the body has 17 parts") {
		t.Errorf("decode long part: %v", err)
	}
	if _, err := AppendConfirmEvent(nil, &ConfirmEvent{Parts: MaxParts + 1}); err == nil || !strings.Contains(err.Error(), "parts 257 outside 1 to 256") {
		t.Errorf("encode with 257 parts: %v", err)
	}
}

// TestShape: a shape's part count defaults to lagkit's four, its bounds
// are checked, and Diff names the field two shapes differ in.
func TestShape(t *testing.T) {
	if n := (Shape{}).PartCount(); n != game.NumParts {
		t.Errorf("zero shape: %d parts", n)
	}
	if n := (Shape{}).SlotCount(); n != MaxEntities {
		t.Errorf("zero shape: %d slots", n)
	}
	for _, s := range []Shape{{Parts: -1}, {Parts: MaxParts + 1}, {Slots: -1}, {Slots: MaxSlots + 1}} {
		if err := s.Check(); err == nil {
			t.Errorf("%+v accepted", s)
		}
	}
	for _, tc := range []struct {
		a, b Shape
		want string
	}{
		{Shape{}, Shape{Parts: game.NumParts}, ""},
		{Shape{}, Shape{Parts: 12}, "parts: client 12, server 4"},
		{Shape{}, Shape{HealthToAll: true}, "health to all: client true, server false"},
		{Shape{Slots: 664}, Shape{}, "slots: client 256, server 664"},
		{Shape{Slots: 256}, Shape{}, ""},
	} {
		if got := tc.a.Diff(tc.b); got != tc.want {
			t.Errorf("%+v.Diff(%+v) = %q, want %q", tc.a, tc.b, got, tc.want)
		}
	}
}

// TestConnectShape: a Connect carries the client's shape in its padding,
// with or without a rejoin and a command hash beside it, and one of the
// zero shape is byte for byte as before.
func TestConnectShape(t *testing.T) {
	base := Connect{Version: Version, Nonce: 7, Name: strings.Repeat("x", MaxNameLen), Token: strings.Repeat("t", MaxTokenLen),
		Key: strings.Repeat("k", KeySize), InterpDelay: MaxDelay, SnapshotRate: 64, Game: 1, Rules: 2}
	plain, err := AppendConnect(nil, &base)
	if err != nil {
		t.Fatal(err)
	}
	for _, shape := range []Shape{{Parts: 1}, {Parts: MaxParts}, {HealthToAll: true}, {Parts: 17, HealthToAll: true}, {Slots: 664}, {Slots: MaxSlots, Parts: 20}} {
		for _, cmd := range []uint64{0, testCmdDecl.Hash()} {
			for _, rejoin := range []Rejoin{{}, {Asked: true, Seat: 200, Team: 1}} {
				m := base
				m.Shape, m.Cmd, m.Rejoin = shape, cmd, rejoin
				b, err := AppendConnect(nil, &m)
				if err != nil {
					t.Fatal(err)
				}
				var got Connect
				if err := DecodeConnect(b, &got); err != nil || got != m {
					t.Fatalf("%+v: decoded %+v, %v", m, got, err)
				}
				if len(b) != ConnectSize || string(b) == string(plain) {
					t.Errorf("%+v: %d bytes, same as without a shape: %v", shape, len(b), string(b) == string(plain))
				}
			}
		}
	}
	bad := base
	bad.Shape.Parts = MaxParts + 1
	if _, err := AppendConnect(nil, &bad); err == nil || !strings.Contains(err.Error(), "shape: parts 257") {
		t.Errorf("parts over MaxParts: %v", err)
	}
	bad = base
	bad.Shape.Slots = MaxSlots + 1
	if _, err := AppendConnect(nil, &bad); err == nil || !strings.Contains(err.Error(), "shape: slots 4097") {
		t.Errorf("slots over MaxSlots: %v", err)
	}
	// A decoder refuses what an encoder would not write: slots beyond
	// MaxSlots in the 13 bits that hold them.
	m := base
	m.Shape.Slots = 1
	b, _ := AppendConnect(nil, &m)
	var got Connect
	if err := DecodeConnect(b, &got); err != nil || got.Shape.Slots != 1 {
		t.Fatalf("decoded %+v, %v", got.Shape, err)
	}
	for i := range b { // the 13 bits of slots, found by their value
		b2 := append([]byte(nil), b...)
		b2[i] |= 0x80
		if err := DecodeConnect(b2, &got); err == nil && got.Shape.Slots > MaxSlots {
			t.Fatalf("slots %d decoded", got.Shape.Slots)
		}
	}
}
