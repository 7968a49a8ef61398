package livebench

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lagkit/lagkit/client"
	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/nav"
	"github.com/lagkit/lagkit/realtime"
	"github.com/lagkit/lagkit/shooter"
	"github.com/lagkit/lagkit/shooter/bots"
	"github.com/lagkit/lagkit/shooter/weapon"
	"github.com/lagkit/lagkit/transport"
	"github.com/lagkit/lagkit/world"
)

// botsEnv makes the test binary, started again by a run, the bots'
// process: it plays the bots its arguments describe, as lagkit bots
// does.
const botsEnv = "LAGKIT_LIVEBENCH_BOTS"

func TestMain(m *testing.M) {
	if os.Getenv(botsEnv) != "" {
		if err := playBots(os.Args[1:]); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// child starts this test binary as the bots' process.
func child(ctx context.Context, b Bots) *exec.Cmd {
	cmd := exec.CommandContext(ctx, os.Args[0], b.Args()...)
	cmd.Env = append(os.Environ(), botsEnv+"=1")
	return cmd
}

func playBots(args []string) error {
	fs := flag.NewFlagSet("bots", flag.ContinueOnError)
	connect := fs.String("connect", "", "")
	certHash := fs.String("cert-hash", "", "")
	count := fs.Int("count", 1, "")
	duration := fs.Duration("duration", time.Second, "")
	if err := fs.Parse(args); err != nil {
		return err
	}
	m, err := world.Load("metro")
	if err != nil {
		return err
	}
	params := game.DefaultParams()
	grid, err := nav.Build(m, &params)
	if err != nil {
		return err
	}
	weapon := weapon.Rifle()
	ctx, cancel := context.WithTimeout(context.Background(), *duration)
	defer cancel()
	go func() { // the run interrupts the process when done
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, os.Interrupt)
		<-sig
		cancel()
	}()
	var wg sync.WaitGroup
	errs := make([]error, *count)
	for i := range *count {
		b, err := bots.New(bots.Config{Skill: 0.5, Attacker: true}, m, grid, &params, &weapon, uint64(i+1))
		if err != nil {
			return err
		}
		wg.Go(func() {
			conn, err := transport.Dial(ctx, *connect, transport.DialOptions{TLS: transport.ClientTLS{CertHash: *certHash}})
			if err != nil {
				errs[i] = err
				return
			}
			cc := shooter.Client(client.Config{Map: m, Movement: &params, Name: fmt.Sprintf("bot%d", i)})
			if _, err := realtime.RunClient(ctx, conn, realtime.ClientConfig{Client: cc, Brain: b}); err != nil && ctx.Err() == nil {
				errs[i] = err
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// TestRunMeasuresTheServer serves a few bots in a child process over
// each transport and checks that what the run reports is what happened:
// every bot seated throughout, ticks at the rate, CPU time and bytes
// measured, the ratio to the core's tick.
func TestRunMeasuresTheServer(t *testing.T) {
	for _, tr := range Transports {
		t.Run(tr, func(t *testing.T) {
			cfg := Config{Transport: tr, Players: 4, TickRate: 32, Duration: time.Second, Warmup: 200 * time.Millisecond,
				CoreDuration: time.Second, Child: child}
			r, err := Run(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if r.Transport != tr || r.Matches != 1 || r.Players != 4 || r.TickRate != 32 {
				t.Errorf("run of %+v reported as %+v", cfg, r)
			}
			// One second at 32 Hz: 32 ticks, give or take the samples'
			// timing on a busy machine.
			if want := r.Seconds * 32; float64(r.Ticks) < want/2 || float64(r.Ticks) > 1.5*want+3 {
				t.Errorf("%d ticks in %.2f s at 32 Hz", r.Ticks, r.Seconds)
			}
			// Four bots: a command from each and a snapshot to each a tick.
			if r.DatagramsPerTick < 4 || r.DatagramsPerTick > 16 {
				t.Errorf("%.1f datagrams a tick with 4 bots", r.DatagramsPerTick)
			}
			if r.CPUPerTickUS <= 0 || r.CoreTickUS <= 0 || r.BytesPerSPerClient <= 0 || r.Cores <= 0 {
				t.Errorf("nothing measured: %+v", r)
			}
			if got := r.CPUPerTickUS / r.CoreTickUS; got != r.Ratio {
				t.Errorf("ratio %v, want %v", r.Ratio, got)
			}
			if r.MatchesPerCore != 1/r.Cores {
				t.Errorf("matches per core %v on %v cores", r.MatchesPerCore, r.Cores)
			}
		})
	}
}

// TestRunSeatsEveryMatch runs two matches: the host fills them in turn.
func TestRunSeatsEveryMatch(t *testing.T) {
	r, err := Run(context.Background(), Config{Matches: 2, Players: 3, TickRate: 32, Duration: 500 * time.Millisecond,
		Warmup: 100 * time.Millisecond, CoreDuration: -1, Child: child})
	if err != nil {
		t.Fatal(err)
	}
	if r.Matches != 2 || r.CoreTickUS != 0 || r.Ratio != 0 {
		t.Errorf("%+v", r)
	}
	if want := r.Seconds * 64; float64(r.Ticks) < want/2 || float64(r.Ticks) > 1.5*want+6 {
		t.Errorf("%d ticks in %.2f s of two 32 Hz matches", r.Ticks, r.Seconds)
	}
}

// TestRunReportsAFailedChild checks that bots that never come say so,
// rather than the run waiting for seats forever.
func TestRunReportsAFailedChild(t *testing.T) {
	_, err := Run(context.Background(), Config{Players: 2, CoreDuration: -1, Child: func(ctx context.Context, b Bots) *exec.Cmd {
		return exec.CommandContext(ctx, os.Args[0], "--count", "x")
	}})
	if err == nil || !strings.Contains(err.Error(), "bots' process ended") {
		t.Fatalf("got %v, want the bots' process's end", err)
	}
}

func TestConfigRefused(t *testing.T) {
	for _, c := range []Config{
		{Transport: "tcp", Child: child},
		{Players: 200, Child: child},
		{Matches: 129, Child: child},
		{TickRate: 500, Child: child},
		{},
	} {
		if _, err := Run(context.Background(), c); err == nil {
			t.Errorf("%+v: no error", c)
		}
	}
}

// TestSearch checks the capacity search against known thresholds: it
// finds the largest size that holds, trying each size at most once.
func TestSearch(t *testing.T) {
	for _, tc := range []struct{ start, limit, threshold, want int }{
		{1, 64, 20, 20}, {1, 64, 1, 1}, {1, 64, 0, 0}, {1, 64, 64, 64}, {1, 64, 100, 64},
		{4, 64, 3, 3}, {4, 64, 33, 33}, {1, 10, 9, 9}, {1, 1, 5, 1},
	} {
		tried := map[int]bool{}
		best := 0
		err := search(tc.start, tc.limit, func(k int) (bool, error) {
			if tried[k] {
				t.Errorf("%+v: size %d tried twice", tc, k)
			}
			tried[k] = true
			if k <= tc.threshold {
				best = max(best, k)
				return true, nil
			}
			return false, nil
		})
		if err != nil || best != tc.want {
			t.Errorf("%+v: found %d (%v), want %d", tc, best, err, tc.want)
		}
	}
	boom := errors.New("boom")
	if err := search(1, 8, func(int) (bool, error) { return false, boom }); !errors.Is(err, boom) {
		t.Errorf("got %v, want the run's error", err)
	}
}

// TestMeasureCapacityRuns checks a small capacity search end to end:
// with a lateness bound every run meets, it doubles up to the limit
// while runs hold (a busy machine may still overrun a tick), each run
// serves the matches it says, and the largest that held is reported.
func TestMeasureCapacityRuns(t *testing.T) {
	cfg := Config{Players: 2, TickRate: 32, Duration: 300 * time.Millisecond, Warmup: 100 * time.Millisecond, Child: child}
	c, err := MeasureCapacity(context.Background(), cfg, time.Hour, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Tried) == 0 || c.Tried[0].Matches != 1 {
		t.Fatalf("tried %d runs", len(c.Tried))
	}
	held := 0
	for i, r := range c.Tried {
		if r.CoreTickUS != 0 || r.Ticks == 0 || r.Players != 2 {
			t.Errorf("run %d: %+v", i, r)
		}
		if r.Overruns == 0 {
			held = max(held, r.Matches)
		}
	}
	if c.Held != held || held > 0 && c.Best.Matches != held {
		t.Errorf("held %d, want %d", c.Held, held)
	}
	if c.Tried[0].Overruns == 0 && (len(c.Tried) != 2 || c.Tried[1].Matches != 2) {
		t.Errorf("one match held and the search stopped after %d runs", len(c.Tried))
	}
	if _, err := MeasureCapacity(context.Background(), cfg, time.Hour, 0); err == nil {
		t.Error("a limit of 0 taken")
	}
}

// TestRunSplitsTheBots runs more bots than one process plays: they
// come from several processes, each below the server's priority where
// the system allows it, and every one is seated.
func TestRunSplitsTheBots(t *testing.T) {
	old := botsPerProcess
	botsPerProcess = 2
	defer func() { botsPerProcess = old }()
	var started []int
	var mu sync.Mutex
	count := func(ctx context.Context, b Bots) *exec.Cmd {
		mu.Lock()
		started = append(started, b.Count)
		mu.Unlock()
		return child(ctx, b)
	}
	r, err := Run(context.Background(), Config{Players: 5, TickRate: 32, Duration: 300 * time.Millisecond,
		Warmup: 100 * time.Millisecond, CoreDuration: -1, Child: count})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(started) != "[2 2 1]" {
		t.Errorf("processes of %v bots, want [2 2 1]", started)
	}
	if r.BotsNice != botsNice {
		t.Errorf("bots ran at niceness %d, want %d", r.BotsNice, botsNice)
	}
}
