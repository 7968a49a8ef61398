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
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/record"
	"github.com/lagkit/lagkit/shooter"
	"github.com/lagkit/lagkit/world"
)

// memSink is a record.Memory safe for the match goroutine and the test.
type memSink struct {
	mu  sync.Mutex
	mem record.Memory
}

func (s *memSink) Put(r record.Record) { s.mu.Lock(); s.mem.Put(r); s.mu.Unlock() }
func (s *memSink) Close() error        { return nil }
func (s *memSink) reports() []record.SBCReport {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []record.SBCReport
	for _, r := range s.mem.Records {
		if r, ok := r.(record.SBCReport); ok {
			out = append(out, r)
		}
	}
	return out
}

// TestReportReachesSink plays one client over a pipe: Place moves it, and
// its report key's message reaches the match's sink as a record.SBCReport
// naming it (with no hit on it yet: shooter -1).
func TestReportReachesSink(t *testing.T) {
	h := NewHost(slog.New(slog.NewTextHandler(io.Discard, nil)), nil)
	m, err := h.Start(MatchConfig{Map: "arena", Mode: "ffa", Seats: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Shutdown(context.Background(), "test over")
	sink := &memSink{}
	if err := m.SetSink(sink); err != nil {
		t.Fatal(err)
	}
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
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	start := time.Now()
	now := func() time.Duration { return time.Since(start) }
	c.Connect(now())
	buf := make([]byte, 2048)
	placed, reported := false, false
	for ctx.Err() == nil && len(sink.reports()) == 0 {
		rctx, rcancel := context.WithTimeout(ctx, 15*time.Millisecond)
		if n, err := near.Recv(rctx, buf); err == nil {
			_ = c.Step(now(), buf[:n])
		}
		rcancel()
		for _, d := range c.Ready().Messages {
			_ = near.Send(d.Data)
		}
		for _, d := range c.Tick(now(), game.UserCmd{}).Messages {
			_ = near.Send(d.Data)
		}
		if c.Phase() != client.Connected || c.Stats().SnapshotsReceived < 5 {
			continue
		}
		if !placed {
			if err := m.Place(c.ID(), geom.V(-8, -12, 0), 0); err != nil {
				t.Fatal(err)
			}
			placed = true
		}
		if p := c.Predicted().Pos; !reported && p.Dist(geom.V(-8, -12, 0)) < 0.01 {
			if err := c.ReportSBC(); err != nil {
				t.Fatal(err)
			}
			reported = true
		}
	}
	reps := sink.reports()
	if !placed || !reported || len(reps) != 1 {
		t.Fatalf("placed %v, reported %v, %d reports kept; want one", placed, reported, len(reps))
	}
	if r := reps[0]; r.Reporter != c.ID() || r.Shooter != -1 || r.At <= 0 {
		t.Errorf("report %+v, want player %d's, with no hit", r, c.ID())
	}
}
