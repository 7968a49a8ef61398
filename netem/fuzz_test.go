package netem

import (
	"bytes"
	"testing"
	"time"
)

// FuzzLink drives a link with arbitrary settings and traffic and checks that
// it never panics, never delivers early, delivers only what was sent, and
// accounts for every packet.
func FuzzLink(f *testing.F) {
	f.Add(uint32(50_000), uint32(10_000), 0.1, 0.05, 0.3, 0.05, 0.1, uint32(20_000), uint32(0), uint64(1), []byte{0x40, 0x41, 0x81, 0x02, 0xff, 0x03, 0x10})
	f.Add(uint32(0), uint32(0), 0.0, 0.0, 0.0, 0.0, 0.0, uint32(0), uint32(0), uint64(0), []byte{0x01, 0x00})
	f.Add(uint32(1), uint32(1<<31), 1.0, 1.0, 0.0, 1.0, 1.0, uint32(1), uint32(1), uint64(7), []byte{0xfe, 0xff})
	f.Fuzz(func(t *testing.T, latencyUs, jitterUs uint32, loss, goodToBad, badToGood, dup, reorder float64, bandwidth, queue uint32, seed uint64, ops []byte) {
		cfg := Config{
			Latency:    time.Duration(latencyUs) * time.Microsecond,
			Jitter:     time.Duration(jitterUs) * time.Microsecond,
			Loss:       loss,
			Burst:      Burst{GoodToBad: goodToBad, BadToGood: badToGood, BadLoss: 1},
			Duplicate:  dup,
			Reorder:    reorder,
			Bandwidth:  int(bandwidth),
			QueueLimit: int(queue),
		}
		l, err := NewLink(cfg, seed)
		if err != nil {
			if cfg.Validate() == nil {
				t.Fatalf("NewLink rejected a config Validate accepts: %v", err)
			}
			return
		}
		var now, last time.Duration
		var buf []byte
		// An odd op sends a packet of op/2 bytes, each byte its size, so a
		// delivered packet shows whether it came through intact; an even
		// op advances the clock by op/2 ms and receives what is due.
		for _, op := range ops {
			n := int(op >> 1)
			if op&1 == 1 {
				l.Send(now, bytes.Repeat([]byte{byte(n)}, n))
				continue
			}
			now += time.Duration(n) * time.Millisecond
			for {
				next, pending := l.Next()
				var ok bool
				buf, ok = l.Receive(now, buf[:0])
				if !ok {
					if pending && next <= now {
						t.Fatalf("Next() = %v but Receive(%v) returned nothing", next, now)
					}
					break
				}
				if next > now || next < last {
					t.Fatalf("delivered at %v: now %v, previous delivery %v", next, now, last)
				}
				last = next
				if len(buf) > 0 && !bytes.Equal(buf, bytes.Repeat([]byte{byte(len(buf))}, len(buf))) {
					t.Fatalf("delivered corrupt packet %v", buf)
				}
			}
		}
		s := l.Stats()
		if s.Sent-s.Dropped-s.Lost-s.BurstLost+s.Duplicated != s.Delivered+l.Len() {
			t.Fatalf("Stats() = %+v with %d in flight: packets unaccounted for", s, l.Len())
		}
		if s.DelaySum < 0 {
			t.Fatalf("negative total delay %v", s.DelaySum)
		}
	})
}
