package server

import (
	"testing"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/shooter/mode"
)

// TestPauseFreezesTheGame: while paused nobody moves or fires, the dead
// do not respawn and the round's clock stands still, yet snapshots keep
// going out and nobody times out, even past Config.Timeout; on resume
// the game goes on from where it stood.
func TestPauseFreezesTheGame(t *testing.T) {
	d := newDuel(t, Config{Rules: modeRules(mode.Config{Mode: mode.TDM, Duration: 10 * time.Second}), Timeout: 2 * time.Second})
	for range 40 {
		d.shoot(nil)
		d.run(120 * time.Millisecond)
		if c, _ := d.s.Client(1); c.Deaths == 1 {
			break
		}
	}
	victim, _ := d.s.Client(1)
	if !victim.State.Has(game.FlagDead) {
		t.Fatal("the victim did not die")
	}
	play := d.s.PlayTime()
	d.s.Pause()
	shooter, _ := d.s.Client(0)
	d.cmd[1] = game.UserCmd{Forward: 127, Buttons: game.BtnFire}
	d.cmd[2] = game.UserCmd{Forward: 127}
	d.records = nil
	snaps := 0
	for end := d.s.Time() + 5*time.Second; d.s.Time() < end; {
		d.tick(nil)
		snaps++
	}
	if got := d.s.PlayTime(); got != play {
		t.Fatalf("the play clock moved from %v to %v while paused", play, got)
	}
	if len(d.records) != 0 {
		t.Fatalf("%d shots judged while paused", len(d.records))
	}
	if c, _ := d.s.Client(0); c.State.Pos != shooter.State.Pos || c.Shots != shooter.Shots {
		t.Fatalf("the shooter moved or fired while paused: %v -> %v, %d -> %d shots", shooter.State.Pos, c.State.Pos, shooter.Shots, c.Shots)
	}
	if c, ok := d.s.Client(1); !ok || !c.State.Has(game.FlagDead) {
		t.Fatal("the victim respawned while paused, or timed out")
	}
	if c, _ := d.s.Client(0); c.Snapshots < snaps/2 {
		t.Fatalf("%d snapshots in %d paused ticks", c.Snapshots, snaps)
	}
	d.s.Resume()
	d.run(4 * time.Second)
	if c, _ := d.s.Client(1); c.State.Has(game.FlagDead) {
		t.Fatal("the victim did not respawn after the pause")
	}
	if c, _ := d.s.Client(0); c.State.Pos == shooter.State.Pos {
		t.Fatal("the shooter does not move after the pause")
	}
	if got := d.s.PlayTime(); got < play+4*time.Second-d.s.TickDuration() || got > play+4*time.Second+d.s.TickDuration() {
		t.Fatalf("play clock %v four seconds after the resume, want about %v", got, play+4*time.Second)
	}
	if d.s.Rules().Over(d.s.PlayTime()) {
		t.Fatal("the round ended counting its pause")
	}
	if d.s.PausedFor() < 5*time.Second {
		t.Fatalf("paused for %v, want 5s", d.s.PausedFor())
	}
}
