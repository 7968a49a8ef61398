package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lagkit/lagkit/agones"
	"github.com/lagkit/lagkit/agones/agonestest"
	"github.com/lagkit/lagkit/internal/pgtest"
	"github.com/lagkit/lagkit/probe"
	"github.com/lagkit/lagkit/record"
	"github.com/lagkit/lagkit/store"
	"github.com/lagkit/lagkit/study/online"
	"github.com/lagkit/lagkit/transport"
	"github.com/lagkit/lagkit/web"
)

// startLobby runs lagkit study lobby with args in this process and
// returns its join page's base URL, its output and its exit status.
func startLobby(t *testing.T, ctx context.Context, args ...string) (string, *lockedWriter, <-chan int) {
	t.Helper()
	out, errOut := &lockedWriter{}, &lockedWriter{}
	done := make(chan int, 1)
	go func() { done <- execute(ctx, append([]string{"study", "lobby"}, args...), out, errOut) }()
	link := regexp.MustCompile(`lobby (http://[^/]+)/\?`)
	for {
		if m := link.FindStringSubmatch(out.String()); m != nil {
			return m[1], out, done
		}
		select {
		case code := <-done:
			t.Fatalf("exit %d before the lobby listened: %s%s", code, out.String(), errOut.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// admit takes a participant through arrival, round trip and prescreen.
func admit(t *testing.T, ctx context.Context, p *online.Participant) {
	t.Helper()
	if _, err := p.Arrive(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Consent(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Measure(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Prescreen(ctx, online.Screen{FPS: 120, RefreshHz: 60, PointerLock: true}); err != nil {
		t.Fatal(err)
	}
}

// TestStudyLobbyAgones: lagkit study lobby --allocator agones allocates
// each match through client-go, from a kubeconfig, against a stand-in
// Kubernetes API server (agonestest.Cluster; no real cluster). Its
// GameServer is a lagkit study run --agones process talking to a fake
// SDK server: Ready, then, allocated, it reads the match from the
// allocation's annotations and serves the session. The participant's
// link is the GameServer's address and web port with the seat's code;
// the session ends, the game server annotates "done" and shuts down,
// and the lobby completes the participant. The database holds the
// session with the link's code and the absent seat as a bot's: an
// SQLite file here, and PostgreSQL, the database a cluster's lobby and
// game servers share.
func TestStudyLobbyAgones(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) { lobbyAgones(t, filepath.Join(t.TempDir(), "study.db")) })
	t.Run("postgres", func(t *testing.T) { lobbyAgones(t, pgtest.URL(t)) })
}

func lobbyAgones(t *testing.T, db string) {
	tmp := t.TempDir()
	sched := filepath.Join(tmp, "lobby.toml")
	if err := os.WriteFile(sched, []byte(lobbySchedule), 0o644); err != nil {
		t.Fatal(err)
	}
	cluster := agonestest.NewCluster("study")
	defer cluster.Close()
	kubeconfig := filepath.Join(tmp, "kubeconfig")
	if err := cluster.WriteKubeconfig(kubeconfig); err != nil {
		t.Fatal(err)
	}
	sdk := agonestest.NewServer("lagkit-study-7x2kq")
	defer sdk.Close()
	port, probePort := freePort(t), freePort(t)
	cluster.Add("lagkit-study", sdk, agones.Port{Name: "web", Port: int32(port)}, agones.Port{Name: online.ProbePort, Port: int32(probePort)})
	// The lobby's key, mounted in the lobby and the game servers alike.
	secret := filepath.Join(tmp, "secret")
	if err := os.WriteFile(secret, []byte("0123456789abcdef0123456789abcdef"), 0o600); err != nil {
		t.Fatal(err)
	}
	probeHost := net.JoinHostPort("127.0.0.1", strconv.Itoa(probePort))

	gsOut := &lockedWriter{}
	var gsErr bytes.Buffer
	gs := exec.Command(os.Args[0], "study", "run", sched, "--agones", "--agones-health", "100ms", "--db", db,
		"--listen", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), "--udp", "", "--log-format", "json",
		"--agones-probe", probeHost, "--agones-secret-file", secret)
	gs.Env = append(os.Environ(), "LAGKIT_AS_COMMAND=1", agones.PortEnv+"="+sdk.Port())
	gs.Stdout, gs.Stderr = gsOut, &gsErr
	if err := gs.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- gs.Wait() }()
	defer func() {
		_ = gs.Process.Kill()
	}()
	for sdk.GameServer().Status.State != agones.StateReady {
		select {
		case err := <-exited:
			t.Fatalf("the game server exited before Ready: %v\n%s", err, gsErr.String())
		case <-time.After(20 * time.Millisecond):
		}
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	base, out, done := startLobby(t, ctx, sched, "--allocator", "agones", "--kubeconfig", kubeconfig, "--fleet", "lagkit-study",
		"--listen", "127.0.0.1:0", "--db", db, "--secret-file", secret, "--tick", "50ms", "--log-format", "json")
	wait, stop := context.WithTimeout(ctx, 2*time.Minute)
	defer stop()
	p := &online.Participant{Base: base, ID: "p-1", Study: "s1", Session: "x1"}
	sealedRoundTrip(t, wait, p, probeHost)
	if _, err := p.Prescreen(wait, online.Screen{FPS: 120, RefreshHz: 60, PointerLock: true}); err != nil {
		t.Fatal(err)
	}
	st, err := p.Until(wait, 50*time.Millisecond, func(s online.Status) bool { return s.Join != "" || s.State == "dropped" })
	if err != nil || st.Join == "" {
		t.Fatalf("%+v, %v\n%s", st, err, out.String())
	}
	code := regexp.MustCompile(`^https://127\.0\.0\.1:` + strconv.Itoa(port) + `/\?code=([A-Z0-9]{6})$`).FindStringSubmatch(st.Join)
	if code == nil {
		t.Fatalf("join link %q, want the GameServer's web port %d", st.Join, port)
	}
	// Allocated, the game server stops its probe: its session has the
	// machine, and the lobby no longer names it.
	for {
		c, err := net.DialTimeout("tcp", probeHost, time.Second)
		if err != nil {
			break
		}
		c.Close()
		select {
		case <-wait.Done():
			t.Fatal("the probe still answers after the allocation")
		case <-time.After(50 * time.Millisecond):
		}
	}
	select {
	case err := <-exited:
		t.Fatalf("the probe closed only as the game server exited (%v), not as it was allocated", err)
	default:
	}
	// The game server printed the same link for the seat.
	if !strings.Contains(gsOut.String(), "seat 0: https://127.0.0.1:"+strconv.Itoa(port)+"/?code="+code[1]) {
		t.Errorf("the game server's links:\n%s", gsOut.String())
	}
	// The seat's page asks no consent again: the person agreed in the
	// lobby, whose schedule has a consent text.
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}, Timeout: 10 * time.Second}
	if res, err := hc.Get(strings.Replace(st.Join, "/?code=", web.StudyStatusPath+"?code=", 1)); err != nil {
		t.Error(err)
	} else {
		var seat web.StudyStatus
		err = json.NewDecoder(res.Body).Decode(&seat)
		res.Body.Close()
		if err != nil || seat.Consent {
			t.Errorf("the seat's study status %+v, %v: want no consent asked", seat, err)
		}
	}
	st, err = p.Until(wait, 100*time.Millisecond, func(s online.Status) bool { return s.State != "matched" })
	if err != nil || st.State != "completed" || st.Code == "" {
		t.Fatalf("after the match: %+v, %v\n%s\n%s", st, err, out.String(), gsErr.String())
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("the game server: %v\n%s", err, gsErr.String())
		}
	case <-wait.Done():
		t.Fatal("the game server did not exit")
	}
	g := sdk.GameServer()
	if g.Status.State != agones.StateShutdown || g.ObjectMeta.Annotations[online.EndAnnotation] != online.EndDone {
		t.Errorf("the GameServer at the end: %s, annotations %v", g.Status.State, g.ObjectMeta.Annotations)
	}
	allocs := cluster.Allocations()
	if len(allocs) != 1 {
		t.Fatalf("%d allocations", len(allocs))
	}
	cancel()
	if c := <-done; c != 0 {
		t.Fatalf("lobby exit %d: %s", c, out.String())
	}
	if !strings.Contains(out.String(), "match 0: group 0, 1 people, bots in 1 of the people's seats, game server lagkit-study-7x2kq at 127.0.0.1:"+strconv.Itoa(port)) ||
		!strings.Contains(out.String(), "matches on GameServers of Agones fleet lagkit-study in namespace study (Kubernetes API "+cluster.URL()+")") ||
		!strings.Contains(out.String(), "flow: arrived 1, consented 1, admitted 1, refused 0 (0 timed out at the prescreen), matched 1, requeued 0 after a lost game server, completed 1 (0 with the game server lost), dropped 0") {
		t.Errorf("output:\n%s", out.String())
	}
	sdb, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer sdb.Close()
	rows, err := sdb.Studies(context.Background())
	if err != nil || len(rows) != 1 {
		t.Fatalf("studies %+v, %v", rows, err)
	}
	seats := map[int]record.Participant{}
	if err := store.Each(context.Background(), sdb, rows[0].ID, func(r record.Participant) error { seats[r.Seat] = r; return nil }); err != nil {
		t.Fatal(err)
	}
	if s := seats[0]; s.Bot || s.Code != code[1] {
		t.Errorf("seat 0 recorded %+v, the link's code %s", s, code[1])
	}
	if s := seats[1]; !s.Bot || s.Code != "" {
		t.Errorf("the absent seat recorded %+v", s)
	}
}

// sealedRoundTrip takes participant p to the prescreen's round trip
// under Agones: the lobby names the Ready GameServer's probe (host),
// which measures p and seals the result; the result handed on with a
// figure other than the host's is refused, as is the same result a
// second time, and p's headless page (Participant.Measure) has it
// measured and handed on as the join page does.
func sealedRoundTrip(t *testing.T, ctx context.Context, p *online.Participant, host string) {
	t.Helper()
	if _, err := p.Arrive(ctx); err != nil {
		t.Fatal(err)
	}
	st, err := p.Consent(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Probes []online.ProbeHost `json:"probes"`
	}
	// The lobby lists the Fleet's probes as it starts.
	for len(cfg.Probes) == 0 {
		res, err := http.Get(p.Base + "/lobby/config")
		if err != nil {
			t.Fatal(err)
		}
		err = json.NewDecoder(res.Body).Decode(&cfg)
		res.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if len(cfg.Probes) == 0 {
			select {
			case <-ctx.Done():
				t.Fatal("the lobby named no probe")
			case <-time.After(50 * time.Millisecond):
			}
		}
	}
	if len(cfg.Probes) != 1 || cfg.Probes[0].Host != host {
		t.Fatalf("the lobby's probes %+v, want the GameServer's %s", cfg.Probes, host)
	}
	c, err := transport.Dial(ctx, "wt://"+host, transport.DialOptions{TLS: transport.ClientTLS{CertHash: cfg.Probes[0].CertHash}})
	if err != nil {
		t.Fatal(err)
	}
	rtt, seal, err := probe.MeasureSealed(ctx, c, st.Probe)
	c.Close("measured")
	if err != nil || seal == "" {
		t.Fatalf("the game server's probe: %v, seal %q, %v", rtt, seal, err)
	}
	r := online.SealedProbe{ID: p.ID, Host: host, RTTus: rtt.Microseconds(), Seal: seal}
	shaded := r
	shaded.RTTus = 1
	if err := p.HandOn(ctx, shaded); err == nil || !strings.Contains(err.Error(), "403: online: p-1's round trip to "+host+": probe: the seal does not match") {
		t.Errorf("a shaded round trip: %v", err)
	}
	if err := p.HandOn(ctx, r); err != nil {
		t.Fatal(err)
	}
	if err := p.HandOn(ctx, r); err == nil || !strings.Contains(err.Error(), "409: online: p-1's round trip to "+host+": this result was handed on already") {
		t.Errorf("a replayed result: %v", err)
	}
	best, err := p.Measure(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st, err := p.Status(ctx); err != nil || st.RTTms != float64(min(best, rtt))/float64(time.Millisecond) {
		t.Errorf("the lobby kept %+v, %v; measured %v and %v", st, err, rtt, best)
	}
}

// TestStudyLobbyAgonesNoGameServer: with no Ready GameServer in the
// Fleet the prescreen has no host to measure the round trip to, and
// says so; with one whose probe measures but whose allocations others
// keep taking (Contention), a match's allocation is retried for
// --allocate-wait, then its person is dropped saying there was no game
// server, as a local session that failed to start.
func TestStudyLobbyAgonesNoGameServer(t *testing.T) {
	tmp := t.TempDir()
	sched := filepath.Join(tmp, "lobby.toml")
	if err := os.WriteFile(sched, []byte(lobbySchedule), 0o644); err != nil {
		t.Fatal(err)
	}
	cluster := agonestest.NewCluster("default")
	defer cluster.Close()
	kubeconfig := filepath.Join(tmp, "kubeconfig")
	if err := cluster.WriteKubeconfig(kubeconfig); err != nil {
		t.Fatal(err)
	}
	secret := []byte("0123456789abcdef0123456789abcdef")
	if err := os.WriteFile(filepath.Join(tmp, "secret"), secret, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	base, out, done := startLobby(t, ctx, sched, "--allocator", "agones", "--kubeconfig", kubeconfig, "--namespace", "default",
		"--allocate-wait", "1s", "--listen", "127.0.0.1:0", "--db", filepath.Join(tmp, "study.db"), "--secret-file", filepath.Join(tmp, "secret"),
		"--tick", "50ms", "--log-format", "json")
	wait, stop := context.WithTimeout(ctx, time.Minute)
	defer stop()
	p := &online.Participant{Base: base, ID: "p-1"}
	if _, err := p.Arrive(wait); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Measure(wait); err == nil || !strings.Contains(err.Error(), "lobby: no game server host to measure the round trip to") {
		t.Fatalf("measured with no GameServer: %v", err)
	}
	cluster.Contend(1 << 20)
	sealingGameServer(t, cluster, "lagkit-study", secret)
	for {
		if _, err := p.Measure(wait); err == nil {
			break
		} else if wait.Err() != nil {
			t.Fatal(err)
		}
		time.Sleep(100 * time.Millisecond) // the lobby lists the Fleet's probes every few seconds
	}
	admit(t, wait, p)
	st, err := p.Until(wait, 50*time.Millisecond, func(s online.Status) bool { return s.State == "dropped" || s.Join != "" })
	if err != nil || st.State != "dropped" || !strings.Contains(st.Reason, "no game server: online: match 0: no game server of fleet lagkit-study in namespace default after") {
		t.Fatalf("%+v, %v", st, err)
	}
	if n := len(cluster.Allocations()); n < 2 {
		t.Errorf("%d allocations, want retries", n)
	}
	cancel()
	if c := <-done; c != 0 {
		t.Fatalf("lobby exit %d: %s", c, out.String())
	}
}

// sealingGameServer adds a Ready GameServer of fleet to cluster whose
// probe, served here, seals with secret's key, as lagkit study run
// --agones --agones-probe serves it.
func sealingGameServer(t *testing.T, cluster *agonestest.Cluster, fleet string, secret []byte) {
	t.Helper()
	w, err := transport.NewWeb(transport.WebOptions{OriginPatterns: []string{"*"}})
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(w.Addr())
	pn, _ := strconv.Atoi(port)
	sdk := agonestest.NewServer(fleet + "-sealing")
	t.Cleanup(sdk.Close)
	cluster.Add(fleet, sdk, agones.Port{Name: "web", Port: 1}, agones.Port{Name: online.ProbePort, Port: int32(pn)})
	key := probe.SealKey(secret)
	ps := &probe.Server{Ticket: func(tk string) (string, bool) { return tk, true }, Measured: func(string, time.Duration) {},
		Seal: func(tk string, rtt time.Duration) string {
			return probe.Seal(key, probe.Result{Ticket: tk, Host: w.Addr(), RTT: rtt, At: time.Now()})
		}}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan struct{})
	go func() { _ = ps.Serve(ctx, w); close(served) }()
	t.Cleanup(func() { cancel(); w.Close(); <-served })
	cl := agones.New(sdk.URL(), agones.Options{Wait: time.Second})
	if err := cl.SetAnnotation(ctx, online.ProbeCertKey, w.CertHash()); err != nil {
		t.Fatal(err)
	}
	if err := cl.Ready(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestStudyAgonesFlags: each allocator refuses the other's flags, and
// study run --agones the flags its allocation sets.
func TestStudyAgonesFlags(t *testing.T) {
	tmp := t.TempDir()
	sched := filepath.Join(tmp, "lobby.toml")
	if err := os.WriteFile(sched, []byte(lobbySchedule), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"study", "lobby", sched, "--allocator", "kube"}, `--allocator "kube": want local or agones`},
		{[]string{"study", "lobby", sched, "--fleet", "x"}, "--fleet is not for --allocator local"},
		{[]string{"study", "lobby", sched, "--allocator", "agones", "--servers", "2"}, "--servers is not for --allocator agones"},
		{[]string{"study", "lobby", sched, "--allocator", "agones", "--allocate-wait", "0s"}, "--allocate-wait 0s: want 1s to 30m"},
		{[]string{"study", "lobby", sched, "--allocator", "agones", "--kubeconfig", filepath.Join(tmp, "none"), "--db", filepath.Join(tmp, "s.db"),
			"--secret-file", filepath.Join(tmp, "secret")}, "--allocator agones: stat " + filepath.Join(tmp, "none")},
		{[]string{"study", "run", sched, "--agones", "--group", "0"}, "--group: under --agones the lobby's allocation says what the session plays"},
		{[]string{"study", "run", sched, "--agones-wait", "1s"}, "--agones-wait needs --agones"},
		{[]string{"study", "lobby", sched, "--allocator", "agones", "--probe-port", "9000"}, "--probe-port is not for --allocator agones"},
		{[]string{"study", "run", sched, "--agones-probe", "127.0.0.1:0"}, "--agones-probe needs --agones"},
		{[]string{"study", "run", sched, "--agones", "--agones-probe", "127.0.0.1:0"}, "--agones-probe and --agones-secret-file go together"},
		{[]string{"study", "run", sched, "--agones", "--agones-probe", "nowhere", "--agones-secret-file", "s"}, `--agones-probe "nowhere": want HOST:PORT`},
	} {
		var out, errOut lockedWriter
		code := execute(context.Background(), tc.args, &out, &errOut)
		if code == 0 || !strings.Contains(errOut.String(), tc.want) {
			t.Errorf("%v: exit %d, %s, want %q", tc.args[3:], code, errOut.String(), tc.want)
		}
	}
}

// TestStudyRunAgonesBadAssignment: a game server allocated with
// annotations that are not a lobby's assignment says so on its
// GameServer (the end annotation), asks for Shutdown and exits 1; one
// stopped before any allocation exits as a stopped study does.
func TestStudyRunAgonesBadAssignment(t *testing.T) {
	tmp := t.TempDir()
	sched := filepath.Join(tmp, "lobby.toml")
	if err := os.WriteFile(sched, []byte(lobbySchedule), 0o644); err != nil {
		t.Fatal(err)
	}
	start := func(sdk *agonestest.Server) (*exec.Cmd, *bytes.Buffer, <-chan error) {
		var errOut bytes.Buffer
		gs := exec.Command(os.Args[0], "study", "run", sched, "--agones", "--agones-health", "100ms", "--db", filepath.Join(tmp, "study.db"),
			"--listen", "127.0.0.1:0", "--udp", "", "--log-format", "json")
		gs.Env = append(os.Environ(), "LAGKIT_AS_COMMAND=1", agones.PortEnv+"="+sdk.Port())
		gs.Stderr = &errOut
		if err := gs.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan error, 1)
		go func() { exited <- gs.Wait() }()
		t.Cleanup(func() { _ = gs.Process.Kill() })
		for sdk.GameServer().Status.State != agones.StateReady {
			select {
			case err := <-exited:
				t.Fatalf("exited before Ready: %v\n%s", err, errOut.String())
			case <-time.After(20 * time.Millisecond):
			}
		}
		return gs, &errOut, exited
	}
	exitCode := func(err error) int {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		return 0
	}

	sdk := agonestest.NewServer("gs-bad")
	defer sdk.Close()
	_, errOut, exited := start(sdk)
	sdk.AllocateWith(nil, map[string]string{"lagkit.dev/match": "1"})
	select {
	case err := <-exited:
		if exitCode(err) != 1 {
			t.Errorf("exit %v\n%s", err, errOut.String())
		}
	case <-time.After(time.Minute):
		t.Fatal("no exit")
	}
	g := sdk.GameServer()
	if end := g.ObjectMeta.Annotations[online.EndAnnotation]; g.Status.State != agones.StateShutdown || !strings.Contains(end, "annotation lagkit.dev/study missing") {
		t.Errorf("the GameServer: %s, end %q", g.Status.State, end)
	}

	idle := agonestest.NewServer("gs-idle")
	defer idle.Close()
	gs, errOut, exited := start(idle)
	if err := gs.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		if exitCode(err) != exitStopped {
			t.Errorf("exit %v, want %d\n%s", err, exitStopped, errOut.String())
		}
	case <-time.After(time.Minute):
		t.Fatal("no exit")
	}
}

// TestStudyLobbyAgonesNoCluster: outside a pod and without a kubeconfig
// the agones allocator says where it looked.
func TestStudyLobbyAgonesNoCluster(t *testing.T) {
	tmp := t.TempDir()
	sched := filepath.Join(tmp, "lobby.toml")
	if err := os.WriteFile(sched, []byte(lobbySchedule), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", tmp)
	t.Setenv("KUBECONFIG", "")
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	var out, errOut lockedWriter
	code := execute(context.Background(), []string{"study", "lobby", sched, "--allocator", "agones", "--db", filepath.Join(tmp, "s.db"),
		"--secret-file", filepath.Join(tmp, "secret")}, &out, &errOut)
	if code == 0 || !strings.Contains(errOut.String(), "--allocator agones: not in a pod, and no kubeconfig ($KUBECONFIG, ~/.kube/config)") {
		t.Errorf("exit %d: %s", code, errOut.String())
	}
	// It started no study.
	if _, err := os.Stat(filepath.Join(tmp, "s.db")); err == nil {
		sdb, err := store.Open(context.Background(), filepath.Join(tmp, "s.db"))
		if err != nil {
			t.Fatal(err)
		}
		defer sdb.Close()
		if sets, err := sdb.StudySets(context.Background()); err != nil || len(sets) != 0 {
			t.Errorf("studies: %d, %v", len(sets), err)
		}
	}
}
