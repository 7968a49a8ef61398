package server

import "github.com/lagkit/lagkit/game"

// Restart begins the round anew from the next tick, as a study round's
// measured part does after its warm-up, so that nothing of the warm-up
// counts: the rules' scores and objectives go back to their start
// (Rules.Restart), every player's statistics to zero (those kept
// for players away too), projectiles in flight are gone and hits
// awaiting their victims' appeals are void (a warm-up shot lands in no
// record and hurts nobody after it), and the living are healed. Nobody is moved: play
// goes on where it stands, and the dead respawn when they were due.
// Clients see the flags and points in objective events, and the zeroed
// scores in a scoreboard sent now. Under time warp no warp reaches back
// before the restart: a command issued earlier runs at the next tick.
func (s *Server) Restart() {
	s.rules.Restart(s.PlayTime())
	s.projectiles = s.projectiles[:0]
	for i := range s.appeals {
		if a := &s.appeals[i]; a.active {
			a.active = false
			s.activeAppeals--
		}
	}
	if s.warp != nil {
		s.warpRestart()
	}
	for k, v := range s.kept {
		v.tally = Tally{}
		s.kept[k] = v
	}
	for _, c := range s.clients {
		if c == nil {
			continue
		}
		c.kills, c.deaths, c.shotsFired, c.hitsLanded, c.hitsTaken, c.pressShots = 0, 0, 0, 0, 0, 0
		if !c.state.Has(game.FlagDead) {
			c.state.Health = s.maxHealth(c.id, &c.state)
		}
	}
	s.record(LogEntry{Kind: "restart", Player: -1, Team: -1})
	s.sendScoreboard(s.PlayTime())
}
