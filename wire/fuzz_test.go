package wire

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/lagkit/lagkit/game"
)

// addSeeds adds the golden vectors of message type t to f's corpus.
func addSeeds(f *testing.F, t MsgType) {
	for _, g := range goldens() {
		// Event data has no type byte; its first byte proves nothing.
		if strings.HasSuffix(g.name, "_event") {
			continue
		}
		if b, err := g.encode(); err == nil && MsgType(b[0]) == t {
			f.Add(b)
		}
	}
}

// fuzzMessage checks that dec never panics and that whatever it accepts
// encodes again and decodes to the same message.
func fuzzMessage[M any](f *testing.F, t MsgType, enc func([]byte, *M) ([]byte, error), dec func([]byte, *M) error) {
	addSeeds(f, t)
	f.Add([]byte{byte(t)})
	fuzzReencode(f, enc, dec)
}

// fuzzEvent is fuzzMessage for event data, seeded with the encodings of
// events.
func fuzzEvent[E any](f *testing.F, events []E, enc func([]byte, *E) ([]byte, error), dec func([]byte, *E) error) {
	for i := range events {
		b, err := enc(nil, &events[i])
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte{})
	fuzzReencode(f, enc, dec)
}

// fuzzReencode runs f's fuzz function: whatever dec accepts must encode
// again and decode to the same value.
func fuzzReencode[M any](f *testing.F, enc func([]byte, *M) ([]byte, error), dec func([]byte, *M) error) {
	f.Fuzz(func(t *testing.T, b []byte) {
		var m M
		if err := dec(b, &m); err != nil {
			return
		}
		b2, err := enc(nil, &m)
		if err != nil {
			t.Fatalf("decoded %+v but cannot encode it: %v", m, err)
		}
		var m2 M
		if err := dec(b2, &m2); err != nil || !reflect.DeepEqual(m, m2) {
			t.Fatalf("re-encoding %+v decodes to %+v, %v", m, m2, err)
		}
	})
}

func FuzzDecodeConnect(f *testing.F) {
	f.Add([]byte{byte(MsgConnect), 2, 0, 0xff})
	addSeeds(f, MsgConnect)
	f.Fuzz(func(t *testing.T, b []byte) {
		var m Connect
		if err := DecodeConnect(b, &m); err != nil || m.Version != Version {
			return
		}
		b2, err := AppendConnect(nil, &m)
		if err != nil {
			t.Fatalf("decoded %+v but cannot encode it: %v", m, err)
		}
		var m2 Connect
		if err := DecodeConnect(b2, &m2); err != nil || m != m2 {
			t.Fatalf("re-encoding %+v decodes to %+v, %v", m, m2, err)
		}
	})
}

func FuzzDecodeAccept(f *testing.F) { fuzzMessage(f, MsgAccept, AppendAccept, DecodeAccept) }

func FuzzDecodeChallenge(f *testing.F) {
	fuzzMessage(f, MsgChallenge, AppendChallenge, DecodeChallenge)
}

func FuzzDecodeReject(f *testing.F) { fuzzMessage(f, MsgReject, AppendReject, DecodeReject) }

func FuzzDecodeDisconnect(f *testing.F) {
	fuzzMessage(f, MsgDisconnect, AppendDisconnect, DecodeDisconnect)
}

func FuzzDecodeCommands(f *testing.F) {
	// Fire presses (sub-tick input) at the command's start, within it and
	// across the yaw wrap, beside the golden vector's.
	// And sightings of hits after the commands.
	for i, cmds := range [][]game.UserCmd{pressed(1, 2), pressed(7, MaxCmdsPerPacket), held(3, 1)} {
		m := Commands{AckTick: 3, ClientTime: time.Minute, Cmds: cmds}
		if i == 2 {
			m.Sightings = sightings(MaxSightings)
		}
		b, err := AppendCommands(nil, &m)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	fuzzMessage(f, MsgCommands, AppendCommands, DecodeCommands)
}

func FuzzDecodeAppeal(f *testing.F) {
	for _, m := range appeals() {
		b, err := AppendAppeal(nil, &m)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	fuzzMessage(f, MsgAppeal, AppendAppeal, DecodeAppeal)
}

func FuzzDecodeHitEvent(f *testing.F) { fuzzEvent(f, hitEvents(), AppendHitEvent, DecodeHitEvent) }

func FuzzDecodeConfirmEvent(f *testing.F) {
	fuzzEvent(f, confirmEvents(), AppendConfirmEvent, DecodeConfirmEvent)
}

func FuzzDecodeVerdictEvent(f *testing.F) {
	fuzzEvent(f, verdictEvents(), AppendVerdictEvent, DecodeVerdictEvent)
}

func FuzzDecodeKillEvent(f *testing.F) { fuzzEvent(f, killEvents(), AppendKillEvent, DecodeKillEvent) }

// FuzzDecodeSnapshot decodes against the golden full snapshot as the only
// known baseline, with and without reading through a word, to the
// same result or error; whatever decodes must encode again (against the same
// baseline) to a snapshot that decodes to what the encoder left.
func FuzzDecodeSnapshot(f *testing.F) {
	addSeeds(f, MsgSnapshot)
	base, _ := goldenSnapshots()
	if _, err := AppendSnapshot(nil, base, nil, MaxDatagram); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := decodeBothWays(t, b, &Snapshot{}, base)
		if err != nil {
			return
		}
		var ref *Snapshot
		if s.Baseline != 0 {
			ref = base
		}
		b2, err := AppendSnapshot(nil, s, ref, MaxDatagram)
		if err != nil {
			t.Fatalf("decoded snapshot cannot be encoded: %v", err)
		}
		var s2 Snapshot
		if err := DecodeSnapshot(b2, &s2, baselineOf(base)); err != nil {
			t.Fatalf("re-encoded snapshot does not decode: %v", err)
		}
		if d := diffSnapshot(&s2, s); d != "" {
			t.Fatalf("re-encoded snapshot differs: %s", d)
		}
	})
}

// FuzzSnapshotRoundTrip encodes random snapshots, full and delta, with
// random limits and checks that the receiver decodes exactly what the
// encoder left in s.
func FuzzSnapshotRoundTrip(f *testing.F) {
	for seed := range uint64(8) {
		f.Add(seed, uint16(MaxDatagram))
		f.Add(seed, uint16(60+seed*100))
	}
	f.Fuzz(func(t *testing.T, seed uint64, limit uint16) {
		rng := rand.New(rand.NewPCG(seed, 3))
		base := randSnapshot(rng, 1+rng.Uint32N(1<<31))
		lim := 1 + int(limit)%MaxDatagram
		if _, err := AppendSnapshot(nil, base, nil, lim); err != nil {
			return // limit too small for the header and self
		}
		// base now holds what the receiver decoded: delta against it.
		s := randNext(rng, base)
		b, err := AppendSnapshot(nil, s, base, lim)
		if err != nil {
			return
		}
		if len(b) > lim {
			t.Fatalf("encoded %d bytes, limit %d", len(b), lim)
		}
		got := Snapshot{Game: s.Game}
		if err := DecodeSnapshot(b, &got, baselineOf(base)); err != nil {
			t.Fatal(err)
		}
		if d := diffSnapshot(&got, s); d != "" {
			t.Fatalf("seed %d limit %d: %s", seed, lim, d)
		}
	})
}

func FuzzDecodeProbe(f *testing.F) {
	for _, m := range []Probe{{Ticket: "t0"}, {Seq: 7}, {Seq: 11, Done: true, RTT: 23456 * time.Microsecond}} {
		b, err := AppendProbe(nil, &m)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	fuzzMessage(f, MsgProbe, AppendProbe, DecodeProbe)
}
