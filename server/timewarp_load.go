package server

import (
	"fmt"
	"math"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/lagcomp"
	"github.com/lagkit/lagkit/mode"
	"github.com/lagkit/lagkit/wire"
	"github.com/lagkit/lagkit/world"
)

// NewWarpCrowd returns NewWarpCrowdAt's server on an open field with n
// players on a grid 5 m apart: the scene of BenchmarkTimeWarp and
// `lagkit bench`.
func NewWarpCrowd(n int) (*Server, error) {
	m := world.Field()
	side := int(math.Ceil(math.Sqrt(float64(n))))
	spots := make([]geom.Vec3, n)
	for i := range spots {
		spots[i] = geom.V(float64(i%side)*5-40, float64(i/side)*5-40, 0)
	}
	return NewWarpCrowdAt(m, spots)
}

// NewWarpCrowdAt returns a server with a 500 ms time warp (policy none,
// free for all, the rifle and the pistol) on m, with a player connected
// over no network at each of spots, each having walked in circles for
// 160 ticks, turning its aim and firing in bursts, half with the rifle
// (hitscan) and half with the pistol (projectiles), so that the window
// is full of movement, shots, projectiles and hits. Server.Resimulate on
// it measures what a warp costs.
func NewWarpCrowdAt(m *world.Map, spots []geom.Vec3) (*Server, error) {
	n := len(spots)
	w := game.DefaultWeapons()
	s, err := New(Config{
		Map: m, MaxClients: n, TimeWarp: 500 * time.Millisecond,
		Policy: lagcomp.Config{Name: "none"}, Mode: mode.Config{Mode: mode.FFA},
		Weapons: []game.Weapon{w[0], w[2]},
	})
	if err != nil {
		return nil, err
	}
	for i, at := range spots {
		id, err := handshake(s, 0, Peer(i), "p")
		if err != nil {
			return nil, err
		}
		s.Place(id, at, 0)
	}
	var buf []byte
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
			if buf, err = wire.AppendCommands(buf[:0], &wire.Commands{ClientTime: now, Cmds: []game.UserCmd{cmd}}); err != nil {
				return nil, err
			}
			if err := s.Step(now-time.Microsecond, Peer(i), buf); err != nil {
				return nil, err
			}
		}
		s.Advance(now)
		s.Outbox()
		s.ShotRecords()
		s.Log()
	}
	return s, nil
}

// handshake connects peer at server time now through the handshake
// (Connect, Challenge, Connect with its token, Accept) under name, and
// returns its slot.
func handshake(s *Server, now time.Duration, peer Peer, name string) (int, error) {
	m := wire.Connect{Version: wire.Version, Nonce: 1, Name: name, InterpDelay: 100 * time.Millisecond}
	for range 2 {
		b, err := wire.AppendConnect(nil, &m)
		if err != nil {
			return 0, err
		}
		if err := s.Step(now, peer, b); err != nil {
			return 0, err
		}
		for _, d := range s.Outbox() {
			var ch wire.Challenge
			var a wire.Accept
			switch {
			case d.To != peer:
			case wire.DecodeChallenge(d.Data, &ch) == nil:
				m.Token = ch.Token
			case wire.DecodeAccept(d.Data, &a) == nil:
				return int(a.ClientID), nil
			}
		}
	}
	return 0, fmt.Errorf("server: peer %d not accepted", peer)
}
