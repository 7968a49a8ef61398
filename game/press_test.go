package game

import (
	"testing"
	"time"

	"github.com/lagkit/lagkit/geom"
)

func TestAimedTakesThePress(t *testing.T) {
	cmd := UserCmd{Tick: 9, Duration: 15625 * time.Microsecond, Yaw: 100, Pitch: 20, ViewTime: time.Second, Buttons: BtnFire}
	if got := cmd.Aimed(); got != cmd {
		t.Errorf("without a press Aimed changed the command: %+v", got)
	}
	cmd.HasPress = true
	cmd.Press = Press{Offset: 5 * time.Millisecond, Yaw: 65000, Pitch: -30, ViewTime: 990 * time.Millisecond}
	got := cmd.Aimed()
	if got.Yaw != 65000 || got.Pitch != -30 || got.ViewTime != 990*time.Millisecond || got.Tick != 9 || got.Buttons != BtnFire {
		t.Errorf("Aimed = %+v, want the press's angles and view time on the command", got)
	}
}

func TestPressEyeIsTheEyeShown(t *testing.T) {
	before := PlayerState{Pos: geom.V(0, 0, 0)}
	after := PlayerState{Pos: geom.V(4, -2, 0), Flags: FlagCrouched}
	cmd := UserCmd{Duration: 20 * time.Millisecond}
	if got, want := PressEye(before, after, cmd, nil), EyePos(after, nil); got != want {
		t.Errorf("no press: eye %v, want the eye after the command %v", got, want)
	}
	cmd.HasPress = true
	for _, offset := range []time.Duration{0, 5 * time.Millisecond, 20 * time.Millisecond} {
		cmd.Press.Offset = offset
		if got, want := PressEye(before, after, cmd, nil), EyePos(before, nil); got != want {
			t.Errorf("press at %v: eye %v, want the eye before the command %v", offset, got, want)
		}
	}
}
