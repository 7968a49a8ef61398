package wire

import (
	"bytes"
	"encoding/hex"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
)

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

// TestReportGolden checks the encodings of a report and a rewind event
// against testdata/report.hex and testdata/rewind_event.hex (-update
// rewrites them), and that they decode to what was encoded.
func TestReportGolden(t *testing.T) {
	report, rewind := goldenReport(), goldenRewind()
	for _, g := range []struct {
		name   string
		encode func() ([]byte, error)
		decode func([]byte) (any, error)
		want   any
	}{
		{"report", func() ([]byte, error) { return AppendReport(nil, &report) },
			func(b []byte) (any, error) { var m Report; err := DecodeReport(b, &m); return m, err }, report},
		{"rewind_event", func() ([]byte, error) { return AppendRewindEvent(nil, &rewind) },
			func(b []byte) (any, error) { var e RewindEvent; err := DecodeRewindEvent(b, &e); return e, err }, rewind},
	} {
		t.Run(g.name, func(t *testing.T) {
			b, err := g.encode()
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", g.name+".hex")
			if *update {
				if err := os.WriteFile(path, []byte(formatHex(b)), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			text, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			want, err := hex.DecodeString(strings.Join(strings.Fields(string(text)), ""))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(b, want) {
				t.Errorf("encoding changed:\ngot  %x\nwant %x", b, want)
			}
			got, err := g.decode(want)
			if err != nil || !reflect.DeepEqual(got, g.want) {
				t.Errorf("decoding %s: %+v, %v; want %+v", path, got, err, g.want)
			}
			for n := range len(want) {
				if _, err := g.decode(want[:n]); err == nil {
					t.Errorf("cut to %d of %d bytes: no error", n, len(want))
				}
			}
		})
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
	r := goldenReport()
	b, _ := AppendReport(nil, &r)
	f.Add(b)
	fuzzMessage(f, MsgReport, AppendReport, DecodeReport)
}

func FuzzDecodeRewindEvent(f *testing.F) {
	fuzzEvent(f, []RewindEvent{goldenRewind(), {}}, AppendRewindEvent, DecodeRewindEvent)
}
