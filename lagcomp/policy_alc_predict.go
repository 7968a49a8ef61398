package lagcomp

import "time"

// alcPredict is advanced lag compensation without the appeal round trip:
// on a provisional hit the server predicts the victim's pose when the hit
// reaches its client and runs SBC detection on that; its decision is
// final (a variant of [alc]'s advanced lag compensation). Only low-ping victims are
// judged, as under alc.
//
// The victim's client shows its own predicted pose, which leads the
// server's state by the one-way trip of the victim's commands; the hit
// then takes another one-way trip to arrive. So the prediction looks the
// victim's whole round trip ahead of the server's current state, along its
// current velocity.
type alcPredict struct{ lowPing time.Duration }

func newALCPredict(cfg Config) (Policy, error) {
	lp, err := lowPing(cfg)
	return alcPredict{lowPing: lp}, err
}

func (alcPredict) Name() string      { return "alc-predict" }
func (alcPredict) Rewind(*Shot) bool { return true }
func (p alcPredict) Traits() Traits  { return Traits{Rewinds: true, LowPing: p.lowPing} }

func (p alcPredict) Judge(s *Shot, h *Found) Verdict {
	if h.VictimRTT > p.lowPing {
		return Register
	}
	st := h.VictimNow
	st.Pos = st.Pos.AddScaled(st.Vel, h.VictimRTT.Seconds())
	if h.Covered(st, s.Eye) {
		return Discard
	}
	return Register
}
