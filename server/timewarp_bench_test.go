package server

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
)

// warpCrowd returns a time warp server with n players on a grid 5 m
// apart on the open map, each having walked in circles for 160 ticks,
// turning its aim and firing in bursts, half with the rifle and half
// with the pistol (projectiles), so that the window is full of movement,
// shots, projectiles and hits.
func warpCrowd(b testing.TB, n int) *Server {
	cfg := warpConfig()
	cfg.MaxClients = n
	cfg.Mode.Mode = "ffa"
	s := testServer(b, cfg)
	side := int(math.Ceil(math.Sqrt(float64(n))))
	for i := range n {
		id := join(b, s, 0, Peer(i))
		s.Place(id, geom.V(float64(i%side)*5-40, float64(i/side)*5-40, 0), 0)
	}
	for tick := uint32(1); tick <= 160; tick++ {
		now := s.NextTick()
		for i := range n {
			cmd := game.UserCmd{
				Tick: tick, Duration: s.TickDuration(), Forward: 127,
				Yaw:    uint16(int(tick)*400 + i*6000),
				Weapon: uint8(i % 2),
			}
			if (int(tick)/32+i)%2 == 0 {
				cmd.Buttons = game.BtnFire
			}
			sendCmds(b, s, now-time.Microsecond, Peer(i), []game.UserCmd{cmd})
		}
		s.Advance(now)
		s.Outbox()
		s.ShotRecords()
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
