// Package netcheck sums up round-trip samples for a study's manipulation
// check: what a seat's link really did beside what was injected.
package netcheck

import (
	"math"
	"slices"
	"time"
)

// RTT accumulates round-trip samples, in milliseconds.
type RTT struct {
	samples []float64
	absDiff float64 // sum of |sample - previous sample|
}

// Add records one sample; a zero or negative one (no estimate yet) is
// left out.
func (r *RTT) Add(d time.Duration) {
	if d <= 0 || d == time.Duration(math.MaxInt64) {
		return
	}
	ms := float64(d) / float64(time.Millisecond)
	if n := len(r.samples); n > 0 {
		r.absDiff += math.Abs(ms - r.samples[n-1])
	}
	r.samples = append(r.samples, ms)
}

// Merge adds o's samples after r's.
func (r *RTT) Merge(o *RTT) {
	if o == nil || len(o.samples) == 0 {
		return
	}
	if n := len(r.samples); n > 0 {
		r.absDiff += math.Abs(o.samples[0] - r.samples[n-1])
	}
	r.samples = append(r.samples, o.samples...)
	r.absDiff += o.absDiff
}

// Summary is a summary of round-trip samples, in milliseconds.
type Summary struct {
	N    int
	Mean float64
	P50  float64
	P95  float64
	// Jitter is the mean absolute difference between successive samples
	// (RFC 3550's measure, unsmoothed).
	Jitter float64
}

// Summary sums the samples up (all zero without any).
func (r *RTT) Summary() Summary {
	n := len(r.samples)
	if n == 0 {
		return Summary{}
	}
	s := slices.Clone(r.samples)
	slices.Sort(s)
	sum := 0.0
	for _, v := range s {
		sum += v
	}
	out := Summary{N: n, Mean: sum / float64(n), P50: quantile(s, 0.5), P95: quantile(s, 0.95)}
	if n > 1 {
		out.Jitter = r.absDiff / float64(n-1)
	}
	return out
}

// quantile is the q-quantile of sorted s, interpolated linearly.
func quantile(s []float64, q float64) float64 {
	pos := q * float64(len(s)-1)
	i := int(pos)
	if i+1 >= len(s) {
		return s[len(s)-1]
	}
	return s[i] + (pos-float64(i))*(s[i+1]-s[i])
}

// Link is what an emulated link did: datagrams sent into it, dropped by
// it, and the summed delay of those it delivered.
type Link struct {
	Sent, Dropped, Delivered int
	Delay                    time.Duration
}

// Add adds o's counts.
func (l *Link) Add(o Link) {
	l.Sent += o.Sent
	l.Dropped += o.Dropped
	l.Delivered += o.Delivered
	l.Delay += o.Delay
}

// Loss is the share of datagrams dropped (0 without any sent).
func (l Link) Loss() float64 {
	if l.Sent == 0 {
		return 0
	}
	return float64(l.Dropped) / float64(l.Sent)
}

// MeanDelayMS is the delivered datagrams' mean one-way delay in
// milliseconds.
func (l Link) MeanDelayMS() float64 {
	if l.Delivered == 0 {
		return 0
	}
	return float64(l.Delay) / float64(l.Delivered) / float64(time.Millisecond)
}
