package reckoning

import (
	"time"

	"github.com/lagkit/lagkit/geom"
)

// Order is the order of the extrapolation: First uses position and
// velocity, Second adds acceleration. The zero Order means First.
type Order int

// The orders of dead reckoning.
const (
	First  Order = 1
	Second Order = 2
)

// State is an entity's kinematic state at time T: what an update
// carries.
type State struct {
	T   time.Duration
	Pos geom.Vec3
	Vel geom.Vec3
	Acc geom.Vec3
}

// Extrapolate returns the position that reckoning of order o predicts
// for s at time t: Pos + Vel T (+ ½ Acc T² for Second), T = t - s.T.
func (s State) Extrapolate(t time.Duration, o Order) geom.Vec3 {
	dt := (t - s.T).Seconds()
	p := s.Pos.AddScaled(s.Vel, dt)
	if o == Second {
		p = p.AddScaled(s.Acc, 0.5*dt*dt)
	}
	return p
}

// Model is a receiver's dead-reckoned view of one remote entity, which
// blends from where it was drawn into each new update (projective
// velocity blending; see the package documentation). The zero Model is
// first order and has had no update.
type Model struct {
	Order Order

	started bool
	u       State     // the last update
	p0, v0  geom.Vec3 // drawn position and blended velocity when it came
	blend   time.Duration
}

// Update starts blending, over the blend time, from the model's view at
// u.T to the trajectory of u. The first update, and one with a blend
// time of zero or less (a teleport), is taken at once.
func (m *Model) Update(u State, blend time.Duration) {
	if m.started {
		m.p0, m.v0 = m.At(u.T), m.BlendedVelocity(u.T)
	} else {
		m.p0, m.v0 = u.Pos, u.Vel
	}
	m.u, m.blend, m.started = u, max(blend, 0), true
}

// Last returns the last update and whether there has been one.
func (m *Model) Last() (State, bool) { return m.u, m.started }

// fraction returns T and T̂, the elapsed fraction of the blend time.
func (m *Model) fraction(t time.Duration) (float64, float64) {
	dt := t - m.u.T
	if dt >= m.blend {
		return dt.Seconds(), 1
	}
	if dt <= 0 {
		return dt.Seconds(), 0
	}
	return dt.Seconds(), float64(dt) / float64(m.blend)
}

// BlendedVelocity returns Vb = V0 + (V'0 - V0) T̂ at time t.
func (m *Model) BlendedVelocity(t time.Duration) geom.Vec3 {
	_, f := m.fraction(t)
	return m.v0.Lerp(m.u.Vel, f)
}

// At returns the position Q the receiver draws at time t, or the zero
// vector before the first update.
func (m *Model) At(t time.Duration) geom.Vec3 {
	dt, f := m.fraction(t)
	vb := m.v0.Lerp(m.u.Vel, f)
	pt := m.p0.AddScaled(vb, dt)
	pu := m.u.Pos.AddScaled(m.u.Vel, dt)
	if m.Order == Second {
		h := 0.5 * dt * dt
		pt = pt.AddScaled(m.u.Acc, h)
		pu = pu.AddScaled(m.u.Acc, h)
	}
	if f >= 1 {
		// The blend is over (or there is none, after a reset): the
		// update's own projection, exactly, not the old path lerped
		// onto it, which leaves a rounding error of the jump's size.
		return pu
	}
	return pt.Lerp(pu, f)
}
