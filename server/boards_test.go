package server

import (
	"bytes"
	"testing"

	"github.com/lagkit/lagkit/wire"
)

// TestScoreboardBuffersReused: a client that never acknowledges holds
// its scoreboards, whose bytes stay as they were sent while it holds
// them, while the scoreboards the others acknowledge free their buffers
// for the next.
func TestScoreboardBuffersReused(t *testing.T) {
	d := newDuel(t, Config{}, 2)
	silent, _ := d.s.ClientByPeer(2)
	held := map[uint32][]byte{} // by sequence number, as first queued
	boards := 0
	for range 6 * 64 {
		d.tick(nil)
		c := d.s.clients[silent]
		if c == nil {
			t.Fatal("the silent client was dropped")
		}
		for _, ev := range c.events {
			if ev.kind != wire.EventScoreboard {
				continue
			}
			if was, ok := held[ev.seq]; !ok {
				held[ev.seq] = bytes.Clone(ev.data)
				boards++
			} else if !bytes.Equal(was, ev.data) {
				t.Fatalf("scoreboard %d changed while held: %x, was %x", ev.seq, ev.data, was)
			}
			var sb wire.ScoreboardEvent
			if err := wire.DecodeScoreboardEvent(ev.data, &sb); err != nil || len(sb.Rows) != 2 {
				t.Fatalf("scoreboard %d: %v, %d rows", ev.seq, err, len(sb.Rows))
			}
		}
	}
	if boards < 5 {
		t.Fatalf("the silent client holds %d scoreboards", boards)
	}
	// The silent client holds every scoreboard's buffer: none was free
	// to reuse. Now it acknowledges, and the next scoreboards reuse them.
	kept := len(d.s.boards)
	if kept < boards {
		t.Fatalf("%d buffers kept for %d scoreboards held", kept, boards)
	}
	d.silent[2] = false
	d.run(3 * 1e9)
	if len(d.s.boards) != kept {
		t.Fatalf("%d buffers kept after acknowledging, want the %d there were", len(d.s.boards), kept)
	}
}
