package server

import (
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/lagcomp"
	"github.com/lagkit/lagkit/scaling"
)

// newScaler returns attribute scaling's mode, nil for none.
func newScaler(cfg scaling.Config) (scaling.Mode, error) {
	m, err := scaling.New(cfg)
	if err != nil || m.Name() == scaling.None {
		return nil, err
	}
	return m, nil
}

// scaledTrace tests a ray that missed every true hitbox again against
// the hitboxes of the players the shooter may hit scaled by attribute
// scaling's factor for the shooter, in the same world (at time t, the
// shot's target time when rewound). It notes the factor in rec.
func (s *Server) scaledTrace(shot *lagcomp.Shot, ray geom.Ray, w *game.Weapon, t time.Duration, rec *ShotRecord) (lagcomp.Hit, bool) {
	if s.scaler == nil || shot.ShooterRTT == unmeasuredRTT {
		return lagcomp.Hit{}, false
	}
	f := s.scaler.Scale(shot.ShooterRTT)
	if !(f > 1) {
		return lagcomp.Hit{}, false
	}
	rec.Scale = f
	s.targets = s.targets[:0]
	for id, c := range s.clients {
		if c == nil || id == shot.Shooter || !s.hittable(shot.Shooter, id) {
			continue
		}
		st, ok := s.history.At(id, t)
		if !ok || st.Has(game.FlagDead) {
			continue
		}
		s.targets = append(s.targets, scaling.Target{ID: id, Pose: st})
	}
	h, ok := scaling.Trace(ray, w.Range, s.targets, f, s.cfg.Map.Grid, s.cfg.Movement)
	rec.Scaled = ok
	return h, ok
}
