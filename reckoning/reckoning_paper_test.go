package reckoning

import (
	"math"
	"testing"
	"time"

	"github.com/lagkit/lagkit/geom"
)

// These tests tie the formulas to the led reckoning study ([led]: dead
// reckoning with projective velocity blending, threshold update sending,
// led reckoning with trend maps; see docs/references.md).

const eps = 1e-9

func near(a, b geom.Vec3, tol float64) bool { return a.Dist(b) <= tol }

// "Dead reckoning (first and second order)": an entity at rest is
// predicted to stay where it is. Reference: [led] (docs/references.md).
func TestPaperZeroVelocityPredictsNoMotion(t *testing.T) {
	for _, o := range []Order{First, Second} {
		m := Model{Order: o}
		p := geom.V(3, -2, 0.5)
		m.Update(State{T: time.Second, Pos: p}, 100*time.Millisecond)
		for _, dt := range []time.Duration{0, 10 * time.Millisecond, time.Second, time.Minute} {
			if got := m.At(time.Second + dt); !near(got, p, eps) {
				t.Errorf("order %d, %v later: %v, want %v", o, dt, got, p)
			}
		}
	}
}

// Pt = P0 + V0 T: at constant velocity the first-order projection is
// followed exactly, and a sender sends nothing more than heartbeats.
// Reference: [led] (docs/references.md).
func TestPaperConstantVelocityFollowsFirstOrderProjection(t *testing.T) {
	v := geom.V(4, -1, 0)
	p0 := geom.V(-10, 2, 0)
	var snd Sender
	var rcv Model
	updates := 0
	for i := 0; i <= 64*12; i++ {
		now := time.Duration(i) * time.Second / 64
		truth := p0.AddScaled(v, now.Seconds())
		if blend, due := snd.Step(State{T: now, Pos: truth, Vel: v}, false); due {
			rcv.Update(State{T: now, Pos: truth, Vel: v}, blend)
			updates++
		}
		if got := rcv.At(now); !near(got, truth, 1e-9) {
			t.Fatalf("at %v: %v, want %v", now, got, truth)
		}
	}
	// The first update, then a heartbeat at 5 s and 10 s.
	if updates != 3 {
		t.Errorf("%d updates in 12 s at constant velocity, want 3 (first and two heartbeats)", updates)
	}
}

// P't = P'0 + V'0 T + ½ A'0 T²: second order follows constant
// acceleration exactly. Reference: [led] (docs/references.md).
func TestPaperSecondOrderFollowsConstantAcceleration(t *testing.T) {
	m := Model{Order: Second}
	u := State{Pos: geom.V(1, 2, 3), Vel: geom.V(0, 0, 5), Acc: geom.V(0, 0, -9.81)}
	m.Update(u, 0)
	for _, s := range []float64{0.1, 0.5, 1} {
		want := u.Pos.AddScaled(u.Vel, s).AddScaled(u.Acc, 0.5*s*s)
		if got := m.At(time.Duration(s * float64(time.Second))); !near(got, want, 1e-9) {
			t.Errorf("%v s: %v, want %v", s, got, want)
		}
	}
}

// Q = Pt + (P't - Pt) T̂ and Vb = V0 + (V'0 - V0) T̂: at T̂ = 0 the
// receiver is where it was drawn, and at T̂ = 1 (T = B for led
// reckoning) it has converged on the new trajectory and its velocity.
// Reference: [led] (docs/references.md).
func TestPaperBlendConvergesAtEndOfBlend(t *testing.T) {
	for _, b := range []time.Duration{50 * time.Millisecond, BlendTime(DefaultK, DefaultEtaMin)} {
		m := Model{}
		m.Update(State{Pos: geom.V(0, 0, 0), Vel: geom.V(4, 0, 0)}, 0)
		at := time.Second
		drawn := m.At(at) // (4, 0, 0)
		u := State{T: at, Pos: geom.V(4, 1, 0), Vel: geom.V(0, 4, 0)}
		m.Update(u, b)
		if got := m.At(at); !near(got, drawn, eps) {
			t.Errorf("blend %v: at T̂ = 0 drawn at %v, want %v", b, got, drawn)
		}
		if got := m.BlendedVelocity(at); !near(got, geom.V(4, 0, 0), eps) {
			t.Errorf("blend %v: Vb at T̂ = 0 is %v, want V0", b, got)
		}
		end := at + b
		if got, want := m.At(end), u.Extrapolate(end, First); !near(got, want, 1e-9) {
			t.Errorf("blend %v: at T̂ = 1 drawn at %v, want the new trajectory %v", b, got, want)
		}
		if got := m.BlendedVelocity(end); !near(got, u.Vel, eps) {
			t.Errorf("blend %v: Vb at T̂ = 1 is %v, want V'0 %v", b, got, u.Vel)
		}
		// Halfway, Q lies strictly between the two projections.
		mid := at + b/2
		tt := (b / 2).Seconds()
		vb := geom.V(2, 2, 0)
		pt := drawn.AddScaled(vb, tt)
		want := pt.Lerp(u.Extrapolate(mid, First), 0.5)
		if got := m.At(mid); !near(got, want, 1e-7) { // b/2 rounds to the nanosecond
			t.Errorf("blend %v: at T̂ = ½ drawn at %v, want %v", b, got, want)
		}
	}
}

// "η = ηmin + C (ηmax - ηmin)": C = 1 gives ηmax and C = 0 gives ηmin.
// Reference: [led] (docs/references.md).
func TestPaperThresholdBounds(t *testing.T) {
	for _, tc := range []struct{ c, want float64 }{
		{0, DefaultEtaMin}, {1, DefaultEtaMax}, {0.5, (DefaultEtaMin + DefaultEtaMax) / 2},
		{-1, DefaultEtaMin}, {2, DefaultEtaMax}, {math.NaN(), DefaultEtaMin},
	} {
		if got := Threshold(tc.c, DefaultEtaMin, DefaultEtaMax); math.Abs(got-tc.want) > eps {
			t.Errorf("Threshold(%v) = %v, want %v", tc.c, got, tc.want)
		}
	}
	// The study's middle value is the midpoint of its bounds, so dead
	// reckoning's threshold is led reckoning's at C = ½.
	if math.Abs(Threshold(0.5, DefaultEtaMin, DefaultEtaMax)-DefaultEta) > 1e-3 {
		t.Errorf("midpoint %v, dead reckoning threshold %v", Threshold(0.5, DefaultEtaMin, DefaultEtaMax), DefaultEta)
	}
}

// "C = |Vb · Vp| (unit vectors)", 0 when either is zero; "B = K / η".
// Reference: [led] (docs/references.md).
func TestPaperCorrelationAndBlendTime(t *testing.T) {
	for _, tc := range []struct {
		vb, vp geom.Vec3
		want   float64
	}{
		{geom.V(4, 0, 0), geom.V(1, 0, 0), 1},
		{geom.V(-4, 0, 0), geom.V(1, 0, 0), 1},
		{geom.V(0, 3, 0), geom.V(1, 0, 0), 0},
		{geom.V(2, 2, 0), geom.V(0, 1, 0), math.Sqrt2 / 2},
		{geom.V(0, 0, 0), geom.V(1, 0, 0), 0},
		{geom.V(1, 0, 0), geom.V(0, 0, 0), 0},
	} {
		if got := Correlation(tc.vb, tc.vp); math.Abs(got-tc.want) > eps {
			t.Errorf("Correlation(%v, %v) = %v, want %v", tc.vb, tc.vp, got, tc.want)
		}
	}
	if got := BlendTime(0.5, 2); got != 250*time.Millisecond {
		t.Errorf("BlendTime(0.5, 2) = %v, want 250ms", got)
	}
	if got := BlendTime(DefaultK, DefaultEta); got.Round(time.Millisecond) != 109*time.Millisecond {
		t.Errorf("default blend time at the middle threshold %v, want 0.0415/0.381 s (TestDefaultK)", got)
	}
	if BlendTime(1, 0) != 0 || BlendTime(1, -1) != 0 {
		t.Error("BlendTime with η <= 0 is not 0")
	}
}

// "An entity owner sends a state update only when |actual -
// dead-reckoned| > η (and at least every heartbeat, default 5 s)".
// Reference: [led] (docs/references.md).
func TestPaperThresholdUpdateSending(t *testing.T) {
	snd := Sender{Policy: Dead{Threshold: 1}}
	at := func(ms int) time.Duration { return time.Duration(ms) * time.Millisecond }
	steps := []struct {
		st    State
		force bool
		want  bool
		why   string
	}{
		{State{T: at(0), Vel: geom.V(2, 0, 0)}, false, true, "first state"},
		{State{T: at(100), Pos: geom.V(0.2, 0.9, 0)}, false, false, "0.9 m off"},
		{State{T: at(200), Pos: geom.V(0.4, 1.01, 0)}, false, true, "1.01 m off"},
		{State{T: at(300), Pos: geom.V(0.4, 1.01, 0)}, false, false, "on the trajectory"},
		{State{T: at(400), Pos: geom.V(0.4, 1.01, 0)}, true, true, "forced"},
		{State{T: at(5399), Pos: geom.V(0.4, 1.01, 0)}, false, false, "4.999 s quiet"},
		{State{T: at(5400), Pos: geom.V(0.4, 1.01, 0)}, false, true, "heartbeat"},
	}
	for _, s := range steps {
		if _, got := snd.Step(s.st, s.force); got != s.want {
			t.Errorf("%s at %v: send %v, want %v", s.why, s.st.T, got, s.want)
		}
	}
}

// Led reckoning: an entity going along the trend gets ηmax and the
// shortest blend, one going across it ηmin and the longest; where the
// trend map knows nothing, or the model stands still, dead reckoning's
// threshold. Reference: [led], led reckoning (docs/references.md).
func TestPaperLedThresholdFollowsTrend(t *testing.T) {
	tm := &TrendMap{Map: "m", Team: -1, Bounds: geom.Box(geom.V(0, 0, 0), geom.V(10, 10, 0)), NX: 2, NY: 1}
	tm.Cells = []TrendCell{{Dir: geom.V(1, 0, 0), N: 5}, {}}
	led := Led{Trend: tm}
	for _, tc := range []struct {
		pos, vb geom.Vec3
		want    float64
	}{
		{geom.V(2, 5, 0), geom.V(-4, 0, 0), DefaultEtaMax},
		{geom.V(2, 5, 0), geom.V(0, 4, 0), DefaultEtaMin},
		{geom.V(2, 5, 0), geom.V(0, 0, 0), DefaultEta}, // no direction to compare: C is undefined
		{geom.V(7, 5, 0), geom.V(4, 0, 0), DefaultEta},
		{geom.V(20, 5, 0), geom.V(4, 0, 0), DefaultEta},
	} {
		if got := led.Eta(tc.pos, tc.vb); math.Abs(got-tc.want) > eps {
			t.Errorf("Eta(%v, %v) = %v, want %v", tc.pos, tc.vb, got, tc.want)
		}
	}
	if led.BlendTime(DefaultEtaMax) >= led.BlendTime(DefaultEtaMin) {
		t.Error("blend at ηmax not shorter than at ηmin")
	}
}

// TestSendBlendsLikeADueUpdate: an update sent for another reason (a
// turn, a crouch) blends like one the threshold asked for.
func TestSendBlendsLikeADueUpdate(t *testing.T) {
	var s Sender
	s.Step(State{Vel: geom.V(4, 0, 0)}, false)
	b := s.Send(State{T: time.Second, Pos: geom.V(4, 0.1, 0), Vel: geom.V(4, 0, 0)})
	if want := (Dead{}).BlendTime(DefaultEta); b != want {
		t.Fatalf("blend %v, want %v", b, want)
	}
	if got := s.model.At(time.Second + b); got.Dist(geom.V(4+4*b.Seconds(), 0.1, 0)) > 1e-9 {
		t.Fatalf("after the blend the model is at %v", got)
	}
}
