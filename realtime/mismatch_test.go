package realtime

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/lagkit/lagkit/client"
	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/wire"
	"github.com/lagkit/lagkit/world"
)

// TestRunClientRefusedMismatch: a client whose declared game state,
// shape (wire.Shape) or movement rules differ from the match's is refused at connect, and
// RunClient returns an error naming the difference, not a session of
// no snapshots; a client that agrees plays.
func TestRunClientRefusedMismatch(t *testing.T) {
	type served struct {
		Charges uint8 `lagkit:"owner,max=9"`
	}
	type other struct {
		Charges uint8 `lagkit:"owner,max=10"`
	}
	decl := game.MustDeclare[served]()
	h := NewHost(quiet, nil)
	m, err := h.Start(MatchConfig{Map: "arena", Mode: "ffa", Seats: 4, Game: decl.Layout})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = m.End(context.Background(), "test over") }()
	arena, err := world.Load("arena")
	if err != nil {
		t.Fatal(err)
	}
	fast := game.DefaultParams()
	fast.WalkSpeed *= 2
	for _, tc := range []struct {
		name string
		cc   client.Config
		want string
	}{
		{"other declaration", client.Config{Map: arena, Name: "a", Game: game.MustDeclare[other]().Layout}, "game state declaration differs"},
		{"no declaration", client.Config{Map: arena, Name: "b"}, "game state declaration differs"},
		{"other rules", client.Config{Map: arena, Name: "c", Game: decl.Layout, Movement: &fast}, "movement rules differ"},
		{"other shape", client.Config{Map: arena, Name: "e", Game: decl.Layout, Shape: wire.Shape{Parts: 12}}, "game shape differs: parts: client 12, server 4"},
		{"more slots", client.Config{Map: arena, Name: "g", Game: decl.Layout, Shape: wire.Shape{Slots: 1000}}, "game shape differs: slots: client 1000, server 256"},
		{"health to all", client.Config{Map: arena, Name: "f", Game: decl.Layout, Shape: wire.Shape{HealthToAll: true}}, "game shape differs: health to all: client true, server false"},
	} {
		srvEnd, cliEnd := Pipe(tc.cc.Name, "server", 256)
		if err := m.Add(srvEnd); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		st, err := RunClient(ctx, cliEnd, ClientConfig{Client: tc.cc})
		cancel()
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "rejected") {
			t.Errorf("%s: RunClient returned %v (%d snapshots), want a rejection saying %q", tc.name, err, st.Snapshots, tc.want)
		}
	}
	// The same declaration plays, and receives snapshots.
	srvEnd, cliEnd := Pipe("d", "server", 256)
	if err := m.Add(srvEnd); err != nil {
		t.Fatal(err)
	}
	live := &LiveStats{}
	done := make(chan error, 1)
	go func() {
		_, err := RunClient(context.Background(), cliEnd, ClientConfig{Client: client.Config{Map: arena, Name: "d", Game: decl.Layout}, Stats: live})
		done <- err
	}()
	deadline := time.Now().Add(20 * time.Second)
	for live.Get().Snapshots < 10 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := live.Get().Snapshots; n < 10 {
		t.Fatalf("the agreeing client got %d snapshots", n)
	}
	_ = cliEnd.Close("done")
	<-done
}
