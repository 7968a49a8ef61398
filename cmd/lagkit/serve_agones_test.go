package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lagkit/lagkit/agones"
	"github.com/lagkit/lagkit/agones/agonestest"
	"github.com/lagkit/lagkit/realtime/bots"
)

// serveInProcess runs lagkit serve with o in this process and returns
// the addresses it logged and a channel with its result.
func serveInProcess(t *testing.T, ctx context.Context, o serveOptions) (map[string]any, <-chan error, func() string) {
	t.Helper()
	pr, pw := io.Pipe()
	logs := make(chan string, 1024)
	listening := make(chan map[string]any, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			select {
			case logs <- sc.Text():
			default:
			}
			var rec map[string]any
			if json.Unmarshal(sc.Bytes(), &rec) == nil && rec["msg"] == "listening" {
				listening <- rec
			}
		}
	}()
	o.logFormat = "json"
	o.listen = ""
	if o.http == "" {
		o.http = "127.0.0.1:0"
	}
	if o.admin == "" {
		o.admin = "127.0.0.1:0"
	}
	if o.getenv == nil {
		o.getenv = func(string) string { return "" }
	}
	if o.udp == "" {
		o.udp = "127.0.0.1:0"
	}
	res := make(chan error, 1)
	go func() {
		err := runServe(ctx, o, pw)
		pw.Close()
		res <- err
	}()
	all := func() string {
		var b strings.Builder
		for {
			select {
			case l := <-logs:
				b.WriteString(l + "\n")
			default:
				return b.String()
			}
		}
	}
	select {
	case rec := <-listening:
		return rec, res, all
	case err := <-res:
		done := make(chan error, 1)
		done <- err
		return nil, done, all
	case <-time.After(20 * time.Second):
		t.Fatalf("serve did not start:\n%s", all())
	}
	return nil, nil, nil
}

func writeConfig(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "serve.toml")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestServeAgones plays one short match as an Agones GameServer against
// a fake SDK server: two people over UDP, one leaving early and one
// staying until the match ends. Agones hears Ready, then health pings,
// each person joining and leaving, and Shutdown last; serve then exits.
func TestServeAgones(t *testing.T) {
	if testing.Short() {
		t.Skip("plays a live match")
	}
	fake := agonestest.NewServer("lagkit-abc12")
	defer fake.Close()
	t.Setenv(agones.PortEnv, fake.Port())
	cfg := writeConfig(t, `
[[match]]
name = "duel"
map = "arena"
mode = "ffa"
seats = 2
bots = 0
duration = "4s"
`)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	o := serveOptions{config: cfg, agones: agonesOptions{on: true, health: 100 * time.Millisecond, wait: 5 * time.Second}}
	addrs, res, logs := serveInProcess(t, ctx, o)
	if addrs == nil {
		t.Fatalf("serve failed: %v\n%s", <-res, logs())
	}
	connect := "udp://" + addrs["udp"].(string)
	early := make(chan *bots.Report, 1)
	go func() {
		rep, _ := runBots(ctx, botsOptions{connect: connect, count: 1, duration: 1500 * time.Millisecond, mapName: "arena", skill: 0.5, seed: 1})
		early <- rep
	}()
	// Capacity is on /metrics while the match runs.
	time.Sleep(500 * time.Millisecond)
	metrics, err := get(ctx, "http://"+addrs["http"].(string)+"/metrics")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"lagkit_matches 1\n", "lagkit_matches_max 256\n", `lagkit_seats{match="1"} 2`, `lagkit_match_cpu_seconds_total{match="1"} `, "lagkit_match_panics_total 0\n"} {
		if !strings.Contains(string(metrics), want) {
			t.Errorf("/metrics has no %q", want)
		}
	}
	late, err := runBots(ctx, botsOptions{connect: connect, count: 1, duration: 30 * time.Second, mapName: "arena", skill: 0.5, seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	if late.DurationS > 10 {
		t.Fatalf("the match did not end the late player's session: %.1fs", late.DurationS)
	}
	if rep := <-early; rep == nil || rep.Bots[0].Snapshots == 0 {
		t.Fatalf("the early player did not play: %+v", rep)
	}
	select {
	case err := <-res:
		if err != nil {
			t.Fatalf("serve: %v\n%s", err, logs())
		}
	case <-time.After(15 * time.Second):
		t.Fatalf("serve did not exit after the match:\n%s", logs())
	}

	calls := fake.Calls()
	var ops []string
	for _, c := range calls {
		ops = append(ops, c.String())
	}
	t.Logf("calls: %s", strings.Join(ops, " "))
	if got := strings.Join(ops[:5], " "); got != "SetPlayerCapacity(2) SetLabel(lagkit-match=duel) SetLabel(lagkit-map=arena) SetLabel(lagkit-mode=ffa) Ready" {
		t.Fatalf("start: %s", got)
	}
	if ops[len(ops)-1] != "Shutdown" {
		t.Fatalf("last call %s, want Shutdown", ops[len(ops)-1])
	}
	connected, left := map[string]int{}, map[string]int{}
	health := 0
	for i, c := range calls[5 : len(calls)-1] {
		switch c.Op {
		case "Health":
			health++
		case "PlayerConnect":
			connected[c.Arg] = i
		case "PlayerDisconnect":
			if _, ok := connected[c.Arg]; !ok {
				t.Fatalf("%s left before joining", c.Arg)
			}
			left[c.Arg] = i
		case "WatchGameServer":
		default:
			t.Fatalf("unexpected call %s", c)
		}
	}
	// About 4 s at 100 ms, on a loaded machine at least a dozen.
	if health < 12 {
		t.Fatalf("%d health pings in a 4s match at 100ms", health)
	}
	if len(connected) != 2 || len(left) != 2 {
		t.Fatalf("players joined %v, left %v", connected, left)
	}
	for id := range connected {
		if !strings.HasPrefix(id, "udp:127.0.0.1:") {
			t.Fatalf("player ID %q, want the player's UDP peer", id)
		}
	}
	gs := fake.GameServer()
	if gs.Status.State != agones.StateShutdown || gs.Status.Players.Count != 0 || gs.ObjectMeta.Labels["agones.dev/sdk-lagkit-match"] != "duel" {
		t.Fatalf("game server at the end: %+v %+v", gs.Status, gs.ObjectMeta.Labels)
	}
	if !strings.Contains(logs(), `"msg":"agones state","state":"Ready"`) {
		t.Errorf("the Ready state from the watch was not logged:\n%s", logs())
	}
}

// TestServeAgonesDown runs serve --agones with no SDK server: it retries
// for --agones-wait, then exits with an error that says what it looked
// for, without hanging.
func TestServeAgonesDown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	t.Setenv(agones.PortEnv, strconv.Itoa(port))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	start := time.Now()
	o := serveOptions{agones: agonesOptions{on: true, health: time.Second, wait: 700 * time.Millisecond}}
	_, res, logs := serveInProcess(t, ctx, o)
	select {
	case err := <-res:
		took := time.Since(start)
		if !errors.Is(err, agones.ErrUnreachable) || !strings.Contains(err.Error(), "localhost:"+strconv.Itoa(port)) || !strings.Contains(err.Error(), "attempts") {
			t.Fatalf("error %v", err)
		}
		if took > 15*time.Second {
			t.Fatalf("took %v to give up", took)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("serve hung with no SDK server:\n%s", logs())
	}
}

func TestServeAgonesFlags(t *testing.T) {
	two := writeConfig(t, "[[match]]\nname = \"a\"\n[[match]]\nname = \"b\"\n")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--agones-health", "1s"}, "--agones-health needs --agones"},
		{[]string{"--agones-wait", "1s"}, "--agones-wait needs --agones"},
		{[]string{"--agones", "--config", two}, "2 matches; an Agones GameServer runs one"},
		{[]string{"--agones", "--agones-health", "0s"}, "--agones-health 0s"},
	} {
		_, err := run(append([]string{"serve", "--listen", "", "--udp", "", "--http", ""}, c.args...)...)
		var ue usageError
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.As(err, &ue) {
			t.Errorf("%v: %v, want usage error %q", c.args, err, c.want)
		}
	}
}

// TestServeAgonesSignal stops serve --agones as Agones stops a
// GameServer it deletes (SIGTERM, here the context): it shuts down and
// exits cleanly, and also when the SDK server has gone first.
func TestServeAgonesSignal(t *testing.T) {
	for _, sdkGone := range []bool{false, true} {
		fake := agonestest.NewServer("lagkit-sig")
		t.Setenv(agones.PortEnv, fake.Port())
		ctx, cancel := context.WithCancel(context.Background())
		o := serveOptions{agones: agonesOptions{on: true, health: 100 * time.Millisecond, wait: time.Second}}
		addrs, res, logs := serveInProcess(t, ctx, o)
		if addrs == nil {
			t.Fatalf("serve failed: %v\n%s", <-res, logs())
		}
		deadline := time.Now().Add(10 * time.Second)
		for fake.GameServer().Status.State != agones.StateReady && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if sdkGone {
			fake.Close()
		}
		cancel()
		select {
		case err := <-res:
			if err != nil {
				t.Fatalf("SDK server gone %v: serve: %v", sdkGone, err)
			}
		case <-time.After(15 * time.Second):
			t.Fatalf("SDK server gone %v: serve did not exit:\n%s", sdkGone, logs())
		}
		calls := fake.Calls()
		if last := calls[len(calls)-1].Op; !sdkGone && last != "Shutdown" {
			t.Fatalf("last call %s, want Shutdown", last)
		}
		fake.Close()
	}
}
