package reckoning

import (
	"time"

	"github.com/lagkit/lagkit/geom"
)

// Policy sets the error threshold an owner allows and the blend time of
// its updates: Dead for dead reckoning, Led for led reckoning.
type Policy interface {
	// Eta returns the threshold in metres for an entity at pos whose
	// receiver-side blended velocity is vb.
	Eta(pos, vb geom.Vec3) float64
	// BlendTime returns the blend time of an update sent while the
	// threshold is eta.
	BlendTime(eta float64) time.Duration
}

// Sender decides when the owner of one entity sends a state update
// (threshold update sending; Reference: [led], docs/references.md). It
// keeps a copy of the receiver's Model, so that led reckoning sees the
// blended velocity the receiver has. The zero Sender is first-order dead
// reckoning with the default threshold and heartbeat.
type Sender struct {
	Policy Policy // default Dead{}
	Order  Order
	// Heartbeat is the longest time between updates (default 5 s).
	Heartbeat time.Duration

	model Model
}

// Step looks at the entity's true state s and reports whether an update
// is due and, if so, its blend time; the caller then sends s, and the
// receiver calls Model.Update(s, blend). An update is due on the first
// step, when force is set (a teleport, which is taken without
// blending), when the heartbeat has passed, or when s.Pos is further
// than the threshold from the trajectory of the last update.
//
// The distance is to the last update's own trajectory rather than to
// the receiver's blend into it: blending is how the receiver gets
// there, and measuring against it would send again while the receiver
// is still converging.
func (s *Sender) Step(st State, force bool) (time.Duration, bool) {
	p := s.policy()
	s.model.Order = s.Order
	last, sent := s.model.Last()
	eta := p.Eta(st.Pos, s.model.BlendedVelocity(st.T))
	heartbeat := s.Heartbeat
	if heartbeat <= 0 {
		heartbeat = DefaultHeartbeat
	}
	switch {
	case !sent || force:
		s.model.Update(st, 0)
		return 0, true
	case st.T-last.T >= heartbeat, st.Pos.Dist(last.Extrapolate(st.T, s.Order)) > eta:
		b := p.BlendTime(eta)
		s.model.Update(st, b)
		return b, true
	}
	return 0, false
}

// Send sends st now although no update is due (say, the entity turned or
// crouched, which the position threshold does not see), blending into it
// as a due update would; it returns the blend time.
func (s *Sender) Send(st State) time.Duration {
	p := s.policy()
	s.model.Order = s.Order
	if _, sent := s.model.Last(); !sent {
		s.model.Update(st, 0)
		return 0
	}
	b := p.BlendTime(p.Eta(st.Pos, s.model.BlendedVelocity(st.T)))
	s.model.Update(st, b)
	return b
}

func (s *Sender) policy() Policy {
	if s.Policy == nil {
		return Dead{}
	}
	return s.Policy
}
