package server

import (
	"time"

	"github.com/lagkit/lagkit/aimassist"
	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/lagcomp"
)

// newAssist returns aim assistance's mode, nil for none.
func newAssist(cfg aimassist.Config) (aimassist.Mode, error) {
	m, err := aimassist.New(cfg)
	if err != nil || m.Name() == aimassist.None {
		return nil, err
	}
	return m, nil
}

// assistedTrace lets a ray that missed every hitbox hit the nearest part
// of a player the shooter may hit within aim assistance's cone, in the
// same world (at time t), when the line of fire to it is clear. It marks
// such a hit in rec.
func (s *Server) assistedTrace(shot *lagcomp.Shot, ray geom.Ray, w *game.Weapon, t time.Duration, rec *ShotRecord) (lagcomp.Hit, bool) {
	if s.assist == nil {
		return lagcomp.Hit{}, false
	}
	rtt := shot.ShooterRTT
	if rtt == unmeasuredRTT {
		rtt = 0
	}
	cone, centre := s.assist.Cone(rtt)
	if !(cone > 0) {
		return lagcomp.Hit{}, false
	}
	s.assisted = s.assisted[:0]
	for id, c := range s.clients {
		if c == nil || id == shot.Shooter || !s.hittable(shot.Shooter, id) {
			continue
		}
		st, ok := s.history.At(id, t)
		if !ok || st.Has(game.FlagDead) {
			continue
		}
		s.assisted = append(s.assisted, aimassist.Target{ID: id, Pose: st})
	}
	h, ok := aimassist.Trace(ray, w.Range, s.assisted, cone, centre, s.cfg.Map.Grid, s.cfg.Movement)
	rec.Assisted = ok
	return h, ok
}
