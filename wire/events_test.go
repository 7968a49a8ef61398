package wire

import (
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
)

// The event tables hold events with edge values, for the round-trip tests
// and as fuzz seeds. Their Local and Deadline are exact, so they decode to
// themselves.

func hitEvents() []HitEvent {
	const maxPos = MaxCoord * game.PosQuantum
	return []HitEvent{
		{},
		{Shooter: 3, ShotTick: 1203, Part: game.PartTorso, Damage: 25, Local: geom.V(102, -51, 307).Scale(LocalQuantum),
			ShooterEye: geom.V(12, -7.5, 1.650390625)},
		{Shooter: 255, ShotTick: math.MaxUint32, Part: game.NumParts - 1, Damage: math.MaxInt16,
			Local: geom.V(MaxLocal, -MaxLocal, LocalQuantum), ShooterEye: geom.V(maxPos, -maxPos, maxPos),
			Appeal: math.MaxUint32, Deadline: MaxClock},
		{Part: game.PartHead, Damage: math.MinInt16, Local: geom.V(-LocalQuantum, 0, -MaxLocal),
			ShooterEye: geom.V(-maxPos, game.PosQuantum, -game.PosQuantum), Appeal: 1, Deadline: time.Microsecond},
		{Shooter: 9, ShotTick: 31, Part: game.NumParts - 1, Damage: 12, Local: geom.V(-0.25, 0.5, 1.25),
			ShooterEye: geom.V(3, 4, 1.5), Appeal: 7, Deadline: time.Second, OnBody: true},
		// Far points on a game's body: the far code.
		{Shooter: 2, ShotTick: 77, Part: 1, Damage: 30, Local: geom.V(5.9990234375, -0.25, 1.5),
			ShooterEye: geom.V(-20, 3, 1.5), Appeal: 9, Deadline: 3 * time.Second, OnBody: true},
		{Shooter: 255, ShotTick: math.MaxUint32, Part: game.NumParts - 1, Damage: math.MaxInt16,
			Local: geom.V(MaxBodyLocal, -MaxBodyLocal, LocalQuantum), ShooterEye: geom.V(maxPos, -maxPos, maxPos),
			Appeal: math.MaxUint32, Deadline: MaxClock, OnBody: true},
		{Local: geom.V(0, MaxLocal+LocalQuantum, -MaxLocal), OnBody: true},
		{Local: geom.V(-MaxLocal, 0, -MaxLocal-LocalQuantum), OnBody: true},
	}
}

func confirmEvents() []ConfirmEvent {
	events := []ConfirmEvent{
		{},
		{ShotTick: math.MaxUint32, Victim: 255, Part: game.NumParts - 1, Damage: math.MaxInt16, Outcome: numOutcomes - 1},
		{ShotTick: 9, Victim: 1, Part: game.PartHead, Damage: math.MinInt16},
	}
	for o := range numOutcomes {
		events = append(events, ConfirmEvent{ShotTick: 500, Victim: 2, Part: game.PartLegL, Damage: 25, Outcome: o})
	}
	return events
}

func verdictEvents() []VerdictEvent {
	events := []VerdictEvent{{}, {Appeal: math.MaxUint32, Outcome: numOutcomes - 1}}
	for o := range numOutcomes {
		events = append(events, VerdictEvent{Appeal: 40 + uint32(o), Outcome: o})
	}
	return events
}

func killEvents() []KillEvent {
	return []KillEvent{{}, {Killer: 255, Victim: 255}, {Killer: 7, Victim: 0}}
}

// eventRoundTrip encodes each event after a prefix byte, decodes it and
// fails unless it decodes to itself.
func eventRoundTrip[E any](t *testing.T, events []E, enc func([]byte, *E) ([]byte, error), dec func([]byte, *E) error) {
	t.Helper()
	for i := range events {
		b, err := enc([]byte{0xAA}, &events[i])
		if err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
		if b[0] != 0xAA || len(b) > 1+MaxEventData {
			t.Fatalf("event %d: bad encoding %x", i, b)
		}
		var got E
		if err := dec(b[1:], &got); err != nil {
			t.Fatalf("event %d %+v: %v", i, events[i], err)
		}
		if !reflect.DeepEqual(got, events[i]) {
			t.Errorf("event %d: got %+v, want %+v", i, got, events[i])
		}
	}
}

func TestEventsRoundTrip(t *testing.T) {
	t.Run("hit", func(t *testing.T) { eventRoundTrip(t, hitEvents(), AppendHitEvent, DecodeHitEvent) })
	t.Run("confirm", func(t *testing.T) { eventRoundTrip(t, confirmEvents(), AppendConfirmEvent, DecodeConfirmEvent) })
	t.Run("verdict", func(t *testing.T) { eventRoundTrip(t, verdictEvents(), AppendVerdictEvent, DecodeVerdictEvent) })
	t.Run("kill", func(t *testing.T) { eventRoundTrip(t, killEvents(), AppendKillEvent, DecodeKillEvent) })
}

// TestHitEventRounds checks that Local is rounded to the LocalQuantum grid
// and Deadline truncated to whole microseconds, and that the decoded event
// holds the rounded values.
func TestHitEventRounds(t *testing.T) {
	const q = LocalQuantum
	tests := []struct {
		local, want geom.Vec3
	}{
		{geom.V(0.0004, -0.0004, 0), geom.V(0, 0, 0)},
		{geom.V(0.0005, -0.0005, 0.3), geom.V(q, -q, 307*q)},
		{geom.V(q/2, -q/2, 1.5*q), geom.V(q, -q, 2*q)}, // halves away from zero
		{geom.V(MaxLocal-q/4, -MaxLocal+q/4, 1.23456), geom.V(MaxLocal, -MaxLocal, 1264*q)},
		// On a game's body, which may be far: a point that rounds to
		// ±MaxLocal is near.
		{geom.V(MaxLocal+q/4, 0, 0), geom.V(MaxLocal, 0, 0)},
		{geom.V(6.0004, -MaxLocal-q/2, 0.3), geom.V(6144*q, -MaxLocal-q, 307*q)},
		{geom.V(MaxBodyLocal-q/4, -MaxBodyLocal+q/4, 0), geom.V(MaxBodyLocal, -MaxBodyLocal, 0)},
	}
	for i, tt := range tests {
		e := HitEvent{Part: game.PartHead, Local: tt.local, Deadline: time.Second + 999, OnBody: i >= 4}
		b, err := AppendHitEvent(nil, &e)
		if err != nil {
			t.Fatalf("%v: %v", tt.local, err)
		}
		var got HitEvent
		if err := DecodeHitEvent(b, &got); err != nil {
			t.Fatalf("%v: %v", tt.local, err)
		}
		if got.Local != tt.want || got.Deadline != time.Second {
			t.Errorf("%v: decoded local %v deadline %v, want %v and 1s", tt.local, got.Local, got.Deadline, tt.want)
		}
	}
}

func TestAppendEventErrors(t *testing.T) {
	hit := func(f func(e *HitEvent)) func([]byte) ([]byte, error) {
		e := hitEvents()[1]
		f(&e)
		return func(dst []byte) ([]byte, error) { return AppendHitEvent(dst, &e) }
	}
	confirm := func(e ConfirmEvent) func([]byte) ([]byte, error) {
		return func(dst []byte) ([]byte, error) { return AppendConfirmEvent(dst, &e) }
	}
	verdict := func(e VerdictEvent) func([]byte) ([]byte, error) {
		return func(dst []byte) ([]byte, error) { return AppendVerdictEvent(dst, &e) }
	}
	tests := []struct {
		name string
		enc  func([]byte) ([]byte, error)
		want string
	}{
		{"hit part", hit(func(e *HitEvent) { e.Part = game.NumParts }), "wire: hit event: part 4 out of range: the body has 4 parts"},
		{"hit local", hit(func(e *HitEvent) { e.Local = geom.V(0, MaxLocal+1e-9, 0) }),
			"wire: hit event: local {X:0 Y:2.000000001 Z:0} out of range"},
		{"hit local far", hit(func(e *HitEvent) { e.Local = geom.V(6, 0, 0) }), "wire: hit event: local {X:6 Y:0 Z:0} out of range"},
		{"hit body local", hit(func(e *HitEvent) { e.Local, e.OnBody = geom.V(0, 0, -MaxBodyLocal-1e-9), true }),
			"wire: hit event: local {X:0 Y:0 Z:-64.000000001} out of range: beyond ±64 m of the body's origin"},
		{"hit body local NaN", hit(func(e *HitEvent) { e.Local, e.OnBody = geom.V(math.NaN(), 6, 0), true }),
			"wire: hit event: local {X:NaN Y:6 Z:0} out of range: beyond ±64 m of the body's origin"},
		{"hit local NaN", hit(func(e *HitEvent) { e.Local = geom.V(0, 0, math.NaN()) }), "wire: hit event: local {X:0 Y:0 Z:NaN} out of range"},
		{"hit local infinite", hit(func(e *HitEvent) { e.Local = geom.V(math.Inf(-1), 0, 0) }),
			"wire: hit event: local {X:-Inf Y:0 Z:0} out of range"},
		{"hit eye off grid", hit(func(e *HitEvent) { e.ShooterEye = geom.V(1, 1, 1.65) }),
			"wire: hit event: shooter eye {X:1 Y:1 Z:1.65} off the PosQuantum grid or out of range"},
		{"hit eye out of range", hit(func(e *HitEvent) { e.ShooterEye = geom.V(0, 0, -(MaxCoord+1)*game.PosQuantum) }),
			"wire: hit event: shooter eye {X:0 Y:0 Z:-32768.001953125} off the PosQuantum grid or out of range"},
		{"hit deadline negative", hit(func(e *HitEvent) { e.Deadline = -1 }), "wire: hit event: deadline -1ns out of range"},
		{"hit deadline too late", hit(func(e *HitEvent) { e.Deadline = MaxClock + 1 }),
			"wire: hit event: deadline " + (MaxClock + 1).String() + " out of range"},
		{"confirm part", confirm(ConfirmEvent{Part: 200}), "wire: confirm event: part 200 out of range: the body has 4 parts"},
		{"confirm outcome", confirm(ConfirmEvent{Outcome: numOutcomes}), "wire: confirm event: outcome 6 out of range"},
		{"verdict outcome", verdict(VerdictEvent{Outcome: 255}), "wire: verdict event: outcome 255 out of range"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.enc([]byte{1, 2})
			if err == nil || err.Error() != tt.want {
				t.Errorf("error %v, want %q", err, tt.want)
			}
			if len(got) != 2 {
				t.Errorf("dst grew on error")
			}
		})
	}
}

func TestDecodeEventErrors(t *testing.T) {
	if u := unzigzag(localFar); u != localFarUnits {
		t.Fatalf("localFar decodes to %d units, localFarUnits is %d", u, localFarUnits)
	}
	hit := func(part, local uint64, eye int64, deadline uint64) []byte {
		w := bitWriter{}
		w.writeBits(0, 8+32)
		w.writeBits(part, partBits)
		w.writeBits(0, 16)
		w.writeBits(0, 2*localBits)
		w.writeBits(local, localBits)
		w.writeBucketed(0, coordBuckets)
		w.writeBucketed(eye, coordBuckets)
		w.writeBucketed(0, coordBuckets)
		w.writeBits(0, 32)
		w.writeUvarint(deadline)
		return w.buf
	}
	// bodyHit is a hit on a game's body whose Local is the codes local,
	// of width bits each, after the code x in Local.X's place (none:
	// noX); with onBody false its part is a humanoid's.
	const noX = math.MaxUint64
	bodyHit := func(onBody bool, x uint64, local []uint64, bits uint) []byte {
		w := bitWriter{}
		w.writeBits(0, 8+32)
		writeHitPart(&w, 1, onBody)
		w.writeBits(0, 16)
		if x != noX {
			w.writeBits(x, localBits)
		}
		for _, c := range local {
			w.writeBits(c, bits)
		}
		for range 3 {
			w.writeBucketed(0, coordBuckets)
		}
		w.writeBits(0, 32)
		w.writeUvarint(0)
		return w.buf
	}
	far := func(x, y, z int64) []uint64 { return []uint64{zigzag(x), zigzag(y), zigzag(z)} }
	validHit, err := AppendHitEvent(nil, &hitEvents()[2])
	if err != nil {
		t.Fatal(err)
	}
	validConfirm, err := AppendConfirmEvent(nil, &confirmEvents()[1])
	if err != nil {
		t.Fatal(err)
	}
	tail := func(b []byte, extra ...byte) []byte { return append(b[:len(b):len(b)], extra...) }
	tests := []struct {
		name string
		dec  func([]byte) error
		b    []byte
		want string
	}{
		{"hit ok", decodeWith(DecodeHitEvent), hit(1, 0, 0, 0), ""},
		{"hit part", decodeWith(DecodeHitEvent), hit(9, 0, 0, 0), "wire: hit event: part 9 out of range: the body has 4 parts"},
		{"hit local", decodeWith(DecodeHitEvent), hit(0, zigzag(-2049), 0, 0), "wire: hit event: local -2.0009765625 m out of range"},
		{"hit eye", decodeWith(DecodeHitEvent), hit(0, 0, MaxCoord+1, 0), "wire: hit event: shooter eye out of range"},
		{"hit body near", decodeWith(DecodeHitEvent), bodyHit(true, noX, far(2048, -2048, 0), localBits), ""},
		{"hit body far", decodeWith(DecodeHitEvent), bodyHit(true, localFar, far(6144, 2049, -65536), localFarBits), ""},
		{"hit body near far", decodeWith(DecodeHitEvent), bodyHit(true, localFar, far(2048, -2048, 0), localFarBits),
			"wire: hit event: local within ±2 m in the far code"},
		{"hit body far out of range", decodeWith(DecodeHitEvent), bodyHit(true, localFar, far(65537, 0, 0), localFarBits),
			"wire: hit event: local 64.0009765625 m out of range on the body"},
		{"hit body far widest", decodeWith(DecodeHitEvent), bodyHit(true, localFar, []uint64{0, 1<<localFarBits - 1, 0}, localFarBits),
			"wire: hit event: local -128 m out of range on the body"},
		{"hit part far", decodeWith(DecodeHitEvent), bodyHit(false, localFar, far(6144, 0, 0), localFarBits),
			"wire: hit event: local -4 m out of range"},
		{"hit body near out of range", decodeWith(DecodeHitEvent), bodyHit(true, noX, []uint64{0, localFar - 1, 0}, localBits),
			"wire: hit event: local 3.9990234375 m out of range"},
		{"hit body far truncated", decodeWith(DecodeHitEvent), bodyHit(true, localFar, far(6144, 0, 0), localFarBits)[:15], // in Local.Z
			"wire: hit event: truncated"},
		{"hit deadline", decodeWith(DecodeHitEvent), hit(0, 0, 0, uint64(MaxClock/time.Microsecond)+1), "wire: hit event: deadline out of range"},
		{"hit empty", decodeWith(DecodeHitEvent), nil, "wire: hit event: truncated"},
		{"hit truncated", decodeWith(DecodeHitEvent), validHit[:len(validHit)-1], "wire: hit event: truncated"},
		{"hit trailing", decodeWith(DecodeHitEvent), tail(validHit, 0), "wire: hit event: 1 trailing bytes"},
		{"hit too long", decodeWith(DecodeHitEvent), make([]byte, MaxEventData+1), "wire: hit event: data of 256 bytes exceeds MaxEventData"},
		{"confirm part", decodeWith(DecodeConfirmEvent), []byte{0, 0, 0, 0, 0, 0x0f, 0, 0xf0}, "wire: confirm event: part 0 in the long code"},
		{"confirm outcome", decodeWith(DecodeConfirmEvent), []byte{0, 0, 0, 0, 0, 0, 0, 0x70}, "wire: confirm event: outcome 7 out of range"},
		{"confirm trailing", decodeWith(DecodeConfirmEvent), tail(validConfirm, 1), "wire: confirm event: 1 trailing bytes"},
		{"verdict outcome", decodeWith(DecodeVerdictEvent), []byte{0, 0, 0, 0, 0x0f}, "wire: verdict event: outcome 15 out of range"},
		{"verdict truncated", decodeWith(DecodeVerdictEvent), []byte{0, 0, 0, 0}, "wire: verdict event: truncated"},
		{"verdict padding", decodeWith(DecodeVerdictEvent), []byte{0, 0, 0, 0, 0x10}, "wire: verdict event: nonzero padding"},
		{"kill truncated", decodeWith(DecodeKillEvent), []byte{1}, "wire: kill event: truncated"},
		{"kill trailing", decodeWith(DecodeKillEvent), []byte{1, 2, 0}, "wire: kill event: 1 trailing bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.dec(tt.b)
			if tt.want == "" && err != nil || tt.want != "" && (err == nil || err.Error() != tt.want) {
				t.Errorf("error %v, want %q", err, tt.want)
			}
		})
	}
}

// TestEventsInSnapshot sends one event of each kind in a snapshot and
// decodes each by its Kind, as a client does.
func TestEventsInSnapshot(t *testing.T) {
	hit, confirm, verdict, kill := hitEvents()[2], confirmEvents()[4], verdictEvents()[5], killEvents()[2]
	must := func(b []byte, err error) []byte {
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	s := &Snapshot{Tick: 10, FirstEventSeq: 3, Events: []Event{
		{Seq: 3, Kind: EventHit, Data: must(AppendHitEvent(nil, &hit))},
		{Seq: 5, Kind: EventConfirm, Data: must(AppendConfirmEvent(nil, &confirm))},
		{Seq: 6, Kind: EventVerdict, Data: must(AppendVerdictEvent(nil, &verdict))},
		{Seq: 9, Kind: EventKill, Data: must(AppendKillEvent(nil, &kill))},
	}}
	b := roundTrip(t, s, nil, MaxDatagram)
	var got Snapshot
	if err := DecodeSnapshot(b, &got, nil); err != nil {
		t.Fatal(err)
	}
	if len(got.Events) != 4 {
		t.Fatalf("%d events, want 4", len(got.Events))
	}
	for _, ev := range got.Events {
		var got, want any
		var err error
		switch ev.Kind {
		case EventHit:
			var e HitEvent
			err = DecodeHitEvent(ev.Data, &e)
			got, want = e, hit
		case EventConfirm:
			var e ConfirmEvent
			err = DecodeConfirmEvent(ev.Data, &e)
			got, want = e, confirm
		case EventVerdict:
			var e VerdictEvent
			err = DecodeVerdictEvent(ev.Data, &e)
			got, want = e, verdict
		case EventKill:
			var e KillEvent
			err = DecodeKillEvent(ev.Data, &e)
			got, want = e, kill
		}
		if err != nil || got != want {
			t.Errorf("event kind %d: got %+v, %v; want %+v", ev.Kind, got, err, want)
		}
	}
}

func TestOutcomeString(t *testing.T) {
	for o, want := range map[Outcome]string{
		OutcomeRegistered: "registered", OutcomeConfirmed: "confirmed", OutcomeDeniedUpheld: "denied_upheld",
		OutcomeDeniedRefuted: "denied_refuted", OutcomeTimeout: "timeout", OutcomeDiscarded: "discarded",
		numOutcomes: "Outcome(6)", 255: "Outcome(255)",
	} {
		if got := o.String(); got != want {
			t.Errorf("Outcome(%d).String() = %q, want %q", uint8(o), got, want)
		}
	}
}
