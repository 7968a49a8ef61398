package wire

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/lagkit/lagkit/geom"
)

func TestMatchEventsRoundTrip(t *testing.T) {
	obj := ObjectiveEvent{What: 2, Objective: 1, Player: 7, Team: 1, Pos: geom.V(-27.5, 0.25, 1.5)}
	b, err := AppendObjectiveEvent(nil, &obj)
	if err != nil {
		t.Fatal(err)
	}
	var obj2 ObjectiveEvent
	if err := DecodeObjectiveEvent(b, &obj2); err != nil || obj2 != obj {
		t.Fatalf("objective: %+v (%v), want %+v", obj2, err, obj)
	}
	obj.Player = -1
	b, _ = AppendObjectiveEvent(nil, &obj)
	if err := DecodeObjectiveEvent(b, &obj2); err != nil || obj2.Player != -1 {
		t.Fatalf("objective with nobody: %+v (%v)", obj2, err)
	}

	sb := ScoreboardEvent{TimeLeft: 90 * time.Second, TeamScore: [2]int16{3, -1}}
	for i := range MaxScoreRows {
		sb.Rows = append(sb.Rows, ScoreRow{ID: uint8(i), Team: uint8(i % 2), Kills: uint16(i * 3), Deaths: 2, Score: int16(-i), PingMS: 250})
	}
	b, err = AppendScoreboardEvent(nil, &sb)
	if err != nil || len(b) > MaxEventData {
		t.Fatalf("scoreboard: %d bytes, %v (at most %d)", len(b), err, MaxEventData)
	}
	var sb2 ScoreboardEvent
	if err := DecodeScoreboardEvent(b, &sb2); err != nil || !reflect.DeepEqual(sb, sb2) {
		t.Fatalf("scoreboard: %+v (%v)", sb2, err)
	}

	st := SettingsEvent{FOVDeg: 90, HitIndicator: true, PingColumn: true, Team: 1, Mode: "ctf"}
	b, err = AppendSettingsEvent(nil, &st)
	if err != nil {
		t.Fatal(err)
	}
	var st2 SettingsEvent
	if err := DecodeSettingsEvent(b, &st2); err != nil || st2 != st {
		t.Fatalf("settings: %+v (%v)", st2, err)
	}
	// Without pause or mandated prediction and display the event keeps
	// its size; with them it round-trips, and decoding into a struct
	// that held them clears them.
	if len(b) != 3+len(st.Mode) {
		t.Errorf("plain settings take %d bytes, want %d", len(b), 3+len(st.Mode))
	}
	more := SettingsEvent{FOVDeg: 100, Team: 0, Mode: "ffa", Paused: true, PredictionOff: true, Display: "opponent-predict"}
	b2, err := AppendSettingsEvent(nil, &more)
	if err != nil {
		t.Fatal(err)
	}
	var more2 SettingsEvent
	if err := DecodeSettingsEvent(b2, &more2); err != nil || more2 != more {
		t.Fatalf("settings with pause, prediction and display: %+v (%v)", more2, err)
	}
	// The feedback keeps the display's event as it was when absent, and
	// round-trips alone or with the rest.
	withDisplay, _ := AppendSettingsEvent(nil, &SettingsEvent{Display: "extrapolate"})
	if want := 3 + 1 + len("extrapolate"); len(withDisplay) != want {
		t.Errorf("settings with a display take %d bytes, want %d (as before the feedback)", len(withDisplay), want)
	}
	for _, m := range []SettingsEvent{{Paused: true}, {PredictionOff: true}, {Display: "extrapolate"},
		{Feedback: "placebo", PlaceboMS: 40}, {Feedback: "placebo", PlaceboPermille: 500}, {Feedback: "none"},
		{Paused: true, Display: "interpolate", Feedback: "netgraph"}} {
		b3, _ := AppendSettingsEvent(nil, &m)
		var got SettingsEvent
		if err := DecodeSettingsEvent(b3, &got); err != nil || got != m {
			t.Errorf("settings %+v decode to %+v (%v)", m, got, err)
		}
	}
	if err := DecodeSettingsEvent(b, &more2); err != nil || more2 != st {
		t.Errorf("plain settings over earlier ones: %+v (%v)", more2, err)
	}
}

func TestMatchEventErrors(t *testing.T) {
	if _, err := AppendObjectiveEvent(nil, &ObjectiveEvent{What: 1, Pos: geom.V(0.001, 0, 0)}); err == nil {
		t.Error("off-grid objective position accepted")
	}
	if _, err := AppendScoreboardEvent(nil, &ScoreboardEvent{Rows: make([]ScoreRow, MaxScoreRows+1)}); err == nil {
		t.Error("too many rows accepted")
	}
	if _, err := AppendSettingsEvent(nil, &SettingsEvent{Mode: "a-very-long-mode-name"}); err == nil {
		t.Error("long mode accepted")
	}
	if _, err := AppendSettingsEvent(nil, &SettingsEvent{Feedback: strings.Repeat("f", MaxFeedbackName+1)}); err == nil {
		t.Error("a feedback name over MaxFeedbackName bytes was encoded")
	}
	if _, err := AppendSettingsEvent(nil, &SettingsEvent{Display: strings.Repeat("d", MaxDisplayName+1)}); err == nil {
		t.Error("long display accepted")
	}
	for _, b := range [][]byte{nil, {0}, {0xff, 0xff, 0xff}} {
		var o ObjectiveEvent
		var s ScoreboardEvent
		var st SettingsEvent
		if DecodeObjectiveEvent(b, &o) == nil || DecodeScoreboardEvent(b, &s) == nil && len(b) < 5 || DecodeSettingsEvent(b, &st) == nil && len(b) < 3 {
			t.Errorf("garbage %x accepted", b)
		}
	}
}

func FuzzDecodeMatchEvents(f *testing.F) {
	b, _ := AppendObjectiveEvent(nil, &ObjectiveEvent{What: 4, Player: 3, Pos: geom.V(1, 2, 0)})
	f.Add(b)
	b, _ = AppendScoreboardEvent(nil, &ScoreboardEvent{Rows: []ScoreRow{{ID: 1, Kills: 4}}})
	f.Add(b)
	b, _ = AppendSettingsEvent(nil, &SettingsEvent{FOVDeg: 90, Mode: "tdm"})
	f.Add(b)
	b, _ = AppendSettingsEvent(nil, &SettingsEvent{FOVDeg: 90, Mode: "tdm", Paused: true, Display: "extrapolate"})
	f.Add(b)
	f.Fuzz(func(t *testing.T, b []byte) {
		var o ObjectiveEvent
		var s ScoreboardEvent
		var st SettingsEvent
		if DecodeObjectiveEvent(b, &o) == nil {
			if _, err := AppendObjectiveEvent(nil, &o); err != nil {
				t.Fatalf("decoded objective does not encode: %v", err)
			}
		}
		_ = DecodeScoreboardEvent(b, &s)
		if DecodeSettingsEvent(b, &st) == nil {
			if _, err := AppendSettingsEvent(nil, &st); err != nil {
				t.Fatalf("decoded settings do not encode: %v", err)
			}
		}
	})
}
