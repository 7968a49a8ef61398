package server

import (
	"time"

	"github.com/lagkit/lagkit/game"
)

// Pause: an administrator freezes a round. While the server is paused
// the game stands still (no command moves or fires, nobody respawns,
// the rules' clock and timers stop) and the networking goes on (ticks,
// snapshots, round-trip measurement, timeouts), so that nobody is
// dropped and play picks up where it stopped.

// pauseState is the server's pause.
type pauseState struct {
	on    bool
	since time.Duration // server time the pause began
	total time.Duration // the length of the pauses before it
}

// Pause freezes the game from the next tick on. Commands that arrive
// while paused are acknowledged and discarded. Every client is told (a
// wire.SettingsEvent with Paused), so that it stops predicting the
// movement the server would discard.
func (s *Server) Pause() {
	if s.pause.on {
		return
	}
	s.pause.on, s.pause.since = true, s.Time()
	s.record(LogEntry{Kind: "pause", Player: -1, Team: -1})
	s.tellPause()
}

// tellPause sends every client the settings with the pause as it now
// stands.
func (s *Server) tellPause() {
	for _, c := range s.clients {
		if c != nil {
			s.sendSettings(c)
		}
	}
}

// Resume lets the game go on, its timers (respawns, spawn protection,
// the rules' clock) shifted by the pause's length.
func (s *Server) Resume() {
	if !s.pause.on {
		return
	}
	d := s.Time() - s.pause.since
	s.pause.on, s.pause.total = false, s.pause.total+d
	for _, c := range s.clients {
		if c != nil {
			c.respawnAt += d
			c.protectedUntil += d
		}
	}
	s.record(LogEntry{Kind: "resume", Player: -1, Team: -1})
	s.tellPause()
}

// Paused reports whether the game is paused.
func (s *Server) Paused() bool { return s.pause.on }

// PausedFor returns how long the game has been paused in all, the
// pause under way included.
func (s *Server) PausedFor() time.Duration {
	if s.pause.on {
		return s.pause.total + s.Time() - s.pause.since
	}
	return s.pause.total
}

// PlayTime is the game's clock: server time less the pauses. The rules'
// timers and the round's length run on it.
func (s *Server) PlayTime() time.Duration { return s.Time() - s.PausedFor() }

// stepPaused is a tick while paused: commands are acknowledged but not
// run, the poses are recorded as they stand, and the snapshots go out.
func (s *Server) stepPaused(now time.Duration) {
	s.tick++
	for _, c := range s.clients {
		if c != nil {
			discardQueued(c)
		}
	}
	s.history.Begin(s.tick)
	for _, c := range s.clients {
		if c != nil {
			s.history.Set(c.id, c.state)
		}
	}
	s.sendSnapshots(now)
}

// discardQueued acknowledges c's queued commands without running them.
func discardQueued(c *client) {
	for c.qN > 0 {
		cmd := c.queue[c.qHead]
		c.qHead = (c.qHead + 1) % len(c.queue)
		c.qN--
		noteExecuted(c, &cmd)
	}
}

// pausedCommand takes a command received while paused: acknowledged,
// never run.
func (s *Server) pausedCommand(c *client, cmd game.UserCmd) {
	c.lastRecv = cmd.Tick
	noteExecuted(c, &cmd)
}
