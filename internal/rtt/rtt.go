// Package rtt smooths round-trip time samples the way TCP does (RFC 6298:
// SRTT with gain 1/8, RTTVAR with gain 1/4), which is robust to jitter and
// cheap. The server and the client cores each keep one per peer.
package rtt

import "time"

// Estimator is a smoothed round-trip time. The zero value has no samples.
type Estimator struct {
	srtt, rttvar time.Duration
	min          time.Duration
	n            int
}

// Add records one round-trip sample. Negative samples are ignored.
func (e *Estimator) Add(sample time.Duration) {
	if sample < 0 {
		return
	}
	if e.n == 0 {
		e.srtt, e.rttvar, e.min = sample, sample/2, sample
	} else {
		d := e.srtt - sample
		if d < 0 {
			d = -d
		}
		e.rttvar += (d - e.rttvar) / 4
		e.srtt += (sample - e.srtt) / 8
		e.min = min(e.min, sample)
	}
	e.n++
}

// Smoothed returns the smoothed RTT (0 before any sample).
func (e *Estimator) Smoothed() time.Duration { return e.srtt }

// Var returns the smoothed mean deviation of the samples.
func (e *Estimator) Var() time.Duration { return e.rttvar }

// Min returns the smallest sample seen.
func (e *Estimator) Min() time.Duration { return e.min }

// Samples returns how many samples were added.
func (e *Estimator) Samples() int { return e.n }
