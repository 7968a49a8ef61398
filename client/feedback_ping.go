package client

import "time"

// feedbackPing shows the measured round trip as one number.
type feedbackPing struct{}

func (feedbackPing) Name() string { return "ping" }

func (f feedbackPing) Show(rtt time.Duration, _ Placebo) Shown {
	return Shown{Feedback: f.Name(), HasPing: true, PingMS: ms(rtt)}
}
