package client

import (
	"testing"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/wire"
	"github.com/lagkit/lagkit/world/worldtest"
)

// FuzzClientStep drives the client core with an arbitrary interleaving of
// datagrams (raw bytes, Challenges, Accepts and snapshots) and ticks, as
// etcd raft fuzzes its state machine. It checks that nothing panics, that
// the client answers a Challenge only with one padded Connect, and that
// what it sends stays within one tick's packets of MaxDatagram.
func FuzzClientStep(f *testing.F) {
	f.Add([]byte{1, 0, 2, 5, 64, 3, 16, 0, 10, byte(wire.MsgSnapshot), 1, 2, 3, 4, 5, 6, 7, 8, 9, 3, 16})
	bye, _ := wire.AppendDisconnect(nil, &wire.Disconnect{Nonce: 42, Reason: "x"})
	f.Add(append([]byte{2, 0, 64, 3, 16, 3, 16, 0, 3, byte(wire.MsgReject), 0, 0, byte(len(bye))}, bye...))
	f.Fuzz(func(t *testing.T, ops []byte) {
		c, err := New(Config{Map: worldtest.Open(t), Nonce: 42})
		if err != nil {
			t.Fatal(err)
		}
		var now time.Duration
		c.Connect(now)
		c.Ready()
		next := func() byte {
			if len(ops) == 0 {
				return 0
			}
			b := ops[0]
			ops = ops[1:]
			return b
		}
		for len(ops) > 0 {
			var data []byte
			switch next() % 4 {
			case 0: // raw bytes
				n := min(int(next()), len(ops))
				data, ops = ops[:n], ops[n:]
			case 1: // a Challenge, for our nonce or another
				data, _ = wire.AppendChallenge(nil, &wire.Challenge{Nonce: 42 + uint64(next()%2), Token: string(ops[:min(len(ops), 8)])})
			case 2: // an Accept
				data, _ = wire.AppendAccept(nil, &wire.Accept{ClientID: next(), TickRate: uint16(next()), Tick: uint32(next()) * 1000, Map: "open"})
			case 3: // time passes; the client issues its command
				now += time.Duration(next()) * time.Millisecond
				for _, d := range bodies(c.Tick(now, game.UserCmd{Forward: 127, Buttons: game.Buttons(next())}).Messages) {
					if len(d) > wire.MaxDatagram {
						t.Fatalf("client sent %d bytes", len(d))
					}
				}
				continue
			}
			if data == nil {
				continue
			}
			_ = c.Step(now, data)
			out := sent(c)
			if len(out) > 1 {
				t.Fatalf("one datagram answered with %d", len(out))
			}
			for _, d := range out {
				if d[0] == byte(wire.MsgConnect) && len(d) != wire.ConnectSize {
					t.Fatalf("unpadded connect of %d bytes", len(d))
				}
			}
		}
	})
}
