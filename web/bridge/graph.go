package bridge

import (
	"math"
	"time"
)

// rttSamples is how many round-trip samples the net graph keeps: its
// jitter and the page's sparkline cover the last few seconds.
const rttSamples = 64

// graph gathers the net graph's figures, the feedback group of latency
// compensation techniques in [taxonomy]: what the link does to the
// player, shown so the player can tell lag from a miss.
type graph struct {
	in, out rateMeter
	rtt     [rttSamples]float64 // ms, one per snapshot
	nrtt    int
	// interval is the smallest tick gap seen between consecutive
	// snapshots: the server's snapshot interval.
	interval      uint32
	newest        uint32 // tick of the newest snapshot
	got, missed   int
	newestReached bool
}

// snapshot records a snapshot of tick the client took at now, with the
// client's round trip estimate then.
func (g *graph) snapshot(now time.Duration, tick uint32, rtt time.Duration) {
	g.rtt[g.nrtt%rttSamples] = float64(rtt) / float64(time.Millisecond)
	g.nrtt++
	g.got++
	if !g.newestReached {
		g.newest, g.newestReached = tick, true
		return
	}
	if tick <= g.newest {
		return
	}
	gap := tick - g.newest
	g.newest = tick
	if g.interval == 0 || gap < g.interval {
		g.interval = gap
	}
	if n := gap/g.interval - 1; n > 0 && n < 1<<16 {
		g.missed += int(n)
	}
}

// samples returns the round-trip samples kept, oldest first.
func (g *graph) samples() []float64 {
	n := min(g.nrtt, rttSamples)
	out := make([]float64, n)
	for i := range n {
		out[i] = g.rtt[(g.nrtt-n+i)%rttSamples]
	}
	return out
}

// jitter is the mean absolute deviation of the kept round-trip samples.
func jitter(ms []float64) float64 {
	if len(ms) == 0 {
		return 0
	}
	mean := 0.0
	for _, v := range ms {
		mean += v
	}
	mean /= float64(len(ms))
	dev := 0.0
	for _, v := range ms {
		dev += math.Abs(v - mean)
	}
	return dev / float64(len(ms))
}

// loss is the share of snapshots missed among those the server sent since
// the first one received.
func (g *graph) loss() float64 {
	if g.got+g.missed == 0 {
		return 0
	}
	return float64(g.missed) / float64(g.got+g.missed)
}

// buffer returns how far the newest snapshot lies ahead of the view time
// (the interpolation buffer) and how far the view time lies beyond it
// (extrapolated, when the buffer ran dry), in ms.
func (g *graph) buffer(view, tickDur time.Duration) (ahead, beyond float64) {
	if !g.newestReached || tickDur <= 0 {
		return 0, 0
	}
	d := float64(time.Duration(g.newest)*tickDur-view) / float64(time.Millisecond)
	if d >= 0 {
		return d, 0
	}
	return 0, -d
}
