package sim_test

import (
	"errors"
	"testing"
	"time"

	"github.com/lagkit/lagkit/client"
	"github.com/lagkit/lagkit/netem"
	"github.com/lagkit/lagkit/server"
	"github.com/lagkit/lagkit/sim"
	"github.com/lagkit/lagkit/wire"
	"github.com/lagkit/lagkit/world"
)

// TestGameEventsBothWays: a game's own events reach the other side over
// a link that loses, duplicates and reorders packets each exactly once
// and in order: each client's to the server, the server's to one client
// and to all.
func TestGameEventsBothWays(t *testing.T) {
	link := netem.Config{Latency: 50 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.2, Duplicate: 0.05, Reorder: 0.05}
	d, err := sim.NewDriver(server.Config{Map: world.Field(), Seed: 2},
		[]sim.PlayerConfig{{Up: link, Down: link}, {Up: link, Down: link}}, 4)
	if err != nil {
		t.Fatal(err)
	}
	const (
		one = wire.EventGameMin + 7 // to one client
		all = wire.EventGameMin + 8 // to every client
		n   = 120                   // events of each stream
	)
	var up, gotUp [2]int     // each client's events sent, and taken by the server
	var down, gotDown [2]int // the server's to each client, and delivered
	var bcast int            // broadcasts
	var gotBcast [2]int
	taken := &gameEventsTaken{}
	for at := 50 * time.Millisecond; at <= 15*time.Second; at += 50 * time.Millisecond {
		d.Run(at, taken)
		for i, p := range d.Players {
			c := p.Client
			evs := taken.client[i]
			taken.client[i] = nil
			for _, ev := range evs {
				switch {
				case ev.Kind == one && len(ev.Data) == 1 && int(ev.Data[0]) == gotDown[i]:
					gotDown[i]++
				case ev.Kind == all && len(ev.Data) == 1 && int(ev.Data[0]) == gotBcast[i]:
					gotBcast[i]++
				default:
					t.Fatalf("client %d got kind %d data %v after %d and %d events", i, ev.Kind, ev.Data, gotDown[i], gotBcast[i])
				}
			}
			for c.Phase() == client.Connected && up[i] < n && up[i]-gotUp[i] < 10 {
				if err := c.SendEvent(one, []byte{byte(up[i]), byte(c.ID())}); err != nil {
					t.Fatal(err)
				}
				up[i]++
			}
		}
		evs := taken.evs
		taken.evs = nil
		for _, ev := range evs {
			i := player(d, ev.Client)
			if ev.Kind != one || len(ev.Data) != 2 || int(ev.Data[1]) != ev.Client || int(ev.Data[0]) != gotUp[i] || int(ev.Seq) != gotUp[i]+1 {
				t.Fatalf("server got %+v after %d events of client %d", ev, gotUp[i], i)
			}
			gotUp[i]++
		}
		for i := range 2 {
			if c := d.Players[i].Client; c.Phase() != client.Connected {
				continue
			}
			if down[i] < n && d.Server.SendEvent(d.Players[i].Client.ID(), one, []byte{byte(down[i])}) == nil {
				down[i]++
			}
		}
		if bcast < n/4 && at%(200*time.Millisecond) == 0 && d.Server.BroadcastEvent(all, []byte{byte(bcast)}) == nil {
			bcast++
		}
	}
	for i := range 2 {
		if up[i] != n || gotUp[i] != n || down[i] != n || gotDown[i] != n || gotBcast[i] != n/4 {
			t.Errorf("client %d: sent %d, server took %d; server sent %d, client took %d; broadcasts %d of %d",
				i, up[i], gotUp[i], down[i], gotDown[i], gotBcast[i], n/4)
		}
		if p := d.Players[i].Client.PendingGameEvents(); p != 0 {
			t.Errorf("client %d: %d events unacknowledged at the end", i, p)
		}
	}
	if d.Players[0].Up.Stats().Lost == 0 {
		t.Fatal("the link lost nothing")
	}
}

// player returns the index of the player in server slot id.
func player(d *sim.Driver, id int) int {
	for i, p := range d.Players {
		if p.Client.ID() == id {
			return i
		}
	}
	return -1
}

// TestGameEventKinds: kinds below wire.EventGameMin are lagkit's and
// neither side sends them for a game; nor events over the size bound.
func TestGameEventKinds(t *testing.T) {
	d, err := sim.NewDriver(server.Config{Map: world.Field(), Seed: 2}, []sim.PlayerConfig{{}}, 4)
	if err != nil {
		t.Fatal(err)
	}
	d.Run(time.Second, nil)
	c := d.Players[0].Client
	id := c.ID()
	if err := d.Server.SendEvent(id, wire.EventKill, nil); !errors.Is(err, server.ErrNotGameEvent) {
		t.Errorf("server sent lagkit's kind: %v", err)
	}
	if err := d.Server.BroadcastEvent(wire.EventGameMin-1, nil); !errors.Is(err, server.ErrNotGameEvent) {
		t.Errorf("server broadcast lagkit's kind: %v", err)
	}
	if err := d.Server.SendEvent(id+1, wire.EventGameMin, nil); err == nil {
		t.Error("server sent to an empty slot")
	}
	if err := d.Server.SendEvent(id, wire.EventGameMin, make([]byte, wire.MaxGameEventData+1)); err == nil {
		t.Error("server sent an event over the size bound")
	}
	if err := c.SendEvent(wire.EventHit, nil); err == nil {
		t.Error("client sent lagkit's kind")
	}
	if err := c.SendEvent(wire.EventGameMin, make([]byte, wire.MaxGameEventData+1)); err == nil {
		t.Error("client sent an event over the size bound")
	}
	for i := range client.MaxPendingGameEvents {
		if err := c.SendEvent(wire.EventGameMin, []byte{byte(i)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.SendEvent(wire.EventGameMin, nil); !errors.Is(err, client.ErrGameEventBacklog) {
		t.Errorf("event beyond the backlog: %v", err)
	}
}

// gameEventsTaken keeps copies of the game events the server and each
// client handed over (their Data is valid only until the next
// handover).
type gameEventsTaken struct {
	evs    []server.GameEvent
	client [2][]wire.Event
}

func (g *gameEventsTaken) Delivered(_ time.Duration, i int, _ *sim.Player, r *client.Ready) {
	for _, ev := range r.GameEvents {
		ev.Data = append([]byte(nil), ev.Data...)
		g.client[i] = append(g.client[i], ev)
	}
}
func (g *gameEventsTaken) Ticked(time.Duration, int, *sim.Player, *client.Ready) {}
func (g *gameEventsTaken) ServerTicked(time.Duration, *server.Server)            {}
func (g *gameEventsTaken) ServerReady(_ time.Duration, _ *server.Server, r *server.Ready) {
	for _, ev := range r.GameEvents {
		ev.Data = append([]byte(nil), ev.Data...)
		g.evs = append(g.evs, ev)
	}
}
