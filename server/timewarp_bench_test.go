package server

import (
	"fmt"
	"math"
	"testing"
	"time"
)

// warpCrowd returns NewWarpCrowd's server with n players.
func warpCrowd(b testing.TB, n int) *Server {
	s, err := NewWarpCrowd(n)
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkTimeWarp measures one warp: re-simulating the last rewind
// milliseconds for one late player among entities players, everyone
// moving and firing. Its cost should grow linearly with both (the study's
// JavaScript time warp grew as rewind x entities^2).
func BenchmarkTimeWarp(b *testing.B) {
	for _, n := range []int{10, 25, 50, 100} {
		s := warpCrowd(b, n)
		for _, ms := range []int{0, 50, 100, 200, 300} {
			ticks := int(math.Round(float64(ms) * float64(time.Millisecond) / float64(s.TickDuration())))
			b.Run(fmt.Sprintf("entities=%d/rewind=%dms", n, ms), func(b *testing.B) {
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					if _, err := s.Resimulate(i%n, ticks); err != nil {
						b.Fatal(err)
					}
					i++
				}
			})
		}
	}
}
