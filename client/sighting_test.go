package client

import (
	"testing"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/wire"
)

// sightingsSent decodes the sightings of the command packets r hands
// over, adding them to out.
func sightingsSent(t *testing.T, out [][]wire.Sighting, r *Ready) [][]wire.Sighting {
	t.Helper()
	for _, d := range r.Messages {
		if !d.Commands {
			continue
		}
		var m wire.Commands
		if err := wire.DecodeCommands(d.Data, &m); err != nil {
			t.Fatal(err)
		}
		out = append(out, append([]wire.Sighting(nil), m.Sightings...))
	}
	return out
}

// TestHitSightedToTheServer: the client's SBC detection of a hit on its
// player rides, as the hit report says it, on the next sightingCopies
// command packets, and then on none.
func TestHitSightedToTheServer(t *testing.T) {
	c := connected(t, Config{})
	c.Ready()
	h := wire.HitEvent{Shooter: 3, ShotTick: 77, Part: game.PartTorso, Damage: 20, ShooterEye: geom.V(10, 0, 1.6)}
	c.hit(tick, &h)
	rep := c.Ready().Hits
	if len(rep) != 1 {
		t.Fatalf("%d hit reports", len(rep))
	}
	want := wire.Sighting{Shooter: 3, ShotTick: 77, Part: game.PartTorso, SBC: rep[0].SBC}
	var sent [][]wire.Sighting
	for i := range sightingCopies + 2 {
		sent = sightingsSent(t, sent, c.Tick(time.Duration(2+i)*tick, game.UserCmd{}))
	}
	if len(sent) != sightingCopies+2 {
		t.Fatalf("%d command packets", len(sent))
	}
	for i, list := range sent {
		switch {
		case i < sightingCopies && (len(list) != 1 || list[0] != want):
			t.Errorf("packet %d carries %+v, want %+v", i, list, want)
		case i >= sightingCopies && len(list) != 0:
			t.Errorf("packet %d carries %+v after %d copies", i, list, sightingCopies)
		}
	}
	if st := c.Stats(); st.Sightings != 1 || st.SightingsDropped != 0 {
		t.Errorf("stats: %d sightings, %d dropped; want 1, 0", st.Sightings, st.SightingsDropped)
	}
}

// TestSightingsBoundedOnTheClient: a burst of hits larger than a packet
// holds goes out over the next packets, oldest first, with at most
// maxPendingSightings waiting.
func TestSightingsBoundedOnTheClient(t *testing.T) {
	c := connected(t, Config{})
	c.Ready()
	const hits = maxPendingSightings + 8
	for i := range hits {
		c.hit(tick, &wire.HitEvent{Shooter: 1, ShotTick: uint32(100 + i), Part: game.PartHead})
		if len(c.sightings) > maxPendingSightings {
			t.Fatalf("%d sightings pending", len(c.sightings))
		}
	}
	got := map[uint32]int{}
	var sent [][]wire.Sighting
	for i := range 3 * hits {
		sent = sightingsSent(t, sent, c.Tick(time.Duration(2+i)*tick, game.UserCmd{}))
	}
	for _, list := range sent {
		if len(list) > wire.MaxSightings {
			t.Fatalf("%d sightings in a packet", len(list))
		}
		for _, s := range list {
			got[s.ShotTick]++
		}
	}
	for i := range hits {
		n := got[uint32(100+i)]
		if dropped := i < hits-maxPendingSightings; dropped && n != 0 || !dropped && n != sightingCopies {
			t.Errorf("hit %d sent %d times", i, n)
		}
	}
	if st := c.Stats(); st.Sightings != maxPendingSightings || st.SightingsDropped != hits-maxPendingSightings {
		t.Errorf("stats: %d sent, %d dropped", st.Sightings, st.SightingsDropped)
	}
}
