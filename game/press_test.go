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

func TestPressEyeInterpolatesTheCommandsMove(t *testing.T) {
	before := PlayerState{Pos: geom.V(0, 0, 0)}
	after := PlayerState{Pos: geom.V(4, -2, 0), Flags: FlagCrouched}
	d := 20 * time.Millisecond
	cmd := UserCmd{Duration: d}
	if got, want := PressEye(before, after, cmd, nil), EyePos(after, nil); got != want {
		t.Errorf("no press: eye %v, want the eye after the command %v", got, want)
	}
	cmd.HasPress = true
	for _, tt := range []struct {
		offset time.Duration
		want   geom.Vec3
	}{
		{0, EyePos(before, nil)},
		{d / 4, EyePos(before, nil).Lerp(EyePos(after, nil), 0.25)},
		{d, EyePos(after, nil)},
	} {
		cmd.Press.Offset = tt.offset
		if got := PressEye(before, after, cmd, nil); got.Dist(tt.want) > 1e-12 {
			t.Errorf("press at %v: eye %v, want %v", tt.offset, got, tt.want)
		}
	}
}
