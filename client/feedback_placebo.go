package client

import "time"

// feedbackPlacebo shows a ping unlike the real one: a fixed value, or
// the real round trip scaled, and no net graph (which would give the
// real one away).
type feedbackPlacebo struct{}

func (feedbackPlacebo) Name() string { return "placebo" }

func (f feedbackPlacebo) Show(rtt time.Duration, p Placebo) Shown {
	v := p.MS
	if v <= 0 {
		v = ms(rtt) * p.Scale
	}
	return Shown{Feedback: f.Name(), HasPing: true, PingMS: v}
}
