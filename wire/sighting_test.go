package wire

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/lagkit/lagkit/game"
)

// sightings returns n sightings of hits on several parts by several
// shooters, behind cover and in the open, the last at the field limits.
func sightings(n int) []Sighting {
	out := make([]Sighting, n)
	for i := range out {
		out[i] = Sighting{Shooter: uint8(3 + i), ShotTick: 1200 + uint32(i), Part: game.PartKind(i % int(game.NumParts)), SBC: i%2 == 0}
	}
	out[n-1] = Sighting{Shooter: 255, ShotTick: 1<<32 - 1, Part: game.NumParts - 1, SBC: true}
	return out
}

// TestCommandsSightingsRoundTrip: sightings ride after the commands and
// come back as sent, from one to MaxSightings of them.
func TestCommandsSightingsRoundTrip(t *testing.T) {
	for _, n := range []int{1, 2, MaxSightings} {
		m := Commands{AckTick: 640, AckDelay: 4 * time.Millisecond, ClientTime: 90 * time.Second, Cmds: pressed(1000, 4), Sightings: sightings(n)}
		b, err := AppendCommands(nil, &m)
		if err != nil {
			t.Fatal(err)
		}
		var got Commands
		if err := DecodeCommands(b, &got); err != nil {
			t.Fatalf("%d sightings: %v", n, err)
		}
		if !reflect.DeepEqual(got, m) {
			t.Errorf("%d sightings: got %+v, want %+v", n, got, m)
		}
	}
}

// TestCommandsSightingsCost: a packet without sightings pays one bit
// for them, and decodes to none, also into a Commands whose previous
// packet had some.
func TestCommandsSightingsCost(t *testing.T) {
	m := Commands{AckTick: 640, AckDelay: 4 * time.Millisecond, ClientTime: 90 * time.Second, Cmds: pressed(1000, 4)}
	with := m
	with.Sightings = sightings(2)
	a, err := AppendCommands(nil, &m)
	if err != nil {
		t.Fatal(err)
	}
	b, err := AppendCommands(nil, &with)
	if err != nil {
		t.Fatal(err)
	}
	var got Commands
	if err := DecodeCommands(b, &got); err != nil || len(got.Sightings) != 2 {
		t.Fatalf("with sightings: %v, %+v", err, got.Sightings)
	}
	if err := DecodeCommands(a, &got); err != nil || len(got.Sightings) != 0 {
		t.Fatalf("without, decoded into the same Commands: %v, sightings %+v", err, got.Sightings)
	}
	if d := len(b) - len(a); d < (3+2*45)/8 || d > (3+2*45)/8+1 {
		t.Errorf("two sightings cost %d bytes", d)
	}
}

func TestAppendCommandsSightingErrors(t *testing.T) {
	for _, tc := range []struct {
		name, want string
		s          []Sighting
	}{
		{"too many", "sightings, want at most", sightings(MaxSightings + 1)},
		{"bad part", "part 9 out of range", []Sighting{{Shooter: 1, ShotTick: 2, Part: 9}}},
	} {
		m := Commands{Cmds: held(5, 1), Sightings: tc.s}
		if _, err := AppendCommands(nil, &m); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestDecodeCommandsSightingErrors: sightings cut short, naming a part
// that does not exist, or followed by more bytes are an error.
func TestDecodeCommandsSightingErrors(t *testing.T) {
	m := Commands{Cmds: held(5, 2), Sightings: []Sighting{{Shooter: 1, ShotTick: 2, Part: game.PartTorso}}}
	good, err := AppendCommands(nil, &m)
	if err != nil {
		t.Fatal(err)
	}
	// A part of a body of 40 parts, read as one of lagkit's four.
	bad, err := AppendCommands(nil, &Commands{Cmds: held(5, 2), Parts: 40, Sightings: []Sighting{{Shooter: 1, ShotTick: 2, Part: 39}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		b    []byte
		want string
	}{
		{"truncated", good[:len(good)-2], "truncated"},
		{"trailing", append(append([]byte(nil), good...), 0x01), "trailing"},
		{"bad part", bad, "part 39 out of range: the body has 4 parts"},
	} {
		var got Commands
		err := DecodeCommands(tc.b, &got)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error with %q", tc.name, err, tc.want)
		}
	}
}

// bitLen returns how many bits m's encoding takes before its padding.
func bitLen(t *testing.T, m Commands) int {
	if _, err := AppendCommands(nil, &m); err != nil {
		t.Fatal(err)
	}
	var w bitWriter
	writeCommands(&w, &m)
	return w.pos()
}

// TestDecodeCommandsSightingsGarbage: random sighting bits after a
// valid packet's commands decode to an error or to at most MaxSightings
// sightings of parts that exist, which encode again to the same bytes;
// never a panic.
func TestDecodeCommandsSightingsGarbage(t *testing.T) {
	m := Commands{Cmds: held(5, 2), Sightings: sightings(1)}
	bare, err := AppendCommands(nil, &m)
	if err != nil {
		t.Fatal(err)
	}
	// Keep the bytes wholly before the sightings' flag; the rest is
	// random.
	bare = bare[:(bitLen(t, m)-45-3-1)/8]
	seed := uint32(1)
	next := func() byte { seed = seed*1664525 + 1013904223; return byte(seed >> 24) }
	var got Commands
	decoded := 0
	for range 20000 {
		b := append([]byte(nil), bare...)
		for range 1 + int(next())%48 {
			b = append(b, next())
		}
		if DecodeCommands(b, &got) != nil {
			continue
		}
		decoded++
		if len(got.Sightings) > MaxSightings {
			t.Fatalf("%x: %d sightings", b, len(got.Sightings))
		}
		again, err := AppendCommands(nil, &got)
		if err != nil || !bytes.Equal(again, b) {
			t.Fatalf("%x decoded to %+v, which encodes to %x, %v", b, got.Sightings, again, err)
		}
	}
	if decoded == 0 {
		t.Fatal("no random trailer decoded: the test checks nothing")
	}
}
