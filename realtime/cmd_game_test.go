package realtime

import (
	"context"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lagkit/lagkit/client"
	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/testlock"
	"github.com/lagkit/lagkit/transport"
	"github.com/lagkit/lagkit/world"
)

// aimCmd is a game's own part of a command: a target's slot and an
// analog axis.
type aimCmd struct {
	Target uint8   `lagkit:"max=63"`
	Axis   float32 `lagkit:"min=-1,max=1,q=0.01"`
}

var aimCmdDecl = game.MustDeclareCmd[aimCmd]()

// aimState keeps what the step made of the commands: the last target
// and the sum of the axis in its units, predicted by the owner.
type aimState struct {
	Target uint8 `lagkit:"owner,max=63"`
	Sum    int32 `lagkit:"owner"`
}

var aimStateDecl = game.MustDeclare[aimState]()

// cmdSeen records what a step saw of the commands' game parts.
type cmdSeen struct {
	mu      sync.Mutex
	targets map[uint8]bool
	offGrid int // axis values not on the 0.01 grid
}

func (s *cmdSeen) step(st game.PlayerState, cmd game.UserCmd, ctx *game.StepCtx) (game.PlayerState, bool) {
	st, fired := ctx.Step(st, cmd)
	a := aimCmdDecl.Get(&cmd)
	s.mu.Lock()
	s.targets[a.Target] = true
	if u := float64(a.Axis) * 100; math.Abs(u-math.Round(u)) > 1e-3 {
		s.offGrid++
	}
	s.mu.Unlock()
	as := aimStateDecl.Of(&st)
	as.Target = a.Target
	as.Sum += int32(math.Round(float64(a.Axis) * 100))
	return st, fired
}

func (s *cmdSeen) count() (int, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.targets), s.targets[64]
}

// aimer is a player aiming at a new target every four ticks, with an
// axis off its grid (0.257 and so on), and once at slot 64, beyond the
// declared range.
type aimer struct {
	mu                 sync.Mutex
	n                  int
	refused, misses    int
	measured           int
	err                error
	predicted, lastCmd aimCmd
}

func (b *aimer) Input(_ time.Duration, c *client.Client) game.UserCmd {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.n++
	var cmd game.UserCmd
	a := aimCmd{Target: uint8(b.n / 4 % 64), Axis: float32(math.Sin(float64(b.n)/7)) * 0.999}
	if b.n == 50 {
		a.Target = 64
	}
	aimCmdDecl.Set(&cmd, a)
	b.refused, b.err = c.Stats().CmdRefused, c.CmdError()
	me := c.Predicted()
	st := aimStateDecl.Get(&me)
	b.predicted = aimCmd{Target: st.Target}
	last := c.LastCmd()
	b.lastCmd = aimCmdDecl.Get(&last)
	return cmd
}

// ready counts the predictions of the client's handover r that had the
// command's fields wrong.
func (b *aimer) ready(r *client.Ready) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, f := range r.Mispredictions {
		if f.Field == "Target" || f.Field == "Sum" {
			b.misses += f.Wrong
		}
	}
	b.measured += r.Predictions
}

// TestCmdOverUDP: over real loopback sockets, a game's declared command
// field reaches the server's step, on its grid, and the client's
// prediction, which the server's state then confirms (no
// misprediction of the fields the step computes from it); a field
// outside its range is refused on the client, by name, and never
// reaches the server; a client without the declaration is refused at
// connect.
func TestCmdOverUDP(t *testing.T) {
	testlock.Lock(t)
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	l, err := transport.ListenUDP("127.0.0.1:0", transport.UDPOptions{})
	if err != nil {
		t.Fatal(err)
	}
	srvSeen := &cmdSeen{targets: map[uint8]bool{}}
	cliSeen := &cmdSeen{targets: map[uint8]bool{}}
	h := NewHost(quiet, nil)
	if _, err := h.Start(MatchConfig{Map: "field", World: world.Field(), Mode: "ffa", Seats: 2, TickRate: 32,
		Step: srvSeen.step, Game: aimStateDecl.Layout, Cmd: aimCmdDecl.CmdLayout}); err != nil {
		t.Fatal(err)
	}
	var served sync.WaitGroup
	served.Add(1)
	go func() { defer served.Done(); h.Serve(ctx, l) }()
	defer func() {
		_ = h.Shutdown(context.Background(), "test over")
		cancel()
		l.Close()
		served.Wait()
	}()
	dial := func() transport.Conn {
		conn, err := transport.Dial(ctx, "udp://"+l.Addr(), transport.DialOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return conn
	}

	// Without the command's declaration: refused, naming it.
	_, err = RunClient(ctx, dial(), ClientConfig{Client: client.Config{Map: world.Field(), Name: "plain", Game: aimStateDecl.Layout}})
	if err == nil || !strings.Contains(err.Error(), "game command declaration differs") {
		t.Fatalf("a client without the declaration: %v", err)
	}

	b := &aimer{}
	cctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := RunClient(cctx, dial(), ClientConfig{Brain: b, OnReady: b.ready, Client: client.Config{Map: world.Field(), Name: "aimer",
			Step: cliSeen.step, Game: aimStateDecl.Layout, Cmd: aimCmdDecl.CmdLayout}})
		done <- err
	}()
	for {
		n, _ := srvSeen.count()
		b.mu.Lock()
		ready := n >= 40 && b.refused > 0 && b.measured > 200
		b.mu.Unlock()
		if ready {
			break
		}
		select {
		case err := <-done:
			t.Fatalf("the client ended: %v", err)
		case <-ctx.Done():
			t.Fatalf("the server saw %d targets; the client refused %d commands and measured %d predictions", n, b.refused, b.measured)
		case <-time.After(20 * time.Millisecond):
		}
	}
	stop()
	<-done
	b.mu.Lock()
	defer b.mu.Unlock()
	srvN, srv64 := srvSeen.count()
	cliN, cli64 := cliSeen.count()
	if srv64 || cli64 {
		t.Errorf("target 64, outside the declared range, reached a step: server %v, client %v", srv64, cli64)
	}
	if b.refused != 1 || b.err == nil || !strings.Contains(b.err.Error(), "field Target: 64 outside 0..63") {
		t.Errorf("refused %d commands: %v", b.refused, b.err)
	}
	if srvSeen.offGrid != 0 || cliSeen.offGrid != 0 {
		t.Errorf("axis values off the grid: server %d, client %d", srvSeen.offGrid, cliSeen.offGrid)
	}
	if cliN < srvN {
		t.Errorf("the client's prediction saw %d targets, the server %d", cliN, srvN)
	}
	if b.misses != 0 {
		t.Errorf("%d of %d predictions had the command's fields wrong", b.misses, b.measured)
	}
	if b.predicted.Target != b.lastCmd.Target {
		t.Errorf("predicted target %d, last command's %d", b.predicted.Target, b.lastCmd.Target)
	}
	t.Logf("server stepped %d targets, client predicted %d; %d predictions measured, none wrong", srvN, cliN, b.measured)
}
