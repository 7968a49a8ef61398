package realtime

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/lagkit/lagkit/client"
	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/server"
	"github.com/lagkit/lagkit/shooter"
	"github.com/lagkit/lagkit/wire"
	"github.com/lagkit/lagkit/world"
)

// TestOnTickGetsEveryGameEvent: OnTick is handed every game event a
// client sent, once and in order, with its data, though the match takes
// the core's handover after every datagram (where they arrive) and not
// only after its ticks; and the kills its own Damage made.
func TestOnTickGetsEveryGameEvent(t *testing.T) {
	const kind, n = wire.EventGameMin + 3, 40
	var mu sync.Mutex
	var got []byte
	var kills []server.Kill
	damaged := false
	onTick := func(s *server.Server, r *server.Ready) {
		mu.Lock()
		defer mu.Unlock()
		for _, ev := range r.GameEvents {
			if ev.Kind == kind && len(ev.Data) == 2 && ev.Data[1] == ^ev.Data[0] {
				got = append(got, ev.Data[0])
			}
		}
		kills = append(kills, r.Kills...)
		if len(got) == n && !damaged {
			if c, ok := s.Client(0); ok && !c.State.Has(game.FlagProtected) {
				_, _ = s.Damage(0, 1000, 0)
				damaged = true
			}
		}
	}
	h := NewHost(slog.New(slog.NewTextHandler(io.Discard, nil)), nil)
	m, err := h.Start(MatchConfig{Map: "arena", Mode: "ffa", Seats: 2, OnTick: onTick})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Shutdown(context.Background(), "test over")
	near, far := Pipe("player", "server", 256)
	if err := m.Add(far); err != nil {
		t.Fatal(err)
	}
	arena, err := world.Load("arena")
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.New(shooter.Client(client.Config{Map: arena, Name: "p", Nonce: client.RandomNonce()}))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	start := time.Now()
	now := func() time.Duration { return time.Since(start) }
	c.Connect(now())
	buf := make([]byte, 2048)
	sent, next := 0, time.Duration(0)
	done := func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(got) == n && len(kills) > 0
	}
	for ctx.Err() == nil && !done() {
		rctx, rcancel := context.WithTimeout(ctx, 15*time.Millisecond)
		if k, err := near.Recv(rctx, buf); err == nil {
			_ = c.Step(now(), buf[:k])
		}
		rcancel()
		out := c.Ready().Messages
		if c.Phase() == client.Connected && sent < n {
			if err := c.SendEvent(kind, []byte{byte(sent), ^byte(sent)}); err == nil {
				sent++
			}
		}
		// One command a tick, as a client at the server's tick rate sends.
		for _, d := range out {
			_ = near.Send(d.Data)
		}
		if t := now(); t >= next {
			for _, d := range c.Tick(t, game.UserCmd{}).Messages {
				_ = near.Send(d.Data)
			}
			next = t + time.Second/64
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != n {
		t.Fatalf("OnTick saw %d of %d game events: %v", len(got), n, got)
	}
	for i, b := range got {
		if int(b) != i {
			t.Fatalf("OnTick saw the events in the order %v", got)
		}
	}
	if len(kills) != 1 || kills[0].Victim != 0 || kills[0].Weapon != -1 {
		t.Fatalf("OnTick saw kills %+v (player %d: %v %q), want the one its Damage made", kills, c.ID(), c.Phase(), c.Reason())
	}
}
