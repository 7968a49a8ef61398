// Package netem emulates one direction of a network path on a virtual clock:
// delay with jitter, random and bursty loss, duplication, reordering and a
// bandwidth bottleneck with a finite queue. The simulation driver carries
// datagrams through a Link per player and direction, so a whole match is
// reproducible from its seeds and runs as fast as the CPU allows.
package netem

import (
	"fmt"
	"math"
	"time"
)

// Limits and defaults of a Config.
const (
	// MaxDelay bounds Latency, Jitter and ReorderDelay, so delivery times
	// stay far from overflowing time.Duration.
	MaxDelay = time.Hour

	// MaxQueueLimit bounds QueueLimit (1 GiB), so the bottleneck's exact
	// integer arithmetic (bytes x 1e9) cannot overflow.
	MaxQueueLimit = 1 << 30

	// DefaultReorderDelay is the hold of a reordered packet when
	// ReorderDelay is 0: just over one interval of lagkit's default 64 Hz
	// tick (15.6 ms), so the next packet of a per-tick stream overtakes it.
	DefaultReorderDelay = 20 * time.Millisecond

	// DefaultQueueDelay sizes the bottleneck queue when QueueLimit is 0:
	// Bandwidth x 100 ms, the bandwidth-delay product of a 100 ms round
	// trip. Sizing a buffer at one bandwidth-delay product is the classic
	// rule of thumb (Villamizar and Song, "High performance TCP in ANSNET",
	// 1994).
	DefaultQueueDelay = 100 * time.Millisecond

	// MinQueueLimit is the smallest default queue: one Ethernet MTU, so an
	// idle link carries any datagram that fits in a frame.
	MinQueueLimit = 1500
)

// Config describes one direction of a path. The zero Config delivers every
// packet at the instant it is sent.
type Config struct {
	// Latency is the base one-way delay.
	Latency time.Duration

	// Jitter is the standard deviation of a normally distributed term added
	// to Latency for each packet. A normal distribution is the usual first
	// model of queueing jitter and is what Linux netem's "delay X Y
	// distribution normal" draws, so settings carry over. The delay is
	// truncated at zero, and packets stay in first-in first-out order (a
	// packet whose draw would overtake an earlier one waits for it), as in
	// a router queue: only Reorder reorders.
	//
	// The mean one-way delay therefore equals Latency, and the standard
	// deviation Jitter, while Jitter is small relative to Latency (at
	// Latency = 3 Jitter the truncation adds 0.0004 Jitter to the mean) and
	// packets are spaced wider than about 3 Jitter (at that spacing waiting
	// for the packet ahead adds about 0.01 Jitter). Otherwise the mean
	// rises: at Latency 0 the truncation alone makes it Jitter/sqrt(2 pi),
	// about 0.4 Jitter; and packets that follow each other closer than the
	// jitter wait for one another, which adds delay and narrows the spread,
	// as in a queue.
	Jitter time.Duration

	// Loss is the probability that a packet is lost, independently of every
	// other packet.
	Loss float64

	// Burst adds correlated (bursty) loss on top of Loss. The zero Burst
	// loses nothing.
	Burst Burst

	// Duplicate is the probability that a packet is delivered twice. The
	// copy has its own delay draw.
	Duplicate float64

	// Reorder is the probability that a packet is held back by an extra
	// ReorderDelay outside the first-in first-out order, so packets sent
	// after it within ReorderDelay overtake it.
	Reorder float64

	// ReorderDelay is the extra delay of a reordered packet; 0 means
	// DefaultReorderDelay.
	ReorderDelay time.Duration

	// Bandwidth is the bottleneck's rate in bytes per second; 0 means
	// unlimited. Each packet occupies the bottleneck for size/Bandwidth
	// (rounded up to a whole nanosecond) and packets queue behind it before
	// the path's delay applies.
	Bandwidth int

	// QueueLimit is how many bytes may wait at the bottleneck (counting
	// what is left of the packet being transmitted); a packet that would
	// exceed it is dropped (tail drop). 0 means Bandwidth x
	// DefaultQueueDelay, at least MinQueueLimit. Without Bandwidth it has
	// no effect.
	QueueLimit int
}

// Burst is a Gilbert-Elliott loss model: a two-state Markov chain that
// steps once per packet, with a loss probability per state. Losses come in
// bursts while the chain stays in the bad state. References: E. N. Gilbert,
// "Capacity of a burst-noise channel", 1960; E. O. Elliott, "Estimates of
// error rates for codes on burst-noise channels", 1963; the same four
// parameters (p, r, 1-h, 1-k) as Linux netem's "loss gemodel".
//
// With GoodLoss 0 and BadLoss 1 (Gilbert's simple model, as GilbertElliott
// builds) the chain spends a fraction GoodToBad/(GoodToBad+BadToGood) of
// packets in the bad state, which is the mean loss, and a bad spell, which is
// a burst of consecutive losses, lasts a geometric number of packets with
// mean 1/BadToGood.
type Burst struct {
	GoodToBad float64 // probability of moving from good to bad after a packet (p)
	BadToGood float64 // probability of moving from bad to good after a packet (r)
	GoodLoss  float64 // loss probability in the good state (1-k)
	BadLoss   float64 // loss probability in the bad state (1-h)
}

// GilbertElliott returns the Burst with mean loss rate meanLoss and mean
// burst length meanBurst packets: BadLoss 1, GoodLoss 0, BadToGood =
// 1/meanBurst and GoodToBad = meanLoss/(1-meanLoss)/meanBurst. It needs
// 0 <= meanLoss < 1, meanBurst >= 1 and meanLoss <= meanBurst/(1+meanBurst)
// (the good state must last at least one packet on average); other
// arguments give a Burst that Config.Validate rejects. GilbertElliott(0, b)
// is the zero Burst.
func GilbertElliott(meanLoss, meanBurst float64) Burst {
	if meanLoss == 0 {
		return Burst{}
	}
	r := 1 / meanBurst
	return Burst{
		GoodToBad: meanLoss / (1 - meanLoss) * r,
		BadToGood: r,
		BadLoss:   1,
	}
}

// Validate reports the first field of c that is negative, NaN or out of
// range.
func (c Config) Validate() error {
	for _, d := range []struct {
		name string
		v    time.Duration
	}{
		{"Latency", c.Latency},
		{"Jitter", c.Jitter},
		{"ReorderDelay", c.ReorderDelay},
	} {
		if d.v < 0 || d.v > MaxDelay {
			return fmt.Errorf("netem: %s %v out of range [0, %v]", d.name, d.v, MaxDelay)
		}
	}
	for _, p := range []struct {
		name string
		v    float64
	}{
		{"Loss", c.Loss},
		{"Burst.GoodToBad", c.Burst.GoodToBad},
		{"Burst.BadToGood", c.Burst.BadToGood},
		{"Burst.GoodLoss", c.Burst.GoodLoss},
		{"Burst.BadLoss", c.Burst.BadLoss},
		{"Duplicate", c.Duplicate},
		{"Reorder", c.Reorder},
	} {
		if math.IsNaN(p.v) || p.v < 0 || p.v > 1 {
			return fmt.Errorf("netem: %s %v out of range [0, 1]", p.name, p.v)
		}
	}
	if c.Bandwidth < 0 {
		return fmt.Errorf("netem: Bandwidth %d is negative", c.Bandwidth)
	}
	if c.QueueLimit < 0 || c.QueueLimit > MaxQueueLimit {
		return fmt.Errorf("netem: QueueLimit %d out of range [0, %d]", c.QueueLimit, MaxQueueLimit)
	}
	return nil
}

// reorderDelay returns ReorderDelay with its default applied.
func (c Config) reorderDelay() time.Duration {
	if c.ReorderDelay == 0 {
		return DefaultReorderDelay
	}
	return c.ReorderDelay
}

// queueLimit returns QueueLimit in bytes with its default applied; c must
// have a Bandwidth.
func (c Config) queueLimit() int64 {
	if c.QueueLimit > 0 {
		return int64(c.QueueLimit)
	}
	q := int64(c.Bandwidth) / int64(time.Second/DefaultQueueDelay)
	return min(max(q, MinQueueLimit), MaxQueueLimit)
}
