package wire

import (
	"math"
	"strings"
	"testing"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/shooter/weapon"
)

// appeals returns appeals with edge values, for the round-trip test and as
// fuzz seeds.
func appeals() []Appeal {
	const maxPos = MaxCoord * game.PosQuantum
	return []Appeal{
		{},
		{ID: 1, Deny: false, State: game.PlayerState{Pos: geom.V(4, -8.5, 0), Flags: game.FlagOnGround, Health: 100}},
		{ID: math.MaxUint32, Deny: true, State: game.PlayerState{
			Pos: geom.V(maxPos, -maxPos, maxPos), Vel: geom.V(-MaxCoord*game.VelQuantum, game.VelQuantum, 0),
			Yaw: 65535, Pitch: -game.MaxPitch, Flags: 255, Teleport: 255,
			Health: math.MinInt16,
		}},
		{ID: 77, Deny: true, State: game.PlayerState{
			Pos: geom.V(-maxPos, maxPos, -game.PosQuantum), Pitch: game.MaxPitch,
			Flags: game.FlagCrouched | weapon.FlagReloading, Health: math.MaxInt16,
		}},
	}
}

func TestAppealRoundTrip(t *testing.T) {
	for i, m := range appeals() {
		b, err := AppendAppeal([]byte{0xAA}, &m)
		if err != nil {
			t.Fatalf("appeal %d: %v", i, err)
		}
		if b[0] != 0xAA || MsgType(b[1]) != MsgAppeal {
			t.Fatalf("appeal %d: not appended as an appeal: %x", i, b)
		}
		var got Appeal
		if err := DecodeAppeal(b[1:], &got); err != nil {
			t.Fatalf("appeal %d: %v", i, err)
		}
		if got != m {
			t.Errorf("appeal %d: got %+v, want %+v", i, got, m)
		}
	}
}

// TestDecodeAppealOverwrites decodes into an Appeal that holds another
// state: fields the encoding leaves at their zero value must be zeroed.
func TestDecodeAppealOverwrites(t *testing.T) {
	want := Appeal{ID: 5}
	b, err := AppendAppeal(nil, &want)
	if err != nil {
		t.Fatal(err)
	}
	got := appeals()[2]
	if err := DecodeAppeal(b, &got); err != nil || got != want {
		t.Errorf("got %+v, %v; want %+v", got, err, want)
	}
}

func TestAppendAppealErrors(t *testing.T) {
	with := func(f func(s *game.PlayerState)) Appeal {
		m := Appeal{ID: 3, Deny: true}
		f(&m.State)
		return m
	}
	tests := []struct {
		name string
		m    Appeal
		want string
	}{
		{"position off grid", with(func(s *game.PlayerState) { s.Pos.Y = 0.001 }), "state position off the PosQuantum grid or out of range"},
		{"position out of range", with(func(s *game.PlayerState) { s.Pos.Z = (MaxCoord + 1) * game.PosQuantum }), "state position off"},
		{"position NaN", with(func(s *game.PlayerState) { s.Pos.X = math.NaN() }), "state position off"},
		{"velocity off grid", with(func(s *game.PlayerState) { s.Vel.X = 1e-9 }), "state velocity off the VelQuantum grid"},
		{"pitch", with(func(s *game.PlayerState) { s.Pitch = game.MaxPitch + 1 }), "state pitch out of range"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := AppendAppeal([]byte{1}, &tt.m)
			if err == nil || !strings.HasPrefix(err.Error(), "wire: appeal: "+tt.want) {
				t.Errorf("error %v, want %q", err, "wire: appeal: "+tt.want)
			}
			if len(got) != 1 {
				t.Errorf("dst grew on error")
			}
		})
	}
}

func TestDecodeAppealErrors(t *testing.T) {
	valid, err := AppendAppeal(nil, &appeals()[2])
	if err != nil {
		t.Fatal(err)
	}
	// The state's fields start after the type byte, ID and Deny. Unchanged
	// fields are one zero bit each: 6 coordinates, 2 angles and then
	// Flags, Teleport and Health.
	const stateAt = 32 + 1
	pitch := bitWriter{}
	pitch.writeBits(uint64(MsgAppeal), 8)
	pitch.writeBits(0, stateAt+6+1)
	pitch.writeBucketed(game.MaxPitch+1, angleBuckets)
	pitch.writeBits(0, 3)
	coord := bitWriter{}
	coord.writeBits(uint64(MsgAppeal), 8)
	coord.writeBits(0, stateAt)
	coord.writeBucketed(-MaxCoord-1, coordBuckets)
	tests := []struct {
		name string
		b    []byte
		want string
	}{
		{"empty", nil, "wire: appeal: empty datagram"},
		{"wrong type", []byte{byte(MsgCommands), 0}, "wire: appeal: message type is commands"},
		{"truncated", valid[:len(valid)-1], "wire: appeal: truncated"},
		{"trailing", append(valid[:len(valid):len(valid)], 0), "wire: appeal: 1 trailing bytes"},
		{"pitch", pitch.buf, "wire: appeal: state pitch out of range"},
		{"position", coord.buf, "wire: appeal: state position or velocity out of range"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var m Appeal
			if err := DecodeAppeal(tt.b, &m); err == nil || err.Error() != tt.want {
				t.Errorf("error %v, want %q", err, tt.want)
			}
		})
	}
}
