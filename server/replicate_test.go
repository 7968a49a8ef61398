package server

import (
	"testing"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/shooter/weapon"
	"github.com/lagkit/lagkit/wire"
)

// TestBandwidthPriority checks the snapshot budget with 64 players
// walking apart: one client's snapshots stay within Config.Bandwidth,
// every other player's state reaches it within a few snapshots (left out
// means later, never lost), and the players near it are sent more often
// than the far ones.
func TestBandwidthPriority(t *testing.T) {
	const n, ticks, warm = 64, 640, 64
	s := testServer(t, Config{MaxClients: n})
	dt := s.TickDuration()
	for i := range n {
		join(t, s, 0, Peer(i))
	}
	acks := make([]uint32, n)
	var snaps [64]wire.Snapshot
	var got wire.Snapshot
	got.SetGame(weapon.Layout)
	var bytes, count int
	var sent [n]int // snapshots to peer 0 that carried each player anew
	var maxAge [n]uint32
	for tick := uint32(1); tick <= ticks; tick++ {
		now := s.NextTick()
		for i := range n {
			cmd := game.UserCmd{Tick: tick, Duration: dt, Forward: 127, Yaw: uint16(i * 1024)}
			b, err := wire.AppendCommands(nil, &wire.Commands{AckTick: acks[i], ClientTime: now + 1, Cmds: []game.UserCmd{cmd}})
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Step(now, Peer(i), b); err != nil {
				t.Fatal(err)
			}
		}
		for _, d := range s.Advance(now).Messages {
			acks[d.To] = s.Tick()
			if d.To != 0 {
				continue
			}
			if err := wire.DecodeSnapshot(d.Data, &got, func(tk uint32) *wire.Snapshot { return &snaps[tk%64] }); err != nil {
				t.Fatalf("tick %d: %v", tick, err)
			}
			snaps[got.Tick%64] = got
			if tick <= warm {
				continue
			}
			bytes += len(d.Data) + datagramHeader
			count++
			for id := 1; id < n; id++ {
				e := got.Entities[id]
				if !got.Has(id) {
					t.Fatalf("tick %d: player %d missing", tick, id)
				}
				if e.Stamp == got.Tick {
					sent[id]++
				}
				maxAge[id] = max(maxAge[id], got.Tick-e.Stamp)
			}
		}
	}
	// The credit saved before the count began (a quarter second's at
	// most) may be spent within it.
	share := DefaultBandwidth / s.Config().TickRate
	if bytes > count*share+DefaultBandwidth/4 {
		t.Errorf("%d bytes in %d snapshots, budget %d a snapshot", bytes, count, share)
	}
	for id := 1; id < n; id++ {
		if maxAge[id] > 16 {
			t.Errorf("player %d went %d ticks without an update", id, maxAge[id])
		}
	}
	// Everyone walks out from the same spot, player i at i*1024 angle
	// units: the neighbours in angle stay nearest to player 0.
	near := sent[1] + sent[2] + sent[n-1] + sent[n-2]
	far := sent[n/2-1] + sent[n/2] + sent[n/2+1] + sent[n/2+2]
	if near <= far {
		t.Errorf("near players sent %d times, far ones %d: want near more often", near, far)
	}
	if sent[1] == count {
		t.Errorf("every state sent: the budget did not bind")
	}
}
