package lobby

import (
	"fmt"
	"net/netip"
	"runtime"
	"testing"
	"time"
)

// BenchmarkParticipant is the lobby's cost per participant: an arrival,
// a passed prescreen, a match formed for each four, and the match's end
// with the completion codes. It reports the time and allocations per
// participant and the heap the lobby keeps per participant once it has
// seen b.N of them (one participation per id is kept for the study's
// life).
func BenchmarkParticipant(b *testing.B) {
	l, err := New(Config{Study: "bench", Seats: 4, MaxWait: time.Minute, Secret: []byte("0123456789abcdef"),
		Groups: []Group{{Name: "A"}, {Name: "B"}, {Name: "C"}, {Name: "D"}}, MaxParticipants: max(b.N, 1)})
	if err != nil {
		b.Fatal(err)
	}
	ids := make([]string, b.N)
	for i := range ids {
		ids[i] = fmt.Sprintf("participant-%08d", i)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	b.ReportAllocs()
	b.ResetTimer()
	now := time.Duration(0)
	for i, id := range ids {
		now += 100 * time.Millisecond
		addr := netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)})
		if err := l.Arrive(now, id, addr); err != nil {
			b.Fatal(err)
		}
		if _, err := l.Prescreen(now, id, Screen{FPS: 120, RefreshHz: 60, PointerLock: true, BaseRTT: 20 * time.Millisecond}); err != nil {
			b.Fatal(err)
		}
		for _, m := range l.Advance(now).Matches {
			if err := l.MatchOver(now, m.ID); err != nil {
				b.Fatal(err)
			}
			for _, p := range m.People {
				if _, err := l.Complete(p); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	b.StopTimer()
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.HeapAlloc-min(after.HeapAlloc, before.HeapAlloc))/float64(b.N), "heap-B/participant")
	if f := l.Flow(); f.Arrived != b.N || f.Completed != b.N/4*4 {
		b.Fatalf("flow %+v after %d", f, b.N)
	}
}
