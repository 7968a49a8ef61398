package netem

import (
	"container/heap"
	"math/rand/v2"
	"time"
)

// pcgStream is the second word of every link's PCG seed (any fixed value
// does; this one is the golden-ratio constant), so the seed passed to
// NewLink alone names a link's random sequence.
const pcgStream = 0x9e3779b97f4a7c15

// Link carries packets in one direction under a Config, on the caller's
// virtual clock. Its randomness comes from its own PCG generator, so a link
// is reproducible from its seed and independent of every other link. A Link
// is not safe for concurrent use.
//
// A packet goes through three stages: the bottleneck (Bandwidth and
// QueueLimit: queueing, serialisation and tail drop), then the path's loss
// (Loss and Burst), then duplication and the path's delay (Latency, Jitter
// and Reorder). A packet lost on the path has still used the bottleneck, as
// it would on a real uplink.
type Link struct {
	cfg Config
	rng *rand.Rand

	inFlight packetHeap
	free     []*packet // delivered packets whose buffers Send reuses
	seq      uint64    // enqueue counter, the tie-break for equal delivery times
	bad      bool      // Gilbert-Elliott chain state
	linkFree time.Duration
	fifoTail time.Duration // latest delivery time given in FIFO order

	stats Stats
}

// Stats counts what a Link did since it was created.
type Stats struct {
	Sent       int           // packets passed to Send
	Delivered  int           // packets returned by Receive, copies included
	Lost       int           // packets lost to independent loss (Config.Loss)
	BurstLost  int           // packets lost to bursty loss (Config.Burst)
	Dropped    int           // packets tail-dropped at the bottleneck queue
	Duplicated int           // extra copies made (Config.Duplicate)
	Reordered  int           // copies held back out of order (Config.Reorder)
	Bytes      int64         // payload bytes delivered
	DelaySum   time.Duration // sum over delivered packets of delivery time - send time
}

// MeanDelay returns the mean one-way delay of the delivered packets, or 0 if
// none was delivered.
func (s Stats) MeanDelay() time.Duration {
	if s.Delivered == 0 {
		return 0
	}
	return s.DelaySum / time.Duration(s.Delivered)
}

// NewLink returns a Link with configuration cfg and random seed seed.
func NewLink(cfg Config, seed uint64) (*Link, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Link{cfg: cfg, rng: rand.New(rand.NewPCG(seed, pcgStream))}, nil
}

// SetConfig changes the link's conditions from now on, as a match schedule
// does between rounds. Packets in flight keep their delivery times, and new
// packets still leave the bottleneck and arrive in order behind them: after
// a drop in Latency, packets wait for the slower ones ahead until the path
// has drained. A changed Burst restarts its chain in the good state. On an
// invalid cfg the link is unchanged.
func (l *Link) SetConfig(cfg Config) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	if cfg.Burst != l.cfg.Burst {
		l.bad = false
	}
	l.cfg = cfg
	return nil
}

// Send submits pkt at time now. It copies pkt, so the caller may reuse the
// buffer.
func (l *Link) Send(now time.Duration, pkt []byte) {
	l.stats.Sent++
	depart, ok := l.transmit(now, len(pkt))
	if !ok {
		l.stats.Dropped++
		return
	}
	if l.burstLoss() {
		l.stats.BurstLost++
		return
	}
	if l.cfg.Loss > 0 && l.rng.Float64() < l.cfg.Loss {
		l.stats.Lost++
		return
	}
	l.enqueue(depart, now, pkt)
	if l.cfg.Duplicate > 0 && l.rng.Float64() < l.cfg.Duplicate {
		l.stats.Duplicated++
		l.enqueue(depart, now, pkt)
	}
}

// Receive removes the next packet due by now (the earliest delivery time,
// first sent first among equal times), appends it to dst and returns the
// result. It returns dst and false if no packet is due.
func (l *Link) Receive(now time.Duration, dst []byte) ([]byte, bool) {
	if len(l.inFlight) == 0 || l.inFlight[0].at > now {
		return dst, false
	}
	p := heap.Pop(&l.inFlight).(*packet)
	dst = append(dst, p.data...)
	l.stats.Delivered++
	l.stats.Bytes += int64(len(p.data))
	l.stats.DelaySum += p.at - p.sent
	l.free = append(l.free, p)
	return dst, true
}

// Next returns the earliest delivery time among the packets in flight, or
// false if there are none. A driver advancing a virtual clock can jump to it.
func (l *Link) Next() (time.Duration, bool) {
	if len(l.inFlight) == 0 {
		return 0, false
	}
	return l.inFlight[0].at, true
}

// Len returns the number of packets in flight.
func (l *Link) Len() int { return len(l.inFlight) }

// Stats returns the link's counters.
func (l *Link) Stats() Stats { return l.stats }

// transmit puts a packet of size bytes on the bottleneck at now and returns
// when its last byte leaves, or false if the queue has no room for it.
func (l *Link) transmit(now time.Duration, size int) (time.Duration, bool) {
	if l.cfg.Bandwidth == 0 {
		return now, true
	}
	bw := int64(l.cfg.Bandwidth)
	limit := l.cfg.queueLimit()
	wait := max(l.linkFree-now, 0)
	// The bytes ahead of this packet are wait x bw / 1e9. Compare in
	// nanosecond-bytes to stay exact, bounding wait first so the product
	// stays under limit x 1e9 and cannot overflow.
	if int64(size) > limit || int64(wait) > limit*1e9/bw ||
		int64(wait)*bw > (limit-int64(size))*1e9 {
		return 0, false
	}
	tx := int64(size) * 1e9 / bw
	if int64(size)*1e9%bw != 0 {
		tx++ // round up so the delivered rate never exceeds Bandwidth
	}
	l.linkFree = now + wait + time.Duration(tx)
	return l.linkFree, true
}

// burstLoss steps the Gilbert-Elliott chain for one packet and reports
// whether the packet is lost. The packet's fate is drawn in the state the
// chain is in, then the chain moves.
func (l *Link) burstLoss() bool {
	b := l.cfg.Burst
	if b == (Burst{}) {
		return false
	}
	var lost bool
	if l.bad {
		lost = l.rng.Float64() < b.BadLoss
		l.bad = l.rng.Float64() >= b.BadToGood
	} else {
		lost = l.rng.Float64() < b.GoodLoss
		l.bad = l.rng.Float64() < b.GoodToBad
	}
	return lost
}

// enqueue schedules one copy of pkt, sent at sent and leaving the
// bottleneck at depart, after the path's delay.
func (l *Link) enqueue(depart, sent time.Duration, pkt []byte) {
	delay := l.cfg.Latency
	if l.cfg.Jitter > 0 {
		// Convert before adding so no fused multiply-add can change the
		// rounding between platforms.
		delay += time.Duration(l.rng.NormFloat64() * float64(l.cfg.Jitter))
		delay = max(delay, 0)
	}
	at := depart + delay
	if l.cfg.Reorder > 0 && l.rng.Float64() < l.cfg.Reorder {
		l.stats.Reordered++
		at += l.cfg.reorderDelay()
	} else {
		at = max(at, l.fifoTail)
		l.fifoTail = at
	}

	var p *packet
	if n := len(l.free); n > 0 {
		p = l.free[n-1]
		l.free = l.free[:n-1]
	} else {
		p = new(packet)
	}
	p.at, p.seq, p.sent = at, l.seq, sent
	p.data = append(p.data[:0], pkt...)
	l.seq++
	heap.Push(&l.inFlight, p)
}

// packet is a packet in flight.
type packet struct {
	at   time.Duration // delivery time
	seq  uint64        // enqueue order
	sent time.Duration
	data []byte
}

// packetHeap is a min-heap of packets by delivery time, then enqueue order,
// so equal delivery times come out first sent first.
type packetHeap []*packet

func (h packetHeap) Len() int { return len(h) }

func (h packetHeap) Less(i, j int) bool {
	if h[i].at != h[j].at {
		return h[i].at < h[j].at
	}
	return h[i].seq < h[j].seq
}

func (h packetHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }

func (h *packetHeap) Push(x any) { *h = append(*h, x.(*packet)) }

func (h *packetHeap) Pop() any {
	old := *h
	n := len(old) - 1
	p := old[n]
	old[n] = nil
	*h = old[:n]
	return p
}
