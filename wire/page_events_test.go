package wire

import (
	"strings"
	"testing"
	"time"

	"github.com/lagkit/lagkit/game"
)

func nameEvents() []NameEvent {
	return []NameEvent{{}, {Player: 3, Name: "alice"}, {Player: 255, Name: strings.Repeat("é", MaxNameLen/2)}}
}

func placeEvents() []PlaceEvent {
	return []PlaceEvent{{}, {Teleport: 255, Yaw: 65535, Pitch: game.MaxPitch}, {Teleport: 7, Yaw: 32768, Pitch: -game.MaxPitch}}
}

func serverEvents() []ServerEvent {
	return []ServerEvent{{}, {
		TickTime: 412 * time.Microsecond, TickLate: 3 * time.Millisecond, EmulatedUp: 40 * time.Millisecond,
		EmulatedDown: 60 * time.Millisecond, HeldUp: 25 * time.Millisecond, HeldDown: 25 * time.Millisecond,
		LossOut: 1000, Policy: "rewind",
	}, {TickLate: MaxClock, Policy: strings.Repeat("p", MaxPolicyName)}}
}

func TestPageEventsRoundTrip(t *testing.T) {
	eventRoundTrip(t, nameEvents(), AppendNameEvent, DecodeNameEvent)
	eventRoundTrip(t, placeEvents(), AppendPlaceEvent, DecodePlaceEvent)
	eventRoundTrip(t, serverEvents(), AppendServerEvent, DecodeServerEvent)
}

func TestPageEventsReject(t *testing.T) {
	if _, err := AppendNameEvent(nil, &NameEvent{Name: strings.Repeat("x", MaxNameLen+1)}); err == nil {
		t.Error("a name over MaxNameLen encoded")
	}
	if _, err := AppendNameEvent(nil, &NameEvent{Name: "\xff"}); err == nil {
		t.Error("a name of invalid UTF-8 encoded")
	}
	if _, err := AppendPlaceEvent(nil, &PlaceEvent{Pitch: game.MaxPitch + 1}); err == nil {
		t.Error("a pitch past MaxPitch encoded")
	}
	for _, e := range []ServerEvent{{TickTime: -1}, {HeldDown: MaxClock + time.Microsecond}, {LossOut: 1001}, {Policy: strings.Repeat("p", MaxPolicyName+1)}} {
		if _, err := AppendServerEvent(nil, &e); err == nil {
			t.Errorf("server event %+v encoded", e)
		}
	}
	for _, tc := range []struct {
		name string
		b    []byte
		dec  func([]byte) error
		want string
	}{
		{"name too long", []byte{1, 0xff}, func(b []byte) error { var e NameEvent; return DecodeNameEvent(b, &e) }, "exceeds"},
		{"name truncated", []byte{1, 0x0c}, func(b []byte) error { var e NameEvent; return DecodeNameEvent(b, &e) }, "truncated"},
		{"place short", []byte{1, 2, 3}, func(b []byte) error { var e PlaceEvent; return DecodePlaceEvent(b, &e) }, "place event"},
		{"place pitch", []byte{1, 0, 0, 0, 0x80}, func(b []byte) error { var e PlaceEvent; return DecodePlaceEvent(b, &e) }, "pitch"},
		{"server loss", []byte{0, 0, 0, 0, 0, 0, 0xff, 0xff}, func(b []byte) error { var e ServerEvent; return DecodeServerEvent(b, &e) }, "loss"},
		{"server trailing", []byte{0, 0, 0, 0, 0, 0, 0, 0, 0}, func(b []byte) error { var e ServerEvent; return DecodeServerEvent(b, &e) }, "trailing"},
	} {
		if err := tc.dec(tc.b); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error containing %q", tc.name, err, tc.want)
		}
	}
}

func FuzzDecodeNameEvent(f *testing.F) { fuzzEvent(f, nameEvents(), AppendNameEvent, DecodeNameEvent) }

func FuzzDecodePlaceEvent(f *testing.F) {
	fuzzEvent(f, placeEvents(), AppendPlaceEvent, DecodePlaceEvent)
}

func FuzzDecodeServerEvent(f *testing.F) {
	fuzzEvent(f, serverEvents(), AppendServerEvent, DecodeServerEvent)
}
