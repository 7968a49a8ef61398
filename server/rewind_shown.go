package server

import (
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/wire"
)

// showTested shows the shooter and the victim of h, a registered hit
// judged outside the hitscan path (a projectile's contact or blast, a
// time warp's re-judgement), what the server tested (Config.ShowRewind):
// the victim in pose, rewound by rewind from the present (0 for a
// projectile, which meets the states of its tick).
func (s *Server) showTested(h *hitInfo, pose game.PlayerState, rewind time.Duration) {
	if !s.cfg.ShowRewind {
		return
	}
	now := pose.Pos
	if h.victim >= 0 && h.victim < len(s.clients) && s.clients[h.victim] != nil {
		now = s.clients[h.victim].state.Pos
	}
	impact := h.impact
	if impact == (geom.Vec3{}) {
		// A re-judgement that kept a recorded hit has no impact point:
		// the part hit stands in for it.
		impact = game.Hitboxes(pose, s.cfg.Movement)[h.part%game.NumParts].Origin
	}
	h.tested = tested{ok: true, pose: pose, now: now, impact: impact, rewindMS: max(0, float64(rewind)/float64(time.Millisecond))}
	s.showRewind(h, wire.OutcomeRegistered)
}
