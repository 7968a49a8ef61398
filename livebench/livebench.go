// Package livebench measures what a live lagkit server costs beside its
// core: it serves matches over real sockets on loopback (UDP,
// WebTransport or WebSocket) to bots played by a child process, and
// reports the server process's CPU time per tick, its tick-start
// lateness and overruns and the bytes it sent each client, beside the
// same match's tick in the simulation driver measured in the same run.
// The bots run in another process so that the server's CPU time is its
// own: sockets, readers, sends, metrics and the core's ticks, and
// nothing of the clients.
package livebench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/match"
	"github.com/lagkit/lagkit/realtime"
	"github.com/lagkit/lagkit/shooter/mode"
	"github.com/lagkit/lagkit/transport"
)

// Transports are the transports Run serves, by the scheme bots connect
// with.
var Transports = []string{"udp", "wt", "wss"}

// Bots describes the bots a run asks its child process to play: Count
// bots, each a real client over its own connection to Connect (a URL
// as lagkit bots' --connect takes), the server's certificate pinned by
// CertHash (hex SHA-256; wt and wss only), playing for Duration.
type Bots struct {
	Connect  string
	CertHash string
	Count    int
	Duration time.Duration
}

// Args are the bots' arguments as lagkit bots takes them.
func (b Bots) Args() []string {
	args := []string{"--connect", b.Connect, "--count", fmt.Sprint(b.Count), "--duration", b.Duration.String()}
	if b.CertHash != "" {
		args = append(args, "--cert-hash", b.CertHash)
	}
	return args
}

// Config describes a run. The zero value but for Child measures 64 bots
// in one match at 64 Hz over UDP.
type Config struct {
	// Transport is udp, wt (WebTransport) or wss (WebSocket over TLS);
	// default udp.
	Transport string
	// Matches is how many matches the server runs (default 1), and
	// Players each one's seats, all taken by bots (default 64).
	Matches, Players int
	// TickRate is every match's rate in Hz (default 64).
	TickRate int
	// Duration is how long the server is measured once every bot is
	// seated and Warmup has passed (defaults 20 s and 2 s).
	Duration, Warmup time.Duration
	// CoreDuration is the simulated time of the core's run (default
	// 10 s); a negative value skips it.
	CoreDuration time.Duration
	// Child returns the command that plays bots, a separate process
	// (lagkit bots with b.Args()). Run starts it, interrupts it when
	// done and waits for it.
	Child func(ctx context.Context, b Bots) *exec.Cmd
	// Log, if set, gets the server's log (default: none).
	Log *slog.Logger
}

func (c Config) withDefaults() (Config, error) {
	if c.Transport == "" {
		c.Transport = "udp"
	}
	if c.Matches == 0 {
		c.Matches = 1
	}
	if c.Players == 0 {
		c.Players = 64
	}
	if c.TickRate == 0 {
		c.TickRate = 64
	}
	if c.Duration == 0 {
		c.Duration = 20 * time.Second
	}
	if c.Warmup == 0 {
		c.Warmup = 2 * time.Second
	}
	if c.CoreDuration == 0 {
		c.CoreDuration = 10 * time.Second
	}
	switch {
	case c.Transport != "udp" && c.Transport != "wt" && c.Transport != "wss":
		return c, fmt.Errorf("livebench: transport %q: want %s", c.Transport, strings.Join(Transports, ", "))
	case c.Matches < 1 || c.Matches > 128:
		return c, fmt.Errorf("livebench: %d matches: want 1 to 128", c.Matches)
	case c.Players < 1 || c.Players > 128:
		return c, fmt.Errorf("livebench: %d players: want 1 to 128", c.Players)
	case c.Matches*c.Players > 1024:
		return c, fmt.Errorf("livebench: %d matches of %d players: at most 1024 bots", c.Matches, c.Players)
	case c.TickRate < 20 || c.TickRate > 128:
		return c, fmt.Errorf("livebench: tick rate %d: want 20 to 128", c.TickRate)
	case c.Duration < 0 || c.Warmup < 0:
		return c, errors.New("livebench: negative duration")
	case c.Child == nil:
		return c, errors.New("livebench: no command for the bots' process")
	}
	return c, nil
}

// Result is what a run measured.
type Result struct {
	Transport string `json:"transport"`
	Matches   int    `json:"matches"`
	Players   int    `json:"players"`
	TickRate  int    `json:"tick_rate"`
	// Ticks is the ticks the matches ran during the measurement, all
	// matches together, over Seconds of wall time.
	Ticks   int     `json:"ticks"`
	Seconds float64 `json:"seconds"`
	// CPUPerTickUS is the server process's CPU time per match tick
	// (every goroutine: readers, sends, metrics, the ticks).
	CPUPerTickUS float64 `json:"cpu_per_tick_us"`
	// MatchCPUPerTickUS is the time the match goroutines were awake per
	// tick (the core's tick, draining, sending, accounting, spinning
	// before a tick): CPUPerTickUS less the readers' and the runtime's.
	MatchCPUPerTickUS float64 `json:"match_cpu_per_tick_us"`
	// CoreTickUS is the same match's tick in the simulation driver (the
	// server core alone, no sockets: package match's bots, on the same
	// map, mode and tick rate), in CPU time, measured in the same run;
	// Ratio is CPUPerTickUS over it. Both 0 when the core's run was
	// skipped or the system has no thread CPU clock.
	CoreTickUS float64 `json:"core_tick_us"`
	Ratio      float64 `json:"ratio"`
	// TickMeanUS and TickP99US are the live ticks' wall time.
	TickMeanUS float64 `json:"tick_mean_us"`
	TickP99US  float64 `json:"tick_p99_us"`
	// LatenessP99US is the worst match's tick-start lateness p99;
	// Overruns, ticks longer than the interval, all matches.
	LatenessP99US float64 `json:"lateness_p99_us"`
	Overruns      int     `json:"overruns"`
	// BytesPerSPerClient is what the server sent each bot per second.
	BytesPerSPerClient float64 `json:"bytes_per_s_per_client"`
	// Cores is the server's CPU seconds per wall second, and
	// MatchesPerCore the matches over it: what an operator plans with.
	Cores          float64 `json:"cores"`
	MatchesPerCore float64 `json:"matches_per_core"`
	// AllocsPerTick is the server process's heap allocations per match
	// tick (every goroutine's), and DatagramsPerTick the datagrams the
	// matches received and sent per tick: allocations per datagram in
	// steady state are the one over the other.
	AllocsPerTick    float64 `json:"allocs_per_tick"`
	DatagramsPerTick float64 `json:"datagrams_per_tick"`
	// BotsNice is the niceness the bots' process ran at: they yield the
	// CPU to the server, as clients on other machines would (0 where
	// the system has no such control).
	BotsNice int `json:"bots_nice"`
	// Dropped counts the datagrams the matches dropped during the
	// measurement, by reason.
	Dropped map[string]float64 `json:"dropped,omitempty"`
}

// Run serves cfg's matches to bots in a child process and measures the
// server, then the core in the simulation driver.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	res := &Result{Transport: cfg.Transport, Matches: cfg.Matches, Players: cfg.Players, TickRate: cfg.TickRate}
	if err := runLive(ctx, cfg, res); err != nil {
		return nil, err
	}
	if cfg.CoreDuration > 0 {
		// The same match in the simulation driver: the same bots on the
		// same map and mode, on loopback's round trip. CPU time against
		// CPU time: the core's wall time on a busy machine would count
		// other processes' turns.
		mr, err := match.Run(match.Config{Map: "metro", Mode: mode.TDM, Bots: cfg.Players, Duration: cfg.CoreDuration,
			Seed: 1, TickRate: cfg.TickRate, BaseRTTms: 1, TickCPU: true}, nil)
		if err != nil {
			return nil, err
		}
		res.CoreTickUS = mr.TickCPUUS
		if res.CoreTickUS > 0 {
			res.Ratio = res.CPUPerTickUS / res.CoreTickUS
		}
	}
	return res, nil
}

// server is a host serving one transport on loopback.
type server struct {
	host     *realtime.Host
	reg      *prometheus.Registry
	listener transport.Listener
	connect  string
	certHash string
	matches  []*realtime.Match
	cancel   context.CancelFunc
	served   chan error
}

func startServer(cfg Config) (*server, error) {
	log := cfg.Log
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	s := &server{reg: prometheus.NewRegistry(), served: make(chan error, 1)}
	s.host = realtime.NewHost(log, realtime.NewMetrics(s.reg))
	switch cfg.Transport {
	case "udp":
		l, err := transport.ListenUDP("127.0.0.1:0", transport.UDPOptions{Unrouted: s.host.UDPUnrouted, MaxPeers: 2 * cfg.Matches * cfg.Players})
		if err != nil {
			return nil, err
		}
		s.listener, s.connect = l, "udp://"+l.Addr()
	default:
		w, err := transport.NewWeb(transport.WebOptions{Addr: "127.0.0.1:0", MaxSessions: 2 * cfg.Matches * cfg.Players})
		if err != nil {
			return nil, err
		}
		s.listener, s.connect, s.certHash = w, cfg.Transport+"://"+w.Addr(), w.CertHash()
	}
	for range cfg.Matches {
		m, err := s.host.Start(realtime.MatchConfig{Seats: cfg.Players, TickRate: cfg.TickRate, Seed: 1})
		if err != nil {
			s.stop()
			return nil, err
		}
		s.matches = append(s.matches, m)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	go func() { s.served <- s.host.Serve(ctx, s.listener) }()
	return s, nil
}

func (s *server) stop() {
	if s.cancel != nil {
		s.cancel()
		<-s.served
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = s.host.Shutdown(ctx, "benchmark over")
	_ = s.listener.Close()
}

// sample is one reading of the server.
type sample struct {
	at       time.Time
	cpu      time.Duration
	ticks    []int
	seated   int
	bytesOut float64
	matchCPU float64
	mallocs  uint64
	dgs      float64 // datagrams in and out
	dropped  map[string]float64
}

func (s *server) sample() (*sample, error) {
	cpu, err := processCPU()
	if err != nil {
		return nil, err
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	out := &sample{at: time.Now(), cpu: cpu, mallocs: ms.Mallocs, dropped: map[string]float64{}}
	for _, m := range s.matches {
		info, err := m.Info()
		if err != nil {
			return nil, fmt.Errorf("livebench: match %s: %w (%s)", m.ID(), err, m.Reason())
		}
		out.ticks = append(out.ticks, int(info.Tick))
		out.seated += len(info.Players)
		for _, p := range info.Players {
			out.bytesOut += float64(p.BytesOut)
		}
	}
	fams, err := s.reg.Gather()
	if err != nil {
		return nil, err
	}
	for _, f := range fams {
		switch f.GetName() {
		case "lagkit_datagrams_in_total", "lagkit_datagrams_out_total":
			for _, m := range f.GetMetric() {
				out.dgs += m.GetCounter().GetValue()
			}
		case "lagkit_match_cpu_seconds_total":
			for _, m := range f.GetMetric() {
				out.matchCPU += m.GetCounter().GetValue()
			}
		case "lagkit_datagrams_dropped_total":
			for _, m := range f.GetMetric() {
				for _, l := range m.GetLabel() {
					if l.GetName() == "reason" {
						out.dropped[l.GetValue()] += m.GetCounter().GetValue()
					}
				}
			}
		}
	}
	return out, nil
}

// joinTimeout bounds how long the bots have to take their seats, beyond
// the 10 ms apart lagkit bots starts them.
const joinTimeout = 30 * time.Second

func runLive(ctx context.Context, cfg Config, res *Result) error {
	s, err := startServer(cfg)
	if err != nil {
		return err
	}
	defer s.stop()
	n := cfg.Matches * cfg.Players
	join := joinTimeout + time.Duration(n)*10*time.Millisecond
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// One process plays at most botsPerProcess bots: more take several.
	exited := make(chan error, (n+botsPerProcess-1)/botsPerProcess)
	var running int
	defer func() {
		cancel()
		for range running {
			<-exited
		}
	}()
	for left := n; left > 0; left -= botsPerProcess {
		b := Bots{Connect: s.connect, CertHash: s.certHash, Count: min(left, botsPerProcess), Duration: join + cfg.Warmup + cfg.Duration + 10*time.Second}
		if err := startBots(cctx, cfg, b, exited); err != nil {
			return err
		}
		running++
	}
	res.BotsNice = botsNice
	wait := func(d time.Duration) error {
		select {
		case <-time.After(d):
			return nil
		case <-ctx.Done():
			return ctx.Err()
		case err := <-exited:
			running--
			return err
		}
	}
	deadline := time.Now().Add(join)
	for {
		smp, err := s.sample()
		if err != nil {
			return err
		}
		if smp.seated == n {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("livebench: %d of %d bots seated after %v", smp.seated, n, join)
		}
		if err := wait(100 * time.Millisecond); err != nil {
			return err
		}
	}
	if err := wait(cfg.Warmup); err != nil {
		return err
	}
	before, err := s.sample()
	if err != nil {
		return err
	}
	if err := wait(cfg.Duration); err != nil {
		return err
	}
	after, err := s.sample()
	if err != nil {
		return err
	}
	if after.seated != n {
		return fmt.Errorf("livebench: %d of %d bots still seated at the end", after.seated, n)
	}
	return s.measure(before, after, n, res)
}

// botsPerProcess is the most bots one process plays: lagkit bots'
// bound, game.MaxPlayers. (A variable for tests.)
var botsPerProcess = game.MaxPlayers

// startBots starts one process of cfg's bots, b, at a priority below
// the server's (yieldCPU); exited receives why it ended, as an error.
func startBots(ctx context.Context, cfg Config, b Bots, exited chan<- error) error {
	child := cfg.Child(ctx, b)
	stderr := new(strings.Builder)
	if child.Stderr == nil {
		child.Stderr = stderr
	}
	child.Cancel = func() error { return child.Process.Signal(os.Interrupt) }
	child.WaitDelay = 10 * time.Second
	ownGroup(child)
	if err := child.Start(); err != nil {
		return fmt.Errorf("livebench: bots: %w", err)
	}
	if err := yieldCPU(child.Process.Pid); err != nil {
		_ = child.Process.Kill()
		_ = child.Wait()
		return fmt.Errorf("livebench: the bots' priority: %w", err)
	}
	go func() {
		err := child.Wait()
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			err = fmt.Errorf("%v: %s", err, msg)
		}
		exited <- fmt.Errorf("livebench: the bots' process ended: %v", err)
	}()
	return nil
}

// measure fills res from two samples and the matches' tick statistics
// between them.
func (s *server) measure(before, after *sample, bots int, res *Result) error {
	res.Seconds = after.at.Sub(before.at).Seconds()
	var sumMean float64
	for i, m := range s.matches {
		ts, err := m.TickStats(before.ticks[i])
		if err != nil {
			return err
		}
		res.Ticks += after.ticks[i] - before.ticks[i]
		res.Overruns += ts.Overruns
		res.LatenessP99US = max(res.LatenessP99US, ts.LateP99US)
		res.TickP99US = max(res.TickP99US, ts.P99US)
		sumMean += ts.MeanUS
	}
	if res.Ticks == 0 || res.Seconds <= 0 {
		return errors.New("livebench: no tick ran during the measurement")
	}
	res.TickMeanUS = sumMean / float64(len(s.matches))
	cpu := (after.cpu - before.cpu).Seconds()
	res.CPUPerTickUS = cpu * 1e6 / float64(res.Ticks)
	res.MatchCPUPerTickUS = (after.matchCPU - before.matchCPU) * 1e6 / float64(res.Ticks)
	res.AllocsPerTick = float64(after.mallocs-before.mallocs) / float64(res.Ticks)
	res.DatagramsPerTick = (after.dgs - before.dgs) / float64(res.Ticks)
	res.BytesPerSPerClient = (after.bytesOut - before.bytesOut) / res.Seconds / float64(bots)
	res.Cores = cpu / res.Seconds
	if res.Cores > 0 {
		res.MatchesPerCore = float64(res.Matches) / res.Cores
	}
	for k, v := range after.dropped {
		if d := v - before.dropped[k]; d > 0 {
			if res.Dropped == nil {
				res.Dropped = map[string]float64{}
			}
			res.Dropped[k] = d
		}
	}
	return nil
}
