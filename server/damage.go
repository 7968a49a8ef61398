package server

import (
	"errors"
	"fmt"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/timewarp"
)

// ErrNoPlayer is wrapped by the error of Damage for a slot with no
// connected player.
var ErrNoPlayer = errors.New("server: no player in slot")

// Damage takes amount of health from the player in slot victim, for a
// game that hurts players other than by shooting them (a fall, a
// closing zone, a trap; a shot's damage goes through ShotWorld.Hit),
// through the path lagkit's own hits take: at no health
// the player dies as a kill by the player in slot by (by == victim: no
// one's), scored by the match's rules (Config.Rules), counted in the tallies (the
// victim's hits taken and death, by's hit and kill), announced to every client (wire.EventKill), and respawned
// after Config.RespawnDelay. The health is sent in the next snapshot; a
// game tells the players of the hit itself (SendEvent). A dead or
// spawn-protected player takes no damage; teams are not checked, the
// game says whom it hurts. It reports whether the damage killed;
// call it between ticks (realtime.MatchConfig.OnTick). Under time warp
// the damage is a fact of the tick just run: a re-simulation that re-runs
// the victim through that tick takes the health from its re-simulated
// state again (warpChange).
func (s *Server) Damage(victim int, amount int16, by int) (killed bool, err error) {
	switch {
	case victim < 0 || victim >= len(s.clients) || s.clients[victim] == nil:
		return false, fmt.Errorf("server: damage %d: %w", victim, ErrNoPlayer)
	case by < 0 || by >= len(s.clients):
		return false, fmt.Errorf("server: damage %d by %d: not a player slot (0..%d)", victim, by, len(s.clients)-1)
	case amount <= 0:
		return false, fmt.Errorf("server: damage %d: amount %d, want more than 0", victim, amount)
	}
	v := s.clients[victim]
	if v.state.Has(game.FlagDead) || v.state.Has(game.FlagProtected) {
		return false, nil
	}
	v.hitsTaken++
	if k := s.clients[by]; k != nil && by != victim {
		k.hitsLanded++
	}
	v.state.Health -= min(amount, max(v.state.Health, 0))
	killed = v.state.Health <= 0
	if killed {
		s.kill(s.Time(), by, victim)
	}
	if s.warp != nil {
		s.warpChange(v, timewarp.Change{Damage: amount, By: by, Killed: killed})
	}
	return killed, nil
}
