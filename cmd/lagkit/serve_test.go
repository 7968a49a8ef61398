package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lagkit/lagkit/internal/pgtest"
	"github.com/lagkit/lagkit/internal/walltest"
	"github.com/lagkit/lagkit/realtime/bots"
	"github.com/lagkit/lagkit/shooter"

	"github.com/lagkit/lagkit/client"
	"github.com/lagkit/lagkit/realtime"
	"github.com/lagkit/lagkit/transport"
	"github.com/lagkit/lagkit/world"
)

// TestMain lets a test run this binary as the lagkit command in a
// subprocess, so the serve test needs no separate build.
func TestMain(m *testing.M) {
	if os.Getenv("LAGKIT_AS_COMMAND") == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(pgtest.Main(m))
}

// startServe runs lagkit serve with args in a subprocess and returns it
// with the addresses it logged.
func startServe(t *testing.T, args ...string) (*exec.Cmd, map[string]any, *bytes.Buffer) {
	t.Helper()
	return startServeEnv(t, nil, args...)
}

// startServeEnv is startServe with env added to the subprocess's
// environment.
func startServeEnv(t *testing.T, env []string, args ...string) (*exec.Cmd, map[string]any, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"serve", "--log-format", "json"}, args...)...)
	cmd.Env = append(append(os.Environ(), "LAGKIT_AS_COMMAND=1"), env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	logs := &bytes.Buffer{}
	found := make(chan map[string]any, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		sent := false
		for sc.Scan() {
			logs.WriteString(sc.Text() + "\n")
			var rec map[string]any
			if !sent && json.Unmarshal(sc.Bytes(), &rec) == nil && rec["msg"] == "listening" {
				found <- rec
				sent = true
			}
		}
		close(found)
	}()
	select {
	case rec, ok := <-found:
		if !ok {
			t.Fatalf("serve exited before listening:\n%s", logs)
		}
		return cmd, rec, logs
	case <-time.After(20 * time.Second):
		t.Fatalf("serve did not log its addresses:\n%s", logs)
	}
	return nil, nil, nil
}

// TestServeShutdown runs lagkit serve, plays a client over UDP, scrapes
// /metrics, uses the match API, then sends SIGTERM: the client is told
// why, and the process exits 0.
func TestServeShutdown(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a server subprocess")
	}
	walltest.Lock(t)
	cfg := filepath.Join(t.TempDir(), "serve.toml")
	if err := os.WriteFile(cfg, []byte(`
[[match]]
name = "duel"
map = "arena"
mode = "ffa"
seats = 4
bots = 2

[match.policy]
name = "alc"
`), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd, addrs, logs := startServe(t, "--config", cfg)
	udp, _ := addrs["udp"].(string)
	if udp == "" || addrs["http"] == "" || addrs["admin"] == "" || addrs["listen"] == "" || len(addrs["cert_sha256"].(string)) != 64 {
		t.Fatalf("addresses %v", addrs)
	}
	base, admin := "http://"+addrs["http"].(string), "http://"+addrs["admin"].(string)

	conn, err := transport.DialUDP(context.Background(), udp, transport.UDPOptions{})
	if err != nil {
		t.Fatal(err)
	}
	arena, err := world.Load("arena")
	if err != nil {
		t.Fatal(err)
	}
	live := &realtime.LiveStats{}
	done := make(chan error, 1)
	go func() {
		_, err := realtime.RunClient(context.Background(), conn, realtime.ClientConfig{
			Client: shooter.Client(client.Config{Map: arena, Name: "tester"}), Stats: live})
		done <- err
	}()
	deadline := time.Now().Add(10 * time.Second)
	for live.Get().Snapshots < 64 {
		if time.Now().After(deadline) {
			t.Fatalf("client got %d snapshots in 10 s", live.Get().Snapshots)
		}
		time.Sleep(50 * time.Millisecond)
	}

	checkMetrics(t, base, admin)
	checkAPI(t, admin)
	checkBots(t, udp, admin)

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("client: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("client not told within 10 s of SIGTERM")
	}
	if r := live.Get().Reason; !strings.Contains(r, "server shutting down") {
		t.Errorf("client was told %q, want the server's shutdown", r)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("serve exited with %v, want 0:\n%s", err, logs)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve still running 10 s after SIGTERM")
	}
	for _, want := range []string{`"msg":"connect"`, `"name":"tester"`, `"reason":"client: client left"`, `"msg":"match end"`, `"reason":"server shutting down"`} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("logs lack %s:\n%s", want, logs)
		}
	}
}

// checkMetrics scrapes /metrics and checks what a running match shows,
// and that pprof is on the admin listener.
func checkMetrics(t *testing.T, base, admin string) {
	t.Helper()
	fams, err := getMetrics(context.Background(), base+"/metrics")
	if err != nil {
		t.Fatal(err)
	}
	if v := metricValue(fams["lagkit_players"], ""); v != 2 {
		t.Errorf("lagkit_players %v, want 2 (the tester and a bot)", v)
	}
	for _, name := range []string{"lagkit_datagrams_in_total", "lagkit_datagrams_out_total", "lagkit_bytes_out_total"} {
		if v := metricValue(fams[name], ""); v <= 0 {
			t.Errorf("%s = %v, want > 0", name, v)
		}
	}
	h := fams["lagkit_tick_duration_seconds"]
	if h == nil || len(h.GetMetric()) != 1 || h.GetMetric()[0].GetHistogram().GetSampleCount() == 0 {
		t.Errorf("lagkit_tick_duration_seconds: want one series of ticks, got %v", h)
	}
	if _, err := get(context.Background(), admin+"/debug/pprof/goroutine?debug=1"); err != nil {
		t.Errorf("pprof: %v", err)
	}
	if body, err := get(context.Background(), base+"/healthz"); err != nil || strings.TrimSpace(string(body)) != "ok" {
		t.Errorf("/healthz: %q, %v", body, err)
	}
	for _, name := range []string{"lagkit_tick_start_lateness_seconds", "lagkit_tick_overruns_total", "lagkit_datagrams_dropped_total",
		"lagkit_rewinds_total", "lagkit_rollback_distance_meters", "lagkit_sbc_hits_total", "go_goroutines", "process_cpu_seconds_total"} {
		if fams[name] == nil {
			t.Errorf("/metrics lacks %s", name)
		}
	}
}

// checkAPI creates, lists and ends a match through the API.
func checkAPI(t *testing.T, base string) {
	t.Helper()
	resp, err := http.Post(base+"/api/matches", "application/json", strings.NewReader(`{"map": "courtyard", "mode": "dom", "tick_rate": 32, "duration": "10m"}`))
	if err != nil {
		t.Fatal(err)
	}
	var created realtime.MatchInfo
	_ = json.NewDecoder(resp.Body).Decode(&created)
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated || created.ID == "" || created.Config.TickRate != 32 {
		t.Fatalf("POST /api/matches: %s %+v", resp.Status, created)
	}
	for body, want := range map[string]struct {
		status int
		err    string
	}{
		`{"map": "metro", "tickrate": 32}`:                               {http.StatusBadRequest, "body:1:18: tickrate: unknown field (did you mean tick_rate?)"},
		`{"map": "metro", "tick_rate": 500}`:                             {http.StatusBadRequest, "body:1:31: tick_rate: 500, want 20 to 128"},
		`{"name": "` + strings.Repeat("x", realtime.MaxMatchJSON) + `"}`: {http.StatusRequestEntityTooLarge, "body: larger than 64 KiB, the limit for a match config"},
	} {
		resp, err = http.Post(base+"/api/matches", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		var got struct{ Error string }
		_ = json.NewDecoder(resp.Body).Decode(&got)
		resp.Body.Close()
		if resp.StatusCode != want.status || got.Error != want.err {
			t.Errorf("POST %.40s: %s %q, want %d %q", body, resp.Status, got.Error, want.status, want.err)
		}
	}
	var list []realtime.MatchInfo
	if err := getJSON(context.Background(), base+"/api/matches", "", &list); err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].Config.Name != "duel" || list[0].Humans != 1 || list[1].ID != created.ID {
		t.Fatalf("GET /api/matches: %+v", list)
	}
	for body, want := range map[string]int{
		`[{"player": "tester", "up": {"latency_ms": 40}, "down": {"latency_ms": 40}}]`: http.StatusNoContent,
		`[{"player": "tester", "up": {"latency_ms": -1}}]`:                             http.StatusBadRequest,
	} {
		req, _ := http.NewRequest(http.MethodPut, base+"/api/matches/"+list[0].ID+"/latency", strings.NewReader(body))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("PUT latency %s: %s, want %d", body, resp.Status, want)
		}
	}
	req, _ := http.NewRequest(http.MethodDelete, base+"/api/matches/"+created.ID, nil)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Errorf("DELETE: %s, want 204", resp.Status)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		if err := getJSON(context.Background(), base+"/api/matches", "", &list); err != nil {
			t.Fatal(err)
		}
		if len(list) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("ended match still listed: %+v", list)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestServeAndBotsErrors(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.toml")
	if err := os.WriteFile(bad, []byte("[[match]]\nmap = \"metro\"\nbots = 3\nplayers = 4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	longDelay := filepath.Join(t.TempDir(), "delay.toml")
	if err := os.WriteFile(longDelay, []byte("spectate_delay = \"1h\"\n[[match]]\nmap = \"metro\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--log-format", "xml"}, `--log-format "xml": want auto, text or json`},
		{[]string{"serve", "--spectate-delay", "-1s"}, "--spectate-delay: spectate delay -1s is negative"},
		{[]string{"serve", "--spectate-delay", "6m"}, "--spectate-delay: spectate delay 6m0s is over 5m0s"},
		{[]string{"serve", "--spectate-delay", "soon"}, `invalid argument "soon" for "--spectate-delay"`},
		{[]string{"serve", "--config", longDelay}, "delay.toml:1:1: spectate_delay: spectate delay 1h0m0s is over 5m0s"},
		{[]string{"serve", "--config", bad}, "bad.toml:4:1: match[0].players: unknown field"},
		{[]string{"serve", "--config", "nowhere.toml"}, "--config: nowhere.toml: no such file or directory"},
		{[]string{"serve", "--cert", "c.pem"}, "--cert and --key go together"},
		{[]string{"bots", "--connect", "127.0.0.1:4000"}, `--connect "127.0.0.1:4000": want udp://HOST:PORT`},
		{[]string{"bots", "--connect", "tcp://127.0.0.1:4000"}, `unknown scheme "tcp"`},
		{[]string{"bots", "--connect", "udp://127.0.0.1:4000", "--count", "0"}, "--count 0: want 1 to 128"},
		{[]string{"bots", "--connect", "udp://127.0.0.1:4000", "--map", "atlantis"}, "--map:"},
	}
	for _, tc := range cases {
		_, err := run(tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("lagkit %s: error %v, want it to contain %q", strings.Join(tc.args, " "), err, tc.want)
		}
	}
}

// TestBotsWithoutServer checks that bots finding no server say so for
// each bot and exit 1 rather than end as if they had played.
func TestBotsWithoutServer(t *testing.T) {
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := pc.LocalAddr().String()
	pc.Close() // nothing listens there now
	code, out, stderr := runExit(t, "bots", "--connect", "udp://"+addr, "--count", "2", "--duration", "300ms")
	if code != 1 || !strings.Contains(stderr, "no bot got a seat at udp://"+addr) {
		t.Errorf("exit %d, stderr %q; want exit 1 and no bot got a seat", code, stderr)
	}
	if strings.Count(out, "no seat: the server did not answer") != 2 {
		t.Errorf("each bot's line should say it got no seat:\n%s", out)
	}
}

// checkBots plays lagkit bots against the server and reads its report.
func checkBots(t *testing.T, udp, base string) {
	t.Helper()
	out, err := run("bots", "--connect", "udp://"+udp, "--map", "arena", "--count", "2", "--duration", "2s", "--server", base, "--json")
	if err != nil {
		t.Fatal(err)
	}
	var rep bots.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	for _, b := range rep.Bots {
		if b.Error != "" || b.Snapshots == 0 || b.Seat < 0 || b.RTTms <= 0 {
			t.Errorf("bot %+v", b)
		}
	}
	s := rep.Server
	if len(rep.Bots) != 2 || s == nil || s.TickRateHz != 64 || s.Ticks <= 0 || s.TickP99US <= 0 || s.CPUPerTickUS <= 0 || s.BytesPerSPerClient <= 0 {
		t.Errorf("report %s", out)
	}
}

// TestServeSaysMatchesEnded checks that serve, once the matches of its
// configuration have all ended, says so and how to go on, and runs on.
func TestServeSaysMatchesEnded(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	cfg := writeConfig(t, "[[match]]\ntick_rate = 20\nseats = 2\nbots = 2\nduration = \"500ms\"\n")
	addrs, res, logs := serveInProcess(t, ctx, serveOptions{config: cfg})
	if addrs == nil {
		t.Fatalf("serve failed: %v\n%s", <-res, logs())
	}
	var seen strings.Builder
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(seen.String(), `"msg":"every match has ended"`) {
		if time.Now().After(deadline) {
			t.Fatalf("no word of the ended match:\n%s", seen.String())
		}
		select {
		case err := <-res:
			t.Fatalf("serve exited: %v\n%s", err, seen.String()+logs())
		case <-time.After(50 * time.Millisecond):
		}
		seen.WriteString(logs())
	}
	if want := "POST /api/matches on " + addrs["admin"].(string) + " (--admin) starts another"; !strings.Contains(seen.String(), want) {
		t.Errorf("the log does not say %q:\n%s", want, seen.String())
	}
	cancel()
	if err := <-res; err != nil {
		t.Fatalf("serve: %v", err)
	}
}

// TestServeSpectateDelay: the --config file's spectate_delay sets the
// delay unless --spectate-delay is given, and 0 turns it off.
func TestServeSpectateDelay(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "off.toml")
	if err := os.WriteFile(cfg, []byte("spectate_delay = \"0s\"\n[[match]]\nmap = \"metro\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		config string
		flag   bool
		want   time.Duration
	}{
		{"", false, realtime.DefaultSpectateDelay},
		{cfg, false, 0},
		{cfg, true, 7 * time.Second},
	} {
		o := serveOptions{listen: "127.0.0.1:0", config: tc.config, spectateDelay: realtime.DefaultSpectateDelay,
			changed: func(name string) bool { return tc.flag && name == "spectate-delay" }}
		if tc.flag {
			o.spectateDelay = 7 * time.Second
		}
		if _, _, _, err := checkServe(&o); err != nil {
			t.Fatal(err)
		}
		if o.spectateDelay != tc.want {
			t.Errorf("config %q, flag given %v: delay %v, want %v", tc.config, tc.flag, o.spectateDelay, tc.want)
		}
	}
}
