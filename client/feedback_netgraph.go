package client

import "time"

// feedbackNetGraph shows the full net graph: round trip, jitter, loss,
// buffers and rates over time, and the ping.
type feedbackNetGraph struct{}

func (feedbackNetGraph) Name() string { return "netgraph" }

func (f feedbackNetGraph) Show(rtt time.Duration, _ Placebo) Shown {
	return Shown{Feedback: f.Name(), HasPing: true, PingMS: ms(rtt), Graph: true}
}
