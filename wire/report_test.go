package wire

import (
	"strings"
	"testing"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
)

// goldenReport and goldenRewind are the golden vectors of a report and a
// rewind event (testdata/report.hex, testdata/rewind_event.hex; see
// TestGolden).
func goldenReport() Report {
	return Report{Seen: true, Shooter: 7, ShotTick: 1203, SBC: true}
}

func goldenRewind() RewindEvent {
	return RewindEvent{
		Shooter: 3, Victim: 7, ShotTick: 1203, Part: game.PartTorso, Outcome: OutcomeDeniedRefuted,
		Rewind: 137500 * time.Microsecond, Yaw: 49152, Crouched: true,
		Pos: geom.V(-3.5, 12.25, 0), Now: geom.V(-3, 12.25, 0), Eye: geom.V(10.5, -4.25, 1.65234375),
		Impact: geom.V(-3.25, 12, 1.25),
	}
}

// TestReportNoHitSeen checks that a report of no hit has one encoding:
// the encoder refuses stray fields and the decoder refuses them too.
func TestReportNoHitSeen(t *testing.T) {
	b, err := AppendReport(nil, &Report{})
	if err != nil {
		t.Fatal(err)
	}
	var m Report
	if err := DecodeReport(b, &m); err != nil || m != (Report{}) {
		t.Fatalf("empty report decodes to %+v, %v", m, err)
	}
	if _, err := AppendReport(nil, &Report{ShotTick: 5}); err == nil {
		t.Error("a report of no hit with a shot tick encoded")
	}
	bad, _ := AppendReport(nil, &Report{Seen: true, ShotTick: 5})
	bad[1] &^= 1 // clear Seen, the first bit after the type byte
	if err := DecodeReport(bad, &m); err == nil || !strings.Contains(err.Error(), "no hit seen") {
		t.Errorf("a report of no hit with a shot tick decoded: %v", err)
	}
}

// TestRewindEventRejects checks that the encoder refuses what the wire
// cannot carry exactly.
func TestRewindEventRejects(t *testing.T) {
	for _, tt := range []struct {
		name string
		edit func(*RewindEvent)
		want string
	}{
		{"part", func(e *RewindEvent) { e.Part = game.NumParts }, "part"},
		{"outcome", func(e *RewindEvent) { e.Outcome = numOutcomes }, "outcome"},
		{"negative rewind", func(e *RewindEvent) { e.Rewind = -time.Millisecond }, "rewind"},
		{"long rewind", func(e *RewindEvent) { e.Rewind = MaxRewind + time.Microsecond }, "rewind"},
		{"sub-microsecond rewind", func(e *RewindEvent) { e.Rewind = time.Millisecond + 1 }, "rewind"},
		{"off grid", func(e *RewindEvent) { e.Pos.X = 0.3 * game.PosQuantum }, "grid"},
		{"NaN", func(e *RewindEvent) { e.Impact.Z = geom.V(0, 0, 0).Len() / 0 }, "grid"},
	} {
		e := goldenRewind()
		tt.edit(&e)
		dst := []byte{1, 2}
		out, err := AppendRewindEvent(dst, &e)
		if err == nil || !strings.Contains(err.Error(), tt.want) || len(out) != 2 {
			t.Errorf("%s: %v, %d bytes; want an error about %s and dst unchanged", tt.name, err, len(out), tt.want)
		}
	}
}

func FuzzDecodeReport(f *testing.F) {
	fuzzMessage(f, MsgReport, AppendReport, DecodeReport)
}

func FuzzDecodeRewindEvent(f *testing.F) {
	fuzzEvent(f, []RewindEvent{goldenRewind(), {}}, AppendRewindEvent, DecodeRewindEvent)
}
