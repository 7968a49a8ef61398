// Package rtt smooths round-trip time samples the way TCP does (RFC 6298:
// SRTT with gain 1/8, RTTVAR with gain 1/4), which is robust to jitter and
// cheap. The server and the client cores each keep one per peer.
package rtt

import "time"

// Resolution is the resolution of the hold times peers report on the
// wire (wire.Commands.AckDelay, wire.Snapshot.EchoHold): whole
// microseconds, truncated by the encoder.
const Resolution = time.Microsecond

// Sample returns the round trip measured for a packet answered elapsed
// after it was sent, whose answer reports that the far end held it for
// hold before answering. The reported hold has lost up to a microsecond
// to truncation on the wire, so elapsed - hold exceeds the true round
// trip by that lost fraction; a round trip of exactly the low-ping or
// round-trip threshold would then be measured just above it, or not,
// depending on the phase of the two clocks. Truncating the difference to
// whole microseconds takes the fraction back out: a round trip of a whole
// number of microseconds is measured exactly, one between two whole
// microseconds as one of them, and no sample is below the true round trip
// truncated to microseconds, so a peer cannot look faster than it is at
// the wire's resolution (a hold claimed longer than elapsed counts as
// elapsed).
func Sample(elapsed, hold time.Duration) time.Duration {
	return (elapsed - min(max(hold, 0), elapsed)).Truncate(Resolution)
}

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
