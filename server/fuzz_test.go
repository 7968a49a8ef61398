package server

import (
	"encoding/binary"
	"testing"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/wire"
)

// FuzzServerStep drives the server core with an arbitrary interleaving
// of datagrams from four peers (raw bytes, handshakes, commands with
// arbitrary ticks, acknowledgements and durations) and the passage of
// time, as etcd raft fuzzes its state machine. It checks that nothing
// panics, that clients and queued commands stay within the configured
// limits, and that an address without a session never gets more bytes
// than it sent: one reply per Connect, no snapshots.
func FuzzServerStep(f *testing.F) {
	f.Add([]byte{1, 0, 1, 2, 0, 0, 0, 0, 1, 3, 20, 2, 0, 0xfc, 0xff, 0xff, 0xff, 3, 200})
	f.Add([]byte{1, 1, 7, 1, 1, 8, 2, 1, 0, 0, 0, 5, 3, 255, 0, 2, 4, 1, 2, 3, 3, 100})
	f.Add([]byte{0, 3, 5, byte(wire.MsgConnect), 9, 0, 1, 2, 3, 255, 3, 255, 3, 255})
	// A goodbye naming session 7, then one naming no session.
	for _, nonce := range []uint64{7, 8} {
		bye, _ := wire.AppendDisconnect(nil, &wire.Disconnect{Nonce: nonce, Reason: "x"})
		f.Add(append([]byte{1, 1, 7, 1, 1, 7, 3, 20, 0, 1, byte(len(bye))}, bye...))
	}
	f.Fuzz(func(t *testing.T, ops []byte) {
		const peers = 4
		s := testServer(t, Config{MaxClients: 2, CmdQueue: 4, Timeout: 500 * time.Millisecond})
		var now time.Duration
		var tokens [peers]string
		next := func() byte {
			if len(ops) == 0 {
				return 0
			}
			b := ops[0]
			ops = ops[1:]
			return b
		}
		for len(ops) > 0 {
			op, peer := next(), Peer(next()%peers)
			var data []byte
			switch op % 4 {
			case 0: // raw bytes
				n := min(int(next()), len(ops))
				data, ops = ops[:n], ops[n:]
			case 1: // a Connect with nonce n, with the token last challenged
				m := wire.Connect{Version: wire.Version, Nonce: uint64(next()), Token: tokens[peer], Name: "f", SnapshotRate: uint16(next())}
				data, _ = wire.AppendConnect(nil, &m)
			case 2: // commands from an arbitrary tick, acknowledging an arbitrary one
				var b [4]byte
				for i := range b {
					b[i] = next()
				}
				tick := binary.LittleEndian.Uint32(b[:])
				m := wire.Commands{AckTick: uint32(next()), AckDelay: time.Duration(next()) * time.Millisecond, ClientTime: now}
				for i := range int(next()%wire.MaxCmdsPerPacket) + 1 {
					m.Cmds = append(m.Cmds, game.UserCmd{Tick: tick + uint32(i), Duration: time.Duration(next()) * time.Millisecond, Forward: 127, Buttons: game.Buttons(next())})
				}
				var err error
				if data, err = wire.AppendCommands(nil, &m); err != nil {
					continue
				}
			case 3: // time passes
				now += time.Duration(next()) * time.Millisecond
				before := map[Peer]bool{}
				for p := range Peer(peers) {
					_, before[p] = s.ClientByPeer(p)
				}
				for _, d := range s.Advance(now).Messages {
					if !before[d.To] {
						t.Fatalf("advance sent %d bytes to peer %d, which had no session", len(d.Data), d.To)
					}
				}
				continue
			}
			_, had := s.ClientByPeer(peer)
			_ = s.Step(now, peer, data)
			out := 0
			for _, d := range s.Ready().Messages {
				var ch wire.Challenge
				if d.To == peer && wire.DecodeChallenge(d.Data, &ch) == nil {
					tokens[peer] = ch.Token
				}
				if d.To == peer {
					out += len(d.Data)
				} else if _, ok := s.ClientByPeer(d.To); !ok {
					t.Fatalf("a datagram from peer %d made the server send to peer %d, which has no session", peer, d.To)
				}
			}
			if !had && out > len(data) {
				t.Fatalf("peer %d without a session sent %d bytes and got %d", peer, len(data), out)
			}
			n := 0
			for _, c := range s.clients {
				if c != nil {
					n++
					if c.qN > len(c.queue) || len(c.queue) != s.cfg.CmdQueue {
						t.Fatalf("client %d queues %d of %d commands (config %d)", c.id, c.qN, len(c.queue), s.cfg.CmdQueue)
					}
				}
			}
			if n > s.cfg.MaxClients || len(s.byPeer) != n {
				t.Fatalf("%d clients, %d peers, limit %d", n, len(s.byPeer), s.cfg.MaxClients)
			}
		}
	})
}
