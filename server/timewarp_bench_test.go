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

// BenchmarkTimeWarpTurned measures one warp whose late player's
// commands differ from those the ticks ran with: each warp turns its aim
// over the whole window (the next warp turns it back), so that its
// movement, shots and projectiles change and everything they meet is
// judged again, as when a late command is inserted.
func BenchmarkTimeWarpTurned(b *testing.B) {
	for _, n := range []int{10, 25, 50, 100} {
		s := warpCrowd(b, n)
		ticks := int(math.Round(float64(300*time.Millisecond) / float64(s.TickDuration())))
		b.Run(fmt.Sprintf("entities=%d/rewind=300ms", n), func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				id := i % n
				for t := s.tick + 1 - uint32(ticks); t <= s.tick; t++ {
					e, _ := s.warp.entry(t)
					for k := range int(e.ncmd[id]) {
						e.cmds[id*maxWarpCmds+k].Yaw ^= 0x2000
					}
				}
				if _, err := s.Resimulate(id, ticks); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}
