package server

import (
	"slices"
	"testing"
	"time"

	"github.com/lagkit/lagkit/world"
)

// benchTick times whole server ticks of a TickLoad of players clients at
// rate Hz on metro: input, simulation, history and every client's
// snapshot. It reports the 99th percentile of the ticks timed beside the
// mean.
func benchTick(b *testing.B, players, rate int) {
	m, err := world.Load("metro")
	if err != nil {
		b.Fatal(err)
	}
	l, err := NewTickLoad(m, players, rate)
	if err != nil {
		b.Fatal(err)
	}
	times := make([]time.Duration, 0, 4096)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		start := time.Now()
		if err := l.Tick(); err != nil {
			b.Fatal(err)
		}
		if len(times) < cap(times) {
			times = append(times, time.Since(start))
		}
	}
	b.StopTimer()
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)*99/100].Nanoseconds())/1e6, "p99-ms")
}

// BenchmarkServerTick64 is a whole server tick with 64 players at 64 Hz.
func BenchmarkServerTick64(b *testing.B) { benchTick(b, 64, 64) }

// BenchmarkServerTick128 is a whole server tick with 128 players at
// 128 Hz, the load whose 99th percentile must stay within 2.34 ms (the
// frame Valorant's servers run 10 players in at 128 Hz).
func BenchmarkServerTick128(b *testing.B) { benchTick(b, 128, 128) }
