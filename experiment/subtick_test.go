package experiment

import (
	"reflect"
	"testing"
	"time"
)

// TestSubtickPressesReachTheServer checks the sub-tick cell end to end:
// with sub-tick input every shot a press fired is traced with the press's
// aim and, once rewound, at the press's view time; without it the server
// tests the tick's aim and view time, later than the press; prediction
// stays exact on the clean links either way.
func TestSubtickPressesReachTheServer(t *testing.T) {
	for _, hz := range []int{20, 64} {
		tick, err := playSubtick(hz, false, 40*time.Second, 3)
		if err != nil {
			t.Fatal(err)
		}
		sub, err := playSubtick(hz, true, 40*time.Second, 3)
		if err != nil {
			t.Fatal(err)
		}
		tm, sm := tick.Metrics, sub.Metrics
		t.Logf("%d Hz: tick %v\nsub-tick %v", hz, tm, sm)
		if sm["pressed_shots"] < 20 || sm["timed_shots"] < 20 || tm["pressed_shots"] < 20 {
			t.Fatalf("%d Hz: too few shots fired by presses: %v, %v", hz, tm, sm)
		}
		if sm["aim_error_deg"] > 0.01 || sm["view_time_error_ms"] > 0.001 {
			t.Errorf("%d Hz sub-tick: aim error %.4f°, view time error %.4f ms, want the press's own", hz, sm["aim_error_deg"], sm["view_time_error_ms"])
		}
		if tm["view_time_error_ms"] < 1 || tm["aim_error_deg"] < 0.1 {
			t.Errorf("%d Hz without sub-tick: view time error %.3f ms, aim error %.3f°, want the distance to the tick", hz, tm["view_time_error_ms"], tm["aim_error_deg"])
		}
		if tm["prediction_error_max_m"] != 0 || sm["prediction_error_max_m"] != 0 {
			t.Errorf("%d Hz: prediction error %v and %v on clean links, want 0", hz, tm["prediction_error_max_m"], sm["prediction_error_max_m"])
		}
	}
}

// TestSubtickIsDeterministic: a cell is a function of its seed, frames
// between ticks included.
func TestSubtickIsDeterministic(t *testing.T) {
	a, err := playSubtick(20, true, 20*time.Second, 9)
	if err != nil {
		t.Fatal(err)
	}
	b, err := playSubtick(20, true, 20*time.Second, 9)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a.Metrics, b.Metrics) || a.Metrics["shots"] == 0 {
		t.Errorf("same seed, different cells:\n%v\n%v", a.Metrics, b.Metrics)
	}
}
