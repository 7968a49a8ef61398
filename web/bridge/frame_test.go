package bridge

import (
	"testing"
	"time"

	"github.com/lagkit/lagkit/client"
	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/wire"
)

// TestFrameCarriesThePress checks that a fire press the page reports at a
// frame between ticks reaches the next command with its aim.
func TestFrameCarriesThePress(t *testing.T) {
	l := newLoop(t, 1, 10*time.Millisecond)
	l.run(time.Second, func(int) Input { return Input{} })
	s := l.sessions[0]
	if s.Client().Phase() != client.Connected {
		t.Fatal("not connected")
	}
	s.Outbox()
	s.Frame(l.now+3*time.Millisecond, Input{Yaw: 0.5, Pitch: -0.1, Fire: true})
	s.Tick(l.now+l.s.TickDuration(), Input{Yaw: 0.7})
	out := s.Outbox()
	var m wire.Commands
	if len(out) == 0 || wire.DecodeCommands(out[len(out)-1], &m) != nil {
		t.Fatalf("no command packet: %x", out)
	}
	cmd := m.Cmds[len(m.Cmds)-1]
	if !cmd.HasPress || cmd.Press.Yaw != game.YawUnits(0.5) || cmd.Press.Pitch != game.PitchUnits(-0.1) ||
		cmd.Yaw != game.YawUnits(0.7) || !cmd.Buttons.Has(game.BtnFire) {
		t.Errorf("command %+v, want the press at yaw 0.5 rad riding a command aimed at 0.7", cmd)
	}
}
