package agones_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lagkit/lagkit/agones"
	"github.com/lagkit/lagkit/agones/agonestest"
)

func newClient(t *testing.T) (*agones.Client, *agonestest.Server) {
	t.Helper()
	fake := agonestest.NewServer("gs-1")
	t.Cleanup(fake.Close)
	return agones.New(fake.URL(), agones.Options{Wait: 2 * time.Second, Backoff: 10 * time.Millisecond}), fake
}

func TestLifecycleAndPlayers(t *testing.T) {
	c, fake := newClient(t)
	ctx := context.Background()
	if err := c.SetPlayerCapacity(ctx, 2); err != nil {
		t.Fatal(err)
	}
	if err := c.SetLabel(ctx, "lagkit-match", "duel"); err != nil {
		t.Fatal(err)
	}
	if err := c.Ready(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.Health(ctx); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"a", "b"} {
		if ok, err := c.PlayerConnect(ctx, id); err != nil || !ok {
			t.Fatalf("connect %s: %v %v", id, ok, err)
		}
	}
	if ok, err := c.PlayerConnect(ctx, "a"); err != nil || ok {
		t.Fatalf("connecting a twice: %v %v", ok, err)
	}
	// At capacity: the SDK server refuses, and the refusal is not retried.
	var se *agones.StatusError
	if _, err := c.PlayerConnect(ctx, "c"); !errors.As(err, &se) || se.Code != 500 || !strings.Contains(err.Error(), "capacity") {
		t.Fatalf("connect over capacity: %v", err)
	}
	if n, err := c.PlayerCount(ctx); err != nil || n != 2 {
		t.Fatalf("count %d %v", n, err)
	}
	if n, err := c.PlayerCapacity(ctx); err != nil || n != 2 {
		t.Fatalf("capacity %d %v", n, err)
	}
	if ok, err := c.PlayerDisconnect(ctx, "a"); err != nil || !ok {
		t.Fatalf("disconnect: %v %v", ok, err)
	}
	if ok, err := c.PlayerDisconnect(ctx, "a"); err != nil || ok {
		t.Fatalf("disconnect twice: %v %v", ok, err)
	}
	if err := c.Allocate(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.Reserve(ctx, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	gs, err := c.GameServer(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if gs.ObjectMeta.Name != "gs-1" || gs.Status.State != agones.StateReserved || gs.ObjectMeta.Labels["agones.dev/sdk-lagkit-match"] != "duel" ||
		gs.Status.Players.Count != 1 || !slices.Equal(gs.Status.Players.IDs, []string{"b"}) || gs.Spec.Health.PeriodSeconds != 5 {
		t.Fatalf("game server %+v", gs)
	}
	if err := c.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	var ops []string
	for _, call := range fake.Calls() {
		ops = append(ops, call.String())
	}
	want := "SetPlayerCapacity(2) SetLabel(lagkit-match=duel) Ready Health PlayerConnect(a) PlayerConnect(b) PlayerConnect(a) PlayerConnect(c) " +
		"PlayerCount PlayerCapacity PlayerDisconnect(a) PlayerDisconnect(a) Allocate Reserve(10) GameServer Shutdown"
	if got := strings.Join(ops, " "); got != want {
		t.Fatalf("calls\n got %s\nwant %s", got, want)
	}
}

func TestBadArguments(t *testing.T) {
	c, fake := newClient(t)
	ctx := context.Background()
	for _, kv := range [][2]string{{"", "x"}, {"-bad", "x"}, {"key", "has space"}, {"key", strings.Repeat("v", 64)}, {strings.Repeat("k", 60), "x"}} {
		if err := c.SetLabel(ctx, kv[0], kv[1]); err == nil || !strings.Contains(err.Error(), "label") {
			t.Errorf("label %q=%q: %v", kv[0], kv[1], err)
		}
	}
	if _, err := c.PlayerConnect(ctx, ""); err == nil {
		t.Error("empty player ID accepted")
	}
	if err := c.SetPlayerCapacity(ctx, -1); err == nil {
		t.Error("negative capacity accepted")
	}
	if n := len(fake.Calls()); n != 0 {
		t.Errorf("%d calls reached the SDK server", n)
	}
}

func TestLabelValue(t *testing.T) {
	for in, want := range map[string]string{
		"metro": "metro", "maps/My Map.json": "maps-My-Map.json", "-x-": "x", "": "", strings.Repeat("a", 70): strings.Repeat("a", 63),
	} {
		if got := agones.LabelValue(in); got != want || agones.CheckLabel("k", got) != nil {
			t.Errorf("LabelValue(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestInt64(t *testing.T) {
	var v struct{ N agones.Int64 }
	for in, want := range map[string]agones.Int64{`{"N":"12"}`: 12, `{"N":7}`: 7, `{"N":null}`: 0} {
		if err := json.Unmarshal([]byte(in), &v); err != nil || v.N != want {
			t.Errorf("%s: %v %v", in, v.N, err)
		}
	}
	if err := json.Unmarshal([]byte(`{"N":"x"}`), &v); err == nil {
		t.Error(`"x" read as an int64`)
	}
	if b, _ := json.Marshal(agones.Int64(5)); string(b) != `"5"` {
		t.Errorf("marshal: %s", b)
	}
}

// A call to an SDK server that is not there retries with backoff, then
// fails with an error naming the address and the environment variable.
func TestUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	c := agones.New("http://"+addr, agones.Options{Wait: 400 * time.Millisecond, Backoff: 20 * time.Millisecond})
	start := time.Now()
	err = c.Ready(context.Background())
	took := time.Since(start)
	if !errors.Is(err, agones.ErrUnreachable) || !strings.Contains(err.Error(), addr) || !strings.Contains(err.Error(), agones.PortEnv) {
		t.Fatalf("error %v", err)
	}
	if !strings.Contains(err.Error(), "attempts") || strings.Contains(err.Error(), "after 1 attempts") {
		t.Fatalf("no retries: %v", err)
	}
	if took < 200*time.Millisecond || took > 3*time.Second {
		t.Fatalf("gave up after %v, want about 400ms", took)
	}
	// A cancelled context ends the retries at once.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := c.Health(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
}

// 503 answers are retried until the SDK server recovers.
func TestRetriesUnavailable(t *testing.T) {
	c, fake := newClient(t)
	fake.Unavailable(3)
	if err := c.Ready(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := fake.GameServer().Status.State; got != agones.StateReady {
		t.Fatalf("state %s", got)
	}
	fake.Unavailable(1000)
	c2 := agones.New(fake.URL(), agones.Options{Wait: 200 * time.Millisecond, Backoff: 10 * time.Millisecond})
	var se *agones.StatusError
	if err := c2.Health(context.Background()); !errors.As(err, &se) || se.Code != 503 {
		t.Fatalf("still unavailable: %v", err)
	}
}

func TestWatchState(t *testing.T) {
	c, fake := newClient(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	states := make(chan string, 8)
	done := make(chan struct{})
	go func() {
		defer close(done)
		agones.WatchState(ctx, c, func(gs *agones.GameServer) { states <- gs.Status.State }, nil)
	}()
	next := func() string {
		select {
		case s := <-states:
			return s
		case <-time.After(5 * time.Second):
			t.Fatal("no state change seen")
			return ""
		}
	}
	if s := next(); s != agones.StateScheduled {
		t.Fatalf("first state %s", s)
	}
	if err := c.Ready(ctx); err != nil {
		t.Fatal(err)
	}
	if s := next(); s != agones.StateReady {
		t.Fatalf("after Ready: %s", s)
	}
	// A label changes the GameServer but not its state: no call.
	if err := c.SetLabel(ctx, "k", "v"); err != nil {
		t.Fatal(err)
	}
	fake.Allocate()
	if s := next(); s != agones.StateAllocated {
		t.Fatalf("after allocation: %s", s)
	}
	cancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("WatchState did not return after its context ended")
	}
}

func TestKeepHealthy(t *testing.T) {
	c, fake := newClient(t)
	ctx, cancel := context.WithTimeout(context.Background(), 350*time.Millisecond)
	defer cancel()
	var failed atomic.Int32
	agones.KeepHealthy(ctx, c, 50*time.Millisecond, func(error) { failed.Add(1) })
	n := 0
	for _, call := range fake.Calls() {
		if call.Op == "Health" {
			n++
		}
	}
	if n < 4 || n > 9 || failed.Load() != 0 {
		t.Fatalf("%d pings in 350ms at 50ms, %d failed", n, failed.Load())
	}
	// Pings to a server that is gone are reported, and do not stop it.
	fake.Close()
	ctx2, cancel2 := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel2()
	agones.KeepHealthy(ctx2, c, 50*time.Millisecond, func(error) { failed.Add(1) })
	if failed.Load() < 2 {
		t.Fatalf("%d failures reported", failed.Load())
	}
}

func TestAddrFromEnv(t *testing.T) {
	t.Setenv(agones.PortEnv, "")
	if a, err := agones.AddrFromEnv(); err != nil || a != "http://localhost:9358" {
		t.Fatalf("default: %s %v", a, err)
	}
	t.Setenv(agones.PortEnv, "59358")
	if a, err := agones.AddrFromEnv(); err != nil || a != "http://localhost:59358" {
		t.Fatalf("set: %s %v", a, err)
	}
	t.Setenv(agones.PortEnv, "http")
	if _, err := agones.AddrFromEnv(); err == nil || !strings.Contains(err.Error(), agones.PortEnv) {
		t.Fatalf("bad port: %v", err)
	}
}

// TestWaitAllocated: WaitAllocated returns the GameServer once an
// allocation moved it to Allocated, with the annotations the allocation
// gave it in the same change; a GameServer shut down while Ready is
// ErrShutdown.
func TestWaitAllocated(t *testing.T) {
	c, fake := newClient(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.Ready(ctx); err != nil {
		t.Fatal(err)
	}
	got := make(chan *agones.GameServer, 1)
	go func() {
		gs, err := agones.WaitAllocated(ctx, c, nil)
		if err != nil {
			t.Error(err)
		}
		got <- gs
	}()
	// The waiter's watch sees Ready first; an annotation while Ready does
	// not end the wait.
	if err := c.SetAnnotation(ctx, "note", "x"); err != nil {
		t.Fatal(err)
	}
	fake.AllocateWith(map[string]string{"lagkit.dev/match": "2"}, map[string]string{"lagkit.dev/group": "1"})
	gs := <-got
	if gs == nil || gs.Status.State != agones.StateAllocated || gs.ObjectMeta.Annotations["lagkit.dev/group"] != "1" || gs.ObjectMeta.Labels["lagkit.dev/match"] != "2" {
		t.Fatalf("got %+v", gs)
	}

	c2, _ := newClient(t)
	if err := c2.Ready(ctx); err != nil {
		t.Fatal(err)
	}
	res := make(chan error, 1)
	go func() {
		_, err := agones.WaitAllocated(ctx, c2, nil)
		res <- err
	}()
	if err := c2.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-res; !errors.Is(err, agones.ErrShutdown) {
		t.Errorf("shut down while waiting: %v", err)
	}
	short, stop := context.WithTimeout(ctx, 50*time.Millisecond)
	defer stop()
	if _, err := agones.WaitAllocated(short, c, nil); err != nil {
		t.Errorf("already allocated: %v", err)
	}
}
