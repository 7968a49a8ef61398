package realtime

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/lagkit/lagkit/client"
	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/nav"
	"github.com/lagkit/lagkit/shooter/bots"
	"github.com/lagkit/lagkit/shooter/weapon"
	"github.com/lagkit/lagkit/world"
)

// lockedBuffer is a log sink several goroutines write.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// value reads a gauge or a counter.
func value(m prometheus.Metric) float64 {
	var d dto.Metric
	_ = m.Write(&d)
	return d.GetGauge().GetValue() + d.GetCounter().GetValue()
}

// count returns how many series c holds.
func count(c prometheus.Collector) int {
	ch := make(chan prometheus.Metric, 64)
	go func() { c.Collect(ch); close(ch) }()
	n := 0
	for range ch {
		n++
	}
	return n
}

// TestPanicEndsOneMatch runs two matches of bots in one host and breaks
// the server core of one: its next tick panics. That match ends, logged
// with the panic's stack and counted; the other plays to its end, and
// the process goes on.
func TestPanicEndsOneMatch(t *testing.T) {
	var logs lockedBuffer
	reg := prometheus.NewRegistry()
	met := NewMetrics(reg)
	h := NewHost(slog.New(slog.NewJSONHandler(&logs, nil)), met)
	cfg := MatchConfig{Map: "arena", Mode: "ffa", Seats: 4, Bots: 3, Duration: Duration(1500 * time.Millisecond), TickRate: 32}
	broken, err := h.Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	healthy, err := h.Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got := value(met.Seats.WithLabelValues(healthy.ID())); got != 4 {
		t.Fatalf("seats gauge %v", got)
	}
	if got := value(met.MatchesMax); got != maxMatches {
		t.Fatalf("matches max %v", got)
	}
	time.Sleep(300 * time.Millisecond)
	// Only a test reaches into the match goroutine this way: the core is
	// replaced by nothing, and its next use panics.
	// The match may end of it before do sees the command ran.
	if err := broken.do(func() { broken.srv = nil }); err != nil && err != ErrEnded {
		t.Fatal(err)
	}
	select {
	case <-broken.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the broken match did not end")
	}
	if r := broken.Reason(); r != "server error" {
		t.Fatalf("broken match ended with %q", r)
	}
	if _, err := broken.Info(); err != ErrEnded {
		t.Fatalf("Info of the ended match: %v", err)
	}
	if got := value(met.Panics); got != 1 {
		t.Fatalf("panics counted: %v", got)
	}
	info, err := healthy.Info()
	if err != nil {
		t.Fatalf("the other match: %v", err)
	}
	if info.Bots != 3 {
		t.Fatalf("the other match has %d bots", info.Bots)
	}
	select {
	case <-healthy.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the other match did not finish")
	}
	if r := healthy.Reason(); r != "match over" {
		t.Fatalf("the other match ended with %q", r)
	}
	l := logs.String()
	if !strings.Contains(l, `"msg":"match panic"`) || !strings.Contains(l, "nil pointer dereference") || !strings.Contains(l, "realtime.(*Match).run") {
		t.Fatalf("the panic was not logged with its stack:\n%s", l)
	}
	// Both matches' series are gone; the process-wide ones stay.
	if got := value(met.MatchesRunning); got != 0 {
		t.Fatalf("matches running %v", got)
	}
	if n := count(met.Seats); n != 0 {
		t.Fatalf("%d seat series left", n)
	}
	if len(h.Matches()) != 0 {
		time.Sleep(50 * time.Millisecond) // the host forgets a match just after it ends
		if n := len(h.Matches()); n != 0 {
			t.Fatalf("%d matches still listed", n)
		}
	}
	if _, err := h.Start(cfg); err != nil {
		t.Fatalf("the host no longer starts matches: %v", err)
	}
	for _, m := range h.Matches() {
		if err := m.End(t.Context(), "test over"); err != nil {
			t.Fatal(err)
		}
	}
}

// TestMatchCPU checks that a match's CPU time is counted, and stays well
// under the wall time it ran: it sleeps between ticks.
func TestMatchCPU(t *testing.T) {
	met := NewMetrics(prometheus.NewRegistry())
	h := NewHost(quiet, met)
	m, err := h.Start(MatchConfig{Map: "arena", Mode: "ffa", Seats: 2, Bots: 2, TickRate: 20})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second)
	cpu := value(met.CPUSeconds.WithLabelValues(m.ID()))
	if err := m.End(t.Context(), "test over"); err != nil {
		t.Fatal(err)
	}
	if !(cpu > 0 && cpu < 0.5) {
		t.Fatalf("CPU time %.3fs in 1s of a 20 Hz match", cpu)
	}
}

// panicBrain is a bot brain whose first decision panics.
type panicBrain struct{ Brain }

func (panicBrain) Input(time.Duration, *client.Client) game.UserCmd { panic("bot brain broken") }

// TestPanicEndsOneBot breaks the brain of one server-side bot: that bot
// ends, logged with its stack and counted, and leaves its seat; the
// match and its other bots play on to the end.
func TestPanicEndsOneBot(t *testing.T) {
	made := 0
	orig := newBotBrain
	t.Cleanup(func() { newBotBrain = orig })
	newBotBrain = func(cfg bots.Config, w *world.Map, g *nav.Grid, p *game.Params, weapon *weapon.Weapon, seed uint64) (Brain, error) {
		b, err := orig(cfg, w, g, p, weapon, seed)
		made++
		if made == 1 {
			return panicBrain{b}, err
		}
		return b, err
	}
	var logs lockedBuffer
	met := NewMetrics(prometheus.NewRegistry())
	h := NewHost(slog.New(slog.NewJSONHandler(&logs, nil)), met)
	m, err := h.Start(MatchConfig{Map: "arena", Mode: "ffa", Seats: 4, Bots: 3, Duration: Duration(2 * time.Second), TickRate: 32})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-m.Done():
	case <-time.After(15 * time.Second):
		t.Fatal("the match did not finish")
	}
	if r := m.Reason(); r != "match over" {
		t.Fatalf("the match ended with %q", r)
	}
	if got := value(met.Panics); got < 1 {
		t.Fatalf("panics counted: %v", got)
	}
	l := logs.String()
	if !strings.Contains(l, `"msg":"bot panic"`) || !strings.Contains(l, "bot brain broken") || !strings.Contains(l, "panicBrain.Input") {
		t.Fatalf("the bot's panic was not logged with its stack:\n%s", l)
	}
	if strings.Contains(l, `"msg":"match panic"`) {
		t.Fatal("the bot's panic ended the match")
	}
}

// TestNoTokenForAnEndingMatch: a match that has begun to end issues no
// connect token (ErrEnded): one would connect to nothing.
func TestNoTokenForAnEndingMatch(t *testing.T) {
	h := NewHost(quiet, nil)
	if err := h.RequireTokens(make([]byte, 32), "udp://lagkit.test:4433"); err != nil {
		t.Fatal(err)
	}
	defer h.Shutdown(context.Background(), "test over")
	m, err := h.Start(MatchConfig{Map: "arena", Mode: "tdm", Seats: 2})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.IssueToken(m.ID(), "p", time.Minute); err != nil {
		t.Fatal(err)
	}
	m.ended.Store(true) // as End does first, before telling the players
	if _, err := h.IssueToken(m.ID(), "p", time.Minute); !errors.Is(err, ErrEnded) {
		t.Fatalf("token for an ending match: %v, want ErrEnded", err)
	}
	m.ended.Store(false) // and let Shutdown end it as usual
}
