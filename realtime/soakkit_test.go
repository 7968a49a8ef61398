package realtime

import (
	"context"
	"net"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/lagkit/lagkit/client"
	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/nav"
	"github.com/lagkit/lagkit/shooter"
	"github.com/lagkit/lagkit/shooter/bots"
	"github.com/lagkit/lagkit/shooter/weapon"
	"github.com/lagkit/lagkit/transport"
	"github.com/lagkit/lagkit/world"
)

// served is a host with one UDP listener whose sessions all go to one
// match, with its metrics on a registry of its own.
type served struct {
	h    *Host
	m    *Match
	l    *transport.UDPListener
	reg  *prometheus.Registry
	addr string
}

// serveMatch starts a host and a match for cfg behind a UDP listener on
// loopback; the test's cleanup shuts it down.
func serveMatch(t *testing.T, cfg MatchConfig) *served {
	t.Helper()
	reg := prometheus.NewRegistry()
	h := NewHost(quiet, NewMetrics(reg))
	l, err := transport.ListenUDP("127.0.0.1:0", transport.UDPOptions{Unrouted: h.UDPUnrouted})
	if err != nil {
		t.Fatal(err)
	}
	m, err := h.Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = h.Serve(ctx, l)
	}()
	t.Cleanup(func() {
		cancel()
		_ = l.Close()
		<-done
		_ = h.Shutdown(context.Background(), "test over")
	})
	return &served{h: h, m: m, l: l, reg: reg, addr: l.Addr()}
}

// counter sums the series of the counter name whose labels include want.
func counter(t *testing.T, reg *prometheus.Registry, name string, want map[string]string) float64 {
	t.Helper()
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var sum float64
	for _, f := range fams {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			n := 0
			for _, l := range m.GetLabel() {
				if v, ok := want[l.GetName()]; ok && v == l.GetValue() {
					n++
				}
			}
			if n == len(want) {
				sum += m.GetCounter().GetValue()
			}
		}
	}
	return sum
}

// botKit is what test bots need of a map, and how they play.
type botKit struct {
	m      *world.Map
	grid   *nav.Grid
	params game.Params
	weapon weapon.Weapon
	// account, when set, keeps the events each bot's client delivers;
	// reports makes the bots report hits as shot behind cover.
	account *Account
	reports bool
}

// reporter is a Brain that also reports each new hit on its player as
// shot behind cover, as a player pressing the report key after every hit
// would, at most one report every half second (within the server's
// Limits.Reports, beyond its report bucket).
type reporter struct {
	Brain
	next time.Duration
}

func (r *reporter) Input(now time.Duration, c *client.Client) game.UserCmd {
	if now >= r.next && c.Phase() == client.Connected && c.ReportSBC() == nil {
		r.next = now + 500*time.Millisecond
	}
	return r.Brain.Input(now, c)
}

func newBotKit(t *testing.T, mapName string) *botKit {
	t.Helper()
	m, err := world.Load(mapName)
	if err != nil {
		t.Fatal(err)
	}
	k := &botKit{m: m, params: game.DefaultParams(), weapon: weapon.Rifle()}
	if k.grid, err = nav.Build(m, &k.params); err != nil {
		t.Fatal(err)
	}
	return k
}

// play runs one bot session named name over UDP to addr until ctx ends
// or the server ends it.
func (k *botKit) play(ctx context.Context, addr, name string, seed uint64, tok []byte, live *LiveStats) (ClientStats, error) {
	return k.playFrom(ctx, "", addr, name, seed, tok, live)
}

// playFrom is play from the local address local ("": any port).
func (k *botKit) playFrom(ctx context.Context, local, addr, name string, seed uint64, tok []byte, live *LiveStats) (ClientStats, error) {
	b, err := bots.New(bots.Config{Skill: 0.9, Attacker: seed%4 != 3}, k.m, k.grid, &k.params, &k.weapon, seed)
	if err != nil {
		return ClientStats{}, err
	}
	conn, err := transport.DialUDP(ctx, addr, transport.UDPOptions{LocalAddr: local})
	if err != nil {
		return ClientStats{}, err
	}
	cc := shooter.Client(client.Config{Map: k.m, Movement: &k.params, Name: name, Token: tok})
	var brain Brain = b
	if k.reports {
		brain = &reporter{Brain: b}
	}
	return RunClient(ctx, conn, ClientConfig{Client: cc, Brain: brain, Stats: live, Account: k.account})
}

// runEach runs f for 0 to n-1, each on its own goroutine with live
// statistics of its own, and returns those and a wait for them all.
// freePort returns a loopback address whose UDP port was free a moment
// ago, for a bot that keeps its port across restarts.
func freePort(t *testing.T) string {
	t.Helper()
	c, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	return c.LocalAddr().String()
}

func runEach(n int, f func(i int, live *LiveStats)) ([]LiveStats, func()) {
	lives := make([]LiveStats, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(i, &lives[i])
		}()
	}
	return lives, wg.Wait
}

// heapAfterGC returns the live heap after a collection.
func heapAfterGC() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// peakRSS returns the process's peak resident set in bytes (Linux; 0
// elsewhere).
func peakRSS() uint64 { return procStatus("VmHWM:") }

// rss returns the process's resident set in bytes (Linux; 0 elsewhere).
func rss() uint64 { return procStatus("VmRSS:") }

// procStatus reads a size in kB from /proc/self/status.
func procStatus(field string) uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field); ok {
			kb, _ := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}
