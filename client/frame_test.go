package client

import (
	"testing"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/wire"
)

// newestCmd returns the newest command of the packet a tick handed over.
func newestCmd(t *testing.T, r *Ready) game.UserCmd {
	t.Helper()
	out := r.Messages
	if len(out) == 0 {
		t.Fatal("no command packet sent")
	}
	var m wire.Commands
	if err := wire.DecodeCommands(out[len(out)-1].Data, &m); err != nil {
		t.Fatal(err)
	}
	return m.Cmds[len(m.Cmds)-1]
}

// TestFramesBetweenTicksCarryThePress checks the frame-rate input API: a
// fire press found at a frame between two ticks rides the next command
// with its instant (as an offset into the command), its aim and its view
// time; a click shorter than a tick still fires; a button held on, or one
// only the ticks report, is no press.
func TestFramesBetweenTicksCarryThePress(t *testing.T) {
	c := connected(t, Config{})
	frame := time.Second / 144
	t0 := 10 * tick // a tick: the command issued then covers (t0-tick, t0]
	c.Tick(t0-tick, game.UserCmd{})

	// Frames at 144 Hz: up, then down with the crosshair on the target,
	// then still down while the aim swings on.
	f1, f2, f3 := t0-tick+frame/2, t0-tick+frame/2+frame, t0-tick+frame/2+2*frame
	c.Frame(f1, 100, 0, false)
	c.Frame(f2, 120, -5, true)
	c.Frame(f3, 300, -9, true)
	cmd := newestCmd(t, c.Tick(t0, game.UserCmd{Yaw: 400, Pitch: -12, Buttons: game.BtnFire}))
	want := game.Press{Offset: (f2 - (t0 - tick)).Truncate(time.Microsecond), Yaw: 120, Pitch: -5,
		ViewTime: c.ViewTime(f2).Truncate(time.Microsecond)}
	if !cmd.HasPress || cmd.Press != want || cmd.Yaw != 400 || !cmd.Buttons.Has(game.BtnFire) {
		t.Fatalf("command %+v, want press %+v with the tick's aim 400", cmd, want)
	}

	// Held on through the next tick: no new press.
	c.Frame(t0+frame/2, 410, -12, true)
	if cmd := newestCmd(t, c.Tick(t0+tick, game.UserCmd{Yaw: 420, Buttons: game.BtnFire})); cmd.HasPress || !cmd.Buttons.Has(game.BtnFire) {
		t.Fatalf("held button: command %+v, want fire without a press", cmd)
	}

	// Released, then a click shorter than a tick: down at one frame, up
	// at the next, and up at the tick. The second press before the tick
	// is not kept.
	c.Frame(t0+tick+frame/2, 420, 0, false)
	c.Tick(t0+2*tick, game.UserCmd{Yaw: 420})
	c.Frame(t0+2*tick+time.Millisecond, 500, 3, true)
	c.Frame(t0+2*tick+2*time.Millisecond, 510, 3, false)
	c.Frame(t0+2*tick+3*time.Millisecond, 520, 3, true)
	c.Frame(t0+2*tick+4*time.Millisecond, 530, 3, false)
	cmd = newestCmd(t, c.Tick(t0+3*tick, game.UserCmd{Yaw: 600}))
	if !cmd.HasPress || cmd.Press.Offset != time.Millisecond || cmd.Press.Yaw != 500 || !cmd.Buttons.Has(game.BtnFire) {
		t.Fatalf("short click: command %+v, want the first press 1 ms in, holding fire", cmd)
	}

	// Without frames, ticks alone: the press is the tick's (no sub-tick
	// press), as before frames existed.
	c.Tick(t0+4*tick, game.UserCmd{})
	if cmd := newestCmd(t, c.Tick(t0+5*tick, game.UserCmd{Buttons: game.BtnFire})); cmd.HasPress || !cmd.Buttons.Has(game.BtnFire) {
		t.Fatalf("ticks only: command %+v, want fire without a press", cmd)
	}
}
