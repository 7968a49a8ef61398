package netem

import (
	"encoding/binary"
	"math"
	"strings"
	"testing"
	"time"
)

const ms = time.Millisecond

// delivery is one packet as the receiver saw it.
type delivery struct {
	at   time.Duration // delivery time
	sent time.Duration // send time, read from the payload
	id   int           // send index, read from the payload
	size int
}

func (d delivery) delay() time.Duration { return d.at - d.sent }

// stream sends n packets of size bytes (at least 16), one every spacing from
// time 0, each carrying its index and send time, and returns every delivery
// in the order Receive gave them, with the clock jumping to Next.
func stream(t testing.TB, l *Link, n int, spacing time.Duration, size int) []delivery {
	t.Helper()
	var out []delivery
	var buf []byte
	drain := func(until time.Duration) {
		for {
			at, ok := l.Next()
			if !ok || at > until {
				return
			}
			var got bool
			buf, got = l.Receive(at, buf[:0])
			if !got {
				t.Fatalf("Receive(%v) after Next() = %v: no packet", at, at)
			}
			out = append(out, delivery{
				at:   at,
				id:   int(binary.LittleEndian.Uint64(buf)),
				sent: time.Duration(binary.LittleEndian.Uint64(buf[8:])),
				size: len(buf),
			})
		}
	}
	pkt := make([]byte, size)
	for i := range n {
		now := time.Duration(i) * spacing
		drain(now)
		binary.LittleEndian.PutUint64(pkt, uint64(i))
		binary.LittleEndian.PutUint64(pkt[8:], uint64(now))
		l.Send(now, pkt)
	}
	drain(math.MaxInt64)
	if l.Len() != 0 {
		t.Fatalf("Len() = %d after draining, want 0", l.Len())
	}
	return out
}

func newLink(t testing.TB, cfg Config, seed uint64) *Link {
	t.Helper()
	l, err := NewLink(cfg, seed)
	if err != nil {
		t.Fatalf("NewLink(%+v): %v", cfg, err)
	}
	return l
}

// meanStd returns the mean and standard deviation of the deliveries' delays.
func meanStd(ds []delivery) (mean, std float64) {
	for _, d := range ds {
		mean += float64(d.delay())
	}
	mean /= float64(len(ds))
	for _, d := range ds {
		x := float64(d.delay()) - mean
		std += x * x
	}
	return mean, math.Sqrt(std / float64(len(ds)-1))
}

// within4Sigma reports whether k successes in n trials are within four
// binomial standard deviations of probability p.
func within4Sigma(k, n int, p float64) bool {
	return math.Abs(float64(k)-float64(n)*p) <= 4*math.Sqrt(float64(n)*p*(1-p))
}

// outOfOrder counts deliveries that arrive after a packet sent later.
func outOfOrder(ds []delivery) int {
	n, maxID := 0, -1
	for _, d := range ds {
		if d.id < maxID {
			n++
		}
		maxID = max(maxID, d.id)
	}
	return n
}

func TestZeroConfigDeliversAfterExactlyLatency(t *testing.T) {
	for _, latency := range []time.Duration{0, 1, 30 * ms, 250 * ms} {
		for _, spacing := range []time.Duration{0, ms, 100 * ms} {
			l := newLink(t, Config{Latency: latency}, 1)
			ds := stream(t, l, 1000, spacing, 16)
			if len(ds) != 1000 {
				t.Fatalf("latency %v spacing %v: %d delivered, want 1000", latency, spacing, len(ds))
			}
			for i, d := range ds {
				if d.id != i || d.delay() != latency {
					t.Fatalf("latency %v spacing %v: delivery %d is packet %d after %v, want packet %d after %v",
						latency, spacing, i, d.id, d.delay(), i, latency)
				}
			}
			s := l.Stats()
			want := Stats{Sent: 1000, Delivered: 1000, Bytes: 16000, DelaySum: 1000 * latency}
			if s != want {
				t.Errorf("latency %v spacing %v: Stats() = %+v, want %+v", latency, spacing, s, want)
			}
		}
	}
}

func TestReceiveAppendsAndWaitsForDeliveryTime(t *testing.T) {
	l := newLink(t, Config{Latency: 10 * ms}, 1)
	pkt := []byte("abc")
	l.Send(0, pkt)
	pkt[0] = 'x' // Send copied it
	if at, ok := l.Next(); !ok || at != 10*ms {
		t.Fatalf("Next() = %v, %v; want 10ms, true", at, ok)
	}
	dst := []byte("head:")
	if got, ok := l.Receive(10*ms-1, dst); ok || string(got) != "head:" {
		t.Fatalf("Receive before delivery time = %q, %v; want %q, false", got, ok, "head:")
	}
	if got, ok := l.Receive(10*ms, dst); !ok || string(got) != "head:abc" {
		t.Fatalf("Receive at delivery time = %q, %v; want %q, true", got, ok, "head:abc")
	}
	if _, ok := l.Next(); ok {
		t.Fatal("Next() reports a packet after the only one was received")
	}
}

func TestJitterMeanAndStd(t *testing.T) {
	tests := []struct {
		name     string
		cfg      Config
		spacing  time.Duration
		wantMean time.Duration
		wantStd  time.Duration // 0: not checked
	}{
		{"no jitter", Config{Latency: 50 * ms}, 10 * ms, 50 * ms, 0},
		{"jitter 5ms", Config{Latency: 50 * ms, Jitter: 5 * ms}, 50 * ms, 50 * ms, 5 * ms},
		{"jitter 20ms", Config{Latency: 100 * ms, Jitter: 20 * ms}, 100 * ms, 100 * ms, 20 * ms},
		// Spaced 3 Jitter apart, FIFO waits are rare and short.
		{"jitter 5ms spaced 15ms", Config{Latency: 50 * ms, Jitter: 5 * ms}, 15 * ms, 50 * ms, 0},
		// At Latency 0 the truncated normal's mean is Jitter/sqrt(2 pi), as
		// the Config.Jitter documentation says.
		{"latency 0", Config{Jitter: 10 * ms}, 100 * ms, time.Duration(float64(10*ms) / math.Sqrt(2*math.Pi)), 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := newLink(t, tt.cfg, 42)
			ds := stream(t, l, 100_000, tt.spacing, 16)
			mean, std := meanStd(ds)
			// 1%, or four standard errors where the spread is wide relative
			// to the mean (Latency 0).
			tol := max(0.01*float64(tt.wantMean), 4*std/math.Sqrt(float64(len(ds))))
			if math.Abs(mean-float64(tt.wantMean)) > tol {
				t.Errorf("mean delay %v, want %v +- %v", time.Duration(mean), tt.wantMean, time.Duration(tol))
			}
			if tt.wantStd > 0 && math.Abs(std-float64(tt.wantStd)) > 0.05*float64(tt.wantStd) {
				t.Errorf("delay standard deviation %v, want %v within 5%%", time.Duration(std), tt.wantStd)
			}
			if got := l.Stats().MeanDelay(); math.Abs(float64(got)-mean) > 1 {
				t.Errorf("Stats().MeanDelay() = %v, measured %v", got, time.Duration(mean))
			}
			if n := outOfOrder(ds); n != 0 {
				t.Errorf("%d packets out of order without Reorder", n)
			}
		})
	}
}

func TestJitterKeepsFIFOOrder(t *testing.T) {
	// Packets 1 ms apart with 10 ms jitter would overtake each other all
	// the time if each kept its own draw.
	cfg := Config{Latency: 50 * ms, Jitter: 10 * ms}
	l := newLink(t, cfg, 7)
	ds := stream(t, l, 100_000, ms, 16)
	if n := outOfOrder(ds); n != 0 {
		t.Fatalf("%d of %d packets out of order without Reorder", n, len(ds))
	}
	for i, d := range ds {
		if d.delay() < 0 {
			t.Fatalf("packet %d delivered %v before it was sent", d.id, -d.delay())
		}
		if i > 0 && d.at < ds[i-1].at {
			t.Fatalf("packet %d delivered at %v, before packet %d at %v", d.id, d.at, ds[i-1].id, ds[i-1].at)
		}
	}
	// Waiting for the packet ahead raises the mean, as Config.Jitter says.
	if mean, _ := meanStd(ds); mean < float64(cfg.Latency+cfg.Jitter) {
		t.Errorf("mean delay %v under dense traffic, want above Latency + Jitter = %v", time.Duration(mean), cfg.Latency+cfg.Jitter)
	}
}

func TestLossRate(t *testing.T) {
	for _, p := range []float64{0, 0.01, 0.1, 0.5, 1} {
		l := newLink(t, Config{Latency: 20 * ms, Loss: p}, 3)
		const n = 100_000
		ds := stream(t, l, n, ms, 16)
		s := l.Stats()
		if s.Lost+len(ds) != n || s.Delivered != len(ds) {
			t.Fatalf("Loss %v: %d lost + %d delivered, want %d sent", p, s.Lost, len(ds), n)
		}
		if !within4Sigma(s.Lost, n, p) {
			t.Errorf("Loss %v: lost %d of %d (%.4f)", p, s.Lost, n, float64(s.Lost)/n)
		}
	}
}

func TestGilbertElliott(t *testing.T) {
	tests := []struct{ meanLoss, meanBurst float64 }{
		{0.01, 2},
		{0.05, 4},
		{0.2, 10},
	}
	for _, tt := range tests {
		b := GilbertElliott(tt.meanLoss, tt.meanBurst)
		l := newLink(t, Config{Burst: b}, 5)
		const n = 1_000_000
		ds := stream(t, l, n, ms, 16)
		lost := make([]bool, n)
		for i := range lost {
			lost[i] = true
		}
		for _, d := range ds {
			lost[d.id] = false
		}
		losses, bursts, lossAfterLoss := 0, 0, 0
		for i, x := range lost {
			if !x {
				continue
			}
			losses++
			if i > 0 && lost[i-1] {
				lossAfterLoss++
			} else {
				bursts++
			}
		}
		if s := l.Stats(); s.BurstLost != losses || s.Lost != 0 {
			t.Errorf("%+v: Stats() BurstLost %d, Lost %d; counted %d losses", tt, s.BurstLost, s.Lost, losses)
		}

		// Losses are correlated, so their count varies more than a
		// binomial one: by sqrt((1+lambda)/(1-lambda)) with lambda =
		// 1-GoodToBad-BadToGood the chain's autocorrelation.
		lambda := 1 - b.GoodToBad - b.BadToGood
		sd := math.Sqrt(tt.meanLoss * (1 - tt.meanLoss) / n * (1 + lambda) / (1 - lambda))
		if got := float64(losses) / n; math.Abs(got-tt.meanLoss) > 4*sd {
			t.Errorf("%+v: mean loss %.5f, want %.5f +- %.5f", tt, got, tt.meanLoss, 4*sd)
		}
		// Burst lengths are geometric with mean meanBurst and standard
		// deviation sqrt(1-r)/r.
		r := b.BadToGood
		sd = math.Sqrt(1-r) / r / math.Sqrt(float64(bursts))
		if got := float64(losses) / float64(bursts); math.Abs(got-tt.meanBurst) > 4*sd {
			t.Errorf("%+v: mean burst length %.3f, want %.3f +- %.3f", tt, got, tt.meanBurst, 4*sd)
		}
		// Bursty: after a loss the next packet is lost with probability
		// 1-BadToGood, far above the mean.
		cond := float64(lossAfterLoss) / float64(losses)
		if !within4Sigma(lossAfterLoss, losses, 1-r) || cond < 4*tt.meanLoss {
			t.Errorf("%+v: P(loss | previous lost) = %.4f, want %.4f and far above the mean loss", tt, cond, 1-r)
		}
	}
}

func TestDuplicateRate(t *testing.T) {
	for _, p := range []float64{0.01, 0.1, 1} {
		l := newLink(t, Config{Latency: 20 * ms, Jitter: 2 * ms, Duplicate: p}, 11)
		const n = 100_000
		ds := stream(t, l, n, ms, 16)
		s := l.Stats()
		if len(ds) != n+s.Duplicated {
			t.Fatalf("Duplicate %v: %d delivered, want %d sent + %d duplicated", p, len(ds), n, s.Duplicated)
		}
		if !within4Sigma(s.Duplicated, n, p) {
			t.Errorf("Duplicate %v: duplicated %d of %d (%.4f)", p, s.Duplicated, n, float64(s.Duplicated)/n)
		}
		copies := make([]int, n)
		for _, d := range ds {
			copies[d.id]++
		}
		twice := 0
		for _, c := range copies {
			if c == 2 {
				twice++
			}
		}
		if twice != s.Duplicated {
			t.Errorf("Duplicate %v: %d packets arrived twice, Stats() says %d duplicated", p, twice, s.Duplicated)
		}
	}
}

func TestReorderRate(t *testing.T) {
	tests := []struct {
		p     float64
		delay time.Duration
	}{
		{0.01, 0}, // DefaultReorderDelay
		{0.05, 0},
		{0.2, 30 * ms},
	}
	for _, tt := range tests {
		cfg := Config{Latency: 50 * ms, Jitter: ms, Reorder: tt.p, ReorderDelay: tt.delay}
		l := newLink(t, cfg, 13)
		const n = 100_000
		// Packets 5 ms apart: a held packet is overtaken by the next ones.
		ds := stream(t, l, n, 5*ms, 16)
		s := l.Stats()
		if !within4Sigma(s.Reordered, n, tt.p) {
			t.Errorf("Reorder %v: Stats() says %d of %d reordered (%.4f)", tt.p, s.Reordered, n, float64(s.Reordered)/n)
		}
		// Nearly every held packet is overtaken; one is not only when every
		// packet sent during its hold is held too.
		if late := outOfOrder(ds); !within4Sigma(late, n, tt.p) {
			t.Errorf("Reorder %v: %d of %d out of order (%.4f)", tt.p, late, n, float64(late)/n)
		}
		hold := cfg.reorderDelay()
		for _, d := range ds {
			if d.delay() > cfg.Latency+hold+10*cfg.Jitter {
				t.Fatalf("Reorder %v: packet %d delayed %v, more than Latency + ReorderDelay + 10 Jitter", tt.p, d.id, d.delay())
			}
		}
	}
}

func TestBandwidthCapUnderOverload(t *testing.T) {
	const (
		bw   = 100_000 // bytes per second
		size = 1000
	)
	cfg := Config{Latency: 30 * ms, Bandwidth: bw}
	l := newLink(t, cfg, 17)
	// 1000-byte packets every 5 ms offer 200 kB/s, twice the cap, for 20 s.
	ds := stream(t, l, 4000, 5*ms, size)
	s := l.Stats()
	if s.Dropped == 0 || s.Delivered+s.Dropped != s.Sent {
		t.Fatalf("Stats() = %+v: want tail drops, and every packet delivered or dropped", s)
	}
	first, last := ds[0], ds[len(ds)-1]
	rate := float64(int64(len(ds)-1)*size) / (last.at - first.at).Seconds()
	if math.Abs(rate-bw) > 0.01*bw {
		t.Errorf("delivered %.0f B/s under overload, want %d within 1%%", rate, bw)
	}
	// The default queue holds DefaultQueueDelay worth of bytes, so no
	// packet waits longer than that plus its own transmission.
	maxDelay := cfg.Latency + DefaultQueueDelay + size*time.Second/bw
	for _, d := range ds {
		if d.delay() > maxDelay {
			t.Fatalf("packet %d delayed %v, want at most %v", d.id, d.delay(), maxDelay)
		}
	}
	if n := outOfOrder(ds); n != 0 {
		t.Errorf("%d packets out of order", n)
	}
}

func TestBandwidthTailDrop(t *testing.T) {
	tests := []struct {
		name      string
		cfg       Config
		sizes     []int // sent together at time 0
		wantAt    []time.Duration
		wantDrops int
	}{
		{
			name:      "queue of three packets",
			cfg:       Config{Latency: 10 * ms, Bandwidth: 1000, QueueLimit: 3000},
			sizes:     []int{1000, 1000, 1000, 1000, 1000},
			wantAt:    []time.Duration{1010 * ms, 2010 * ms, 3010 * ms},
			wantDrops: 2,
		},
		{
			name:      "small packet fits behind a drop",
			cfg:       Config{Bandwidth: 1000, QueueLimit: 2500},
			sizes:     []int{1000, 1000, 1000, 500},
			wantAt:    []time.Duration{1000 * ms, 2000 * ms, 2500 * ms},
			wantDrops: 1,
		},
		{
			name:      "packet larger than the queue",
			cfg:       Config{Bandwidth: 1000, QueueLimit: 500},
			sizes:     []int{501, 500},
			wantAt:    []time.Duration{500 * ms},
			wantDrops: 1,
		},
		{
			name:      "default queue is one MTU at low bandwidth",
			cfg:       Config{Bandwidth: 1000},
			sizes:     []int{1500, 1},
			wantAt:    []time.Duration{1500 * ms},
			wantDrops: 1,
		},
		{
			name:      "transmission rounds up to whole nanoseconds",
			cfg:       Config{Bandwidth: 3_000_000_000},
			sizes:     []int{1, 1, 3},
			wantAt:    []time.Duration{1, 2, 3},
			wantDrops: 0,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := newLink(t, tt.cfg, 1)
			for _, n := range tt.sizes {
				l.Send(0, make([]byte, n))
			}
			var got []time.Duration
			for {
				at, ok := l.Next()
				if !ok {
					break
				}
				l.Receive(at, nil)
				got = append(got, at)
			}
			if !equalDurations(got, tt.wantAt) {
				t.Errorf("delivery times %v, want %v", got, tt.wantAt)
			}
			if s := l.Stats(); s.Dropped != tt.wantDrops {
				t.Errorf("Dropped = %d, want %d", s.Dropped, tt.wantDrops)
			}
		})
	}
}

func equalDurations(a, b []time.Duration) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// impaired turns on every impairment at once.
var impaired = Config{
	Latency:   40 * ms,
	Jitter:    8 * ms,
	Loss:      0.02,
	Burst:     GilbertElliott(0.03, 3),
	Duplicate: 0.02,
	Reorder:   0.03,
	Bandwidth: 150_000,
}

func TestSeedReproducibility(t *testing.T) {
	run := func(seed uint64) []delivery {
		l := newLink(t, impaired, seed)
		return stream(t, l, 20_000, 5*ms, 200)
	}
	a, b, c := run(99), run(99), run(100)
	if len(a) != len(b) {
		t.Fatalf("seed 99 twice: %d then %d deliveries", len(a), len(b))
	}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("seed 99 twice: delivery %d is %+v then %+v", i, a[i], b[i])
		}
	}
	same := len(a) == len(c)
	for i := 0; same && i < len(a); i++ {
		same = a[i] == c[i]
	}
	if same {
		t.Fatal("seeds 99 and 100 gave the same deliveries")
	}
}

func TestEqualTimesComeOutInSendOrder(t *testing.T) {
	l := newLink(t, Config{Latency: 5 * ms}, 1)
	for i := range 100 {
		l.Send(0, []byte{byte(i)})
	}
	for i := range 100 {
		got, ok := l.Receive(5*ms, nil)
		if !ok || got[0] != byte(i) {
			t.Fatalf("receive %d: %v, %v; want [%d], true", i, got, ok, i)
		}
	}
}

func TestSetConfig(t *testing.T) {
	l := newLink(t, Config{Latency: 100 * ms}, 1)
	for i := range 100 {
		l.Send(time.Duration(i)*10*ms, []byte{byte(i)})
	}
	if err := l.SetConfig(Config{Latency: 20 * ms}); err != nil {
		t.Fatal(err)
	}
	// Sent at 1000 ms, just behind the last old packet (990 ms + 100 ms):
	// FIFO holds it until 1090 ms. Sent at 1100 ms, the path has drained.
	l.Send(1000*ms, []byte{100})
	l.Send(1100*ms, []byte{101})
	var at []time.Duration
	for i := range 102 {
		next, _ := l.Next()
		got, ok := l.Receive(next, nil)
		if !ok || got[0] != byte(i) {
			t.Fatalf("receive %d: %v, %v; want [%d], true", i, got, ok, i)
		}
		at = append(at, next)
	}
	if at[99] != 1090*ms || at[100] != 1090*ms || at[101] != 1120*ms {
		t.Errorf("delivery times of packets 99-101: %v, want [1.09s 1.09s 1.12s]", at[99:])
	}

	bad := Config{Latency: -1}
	if err := l.SetConfig(bad); err == nil {
		t.Fatal("SetConfig accepted negative Latency")
	}
	l.Send(2000*ms, []byte{1})
	if at, _ := l.Next(); at != 2020*ms {
		t.Errorf("after a rejected SetConfig, delivery at %v, want 2.02s (old config kept)", at)
	}
}

func TestValidate(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		cfg     Config
		wantErr string // empty: valid
	}{
		{Config{}, ""},
		{impaired, ""},
		{Config{Loss: 1, Duplicate: 1, Reorder: 1, Burst: Burst{1, 1, 1, 1}}, ""},
		{Config{Burst: GilbertElliott(0.5, 1)}, ""},
		{Config{Burst: GilbertElliott(0, 0)}, ""},
		{Config{Latency: MaxDelay, QueueLimit: MaxQueueLimit}, ""},
		{Config{Latency: -1}, "Latency"},
		{Config{Latency: MaxDelay + 1}, "Latency"},
		{Config{Jitter: -ms}, "Jitter"},
		{Config{ReorderDelay: -ms}, "ReorderDelay"},
		{Config{Loss: -0.1}, "Loss"},
		{Config{Loss: 1.1}, "Loss"},
		{Config{Loss: nan}, "Loss"},
		{Config{Duplicate: nan}, "Duplicate"},
		{Config{Reorder: 2}, "Reorder"},
		{Config{Burst: Burst{GoodToBad: -1}}, "Burst.GoodToBad"},
		{Config{Burst: Burst{BadToGood: nan}}, "Burst.BadToGood"},
		{Config{Burst: Burst{GoodLoss: 1.5}}, "Burst.GoodLoss"},
		{Config{Burst: Burst{BadLoss: math.Inf(1)}}, "Burst.BadLoss"},
		{Config{Burst: GilbertElliott(0.1, 0.5)}, "Burst.BadToGood"}, // bursts shorter than a packet
		{Config{Burst: GilbertElliott(0.9, 2)}, "Burst.GoodToBad"},   // good spells shorter than a packet
		{Config{Burst: GilbertElliott(1, 2)}, "Burst.GoodToBad"},
		{Config{Burst: GilbertElliott(-0.1, 2)}, "Burst.GoodToBad"},
		{Config{Bandwidth: -1}, "Bandwidth"},
		{Config{QueueLimit: -1}, "QueueLimit"},
		{Config{QueueLimit: MaxQueueLimit + 1}, "QueueLimit"},
	}
	for _, tt := range tests {
		err := tt.cfg.Validate()
		if tt.wantErr == "" {
			if err != nil {
				t.Errorf("Validate(%+v) = %v, want nil", tt.cfg, err)
			}
			if _, err := NewLink(tt.cfg, 1); err != nil {
				t.Errorf("NewLink(%+v) = %v, want nil", tt.cfg, err)
			}
			continue
		}
		if err == nil || !strings.HasPrefix(err.Error(), "netem: "+tt.wantErr+" ") {
			t.Errorf("Validate(%+v) = %v, want an error naming %s", tt.cfg, err, tt.wantErr)
		}
		if l, err := NewLink(tt.cfg, 1); err == nil || l != nil {
			t.Errorf("NewLink(%+v) = %v, %v; want nil and an error", tt.cfg, l, err)
		}
	}
}

func BenchmarkLinkSendReceive(b *testing.B) {
	for _, bc := range []struct {
		name string
		cfg  Config
	}{
		{"latency", Config{Latency: 50 * ms}},
		{"jitter", Config{Latency: 50 * ms, Jitter: 10 * ms}},
		{"impaired", impaired},
	} {
		b.Run(bc.name, func(b *testing.B) {
			l := newLink(b, bc.cfg, 1)
			pkt := make([]byte, 200)
			buf := make([]byte, 0, 2048)
			now := time.Duration(0)
			step := func() {
				l.Send(now, pkt)
				for {
					var ok bool
					if buf, ok = l.Receive(now, buf[:0]); !ok {
						break
					}
				}
				now += ms
			}
			// Fill the path so the loop measures the steady state: about
			// 50 packets in flight, all buffers recycled.
			for range 1000 {
				step()
			}
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				step()
			}
		})
	}
}
