package client

import (
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/reckoning"
)

// DeadReckon draws remote players at the received server time with dead
// (or led) reckoning and projective velocity blending into each new
// state (Config.Reckoning): the model a server's threshold replication
// assumes its clients hold.
var DeadReckon Display = deadReckon{}

type deadReckon struct{}

func (deadReckon) Name() string { return "dead-reckon" }

func (deadReckon) delay(*Config) time.Duration { return 0 }

// received blends as the sender's copy of this model does: over the
// blend time of the threshold at this state, or not at all after a
// reset.
func (deadReckon) received(c *Client, id int, r *remote, reset bool) {
	t, st := r.h[r.head].t, r.h[r.head].s
	u := reckoning.State{T: t, Pos: st.Pos, Vel: st.Vel}
	var blend time.Duration
	if !reset {
		p := c.reckoning(id)
		blend = p.BlendTime(p.Eta(u.Pos, r.dr.BlendedVelocity(t)))
	}
	r.dr.Order = c.cfg.ReckoningOrder
	r.dr.Update(u, blend)
}

func (deadReckon) draw(_ *Config, r *remote, t time.Duration, out *game.PlayerState) {
	*out = r.h[r.head].s
	out.Pos = r.dr.At(t)
}

// reckoning returns the DeadReckon policy for remote player id.
func (c *Client) reckoning(id int) reckoning.Policy {
	if len(c.cfg.ReckoningTeams) > 0 {
		if t := c.TeamOf(id); t >= 0 && t < len(c.cfg.ReckoningTeams) && c.cfg.ReckoningTeams[t] != nil {
			return c.cfg.ReckoningTeams[t]
		}
	}
	if c.cfg.Reckoning == nil {
		return reckoning.Dead{}
	}
	return c.cfg.Reckoning
}
