package realtime

import (
	"context"
	"math"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lagkit/lagkit/client"
	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/internal/walltest"
	"github.com/lagkit/lagkit/record"
	"github.com/lagkit/lagkit/shooter"
	"github.com/lagkit/lagkit/transport"
	"github.com/lagkit/lagkit/world"
)

// sightShooter aims at the victim as its client draws it and holds the
// trigger while fire is set.
type sightShooter struct {
	fire   atomic.Bool
	victim atomic.Int32 // the victim's seat, -1 until known
}

func (b *sightShooter) Input(now time.Duration, c *client.Client) game.UserCmd {
	var cmd game.UserCmd
	v, ok := c.Remote(int(b.victim.Load()), c.ViewTime(now))
	if b.victim.Load() < 0 || !ok {
		return cmd
	}
	params := game.DefaultParams()
	eye := game.EyePos(c.Predicted(), &params)
	d := v.Pos.Add(geom.V(0, 0, 1.13)).Sub(eye) // the torso's middle
	cmd.Yaw = game.YawUnits(math.Atan2(d.Y, d.X))
	cmd.Pitch = game.PitchUnits(math.Atan2(d.Z, math.Hypot(d.X, d.Y)))
	if b.fire.Load() {
		cmd.Buttons = game.BtnFire
	}
	return cmd
}

// sightVictim walks along +x, once walk is set, until its client
// predicts it at stopX, and then says so (behind).
type sightVictim struct {
	walk, behind atomic.Bool
	stopX        float64
}

func (b *sightVictim) Input(now time.Duration, c *client.Client) game.UserCmd {
	if !b.walk.Load() {
		return game.UserCmd{}
	}
	if c.Predicted().Pos.X >= b.stopX {
		b.behind.Store(true)
		return game.UserCmd{}
	}
	return game.UserCmd{Forward: 127}
}

// TestSightingStoredLive: over real UDP sockets on loopback, a shot's
// objective_sbc is what its victim's client judged when the hit reached
// it, whatever the server's own present-time test (server_sbc) says. The
// victim's commands reach the server a second late, so its client's
// prediction leads the server by 4 m of walking: standing in the open
// (range.json: a wall from x 2 to 10 at y 12, the shooter at the
// origin, the victim at y 15), it is hit, and both say open; then it
// walks behind the wall on its screen and is hit while the server still
// has it in the open: its client says behind cover, the server not, and
// the store keeps the client's judgment, with server_sbc beside it.
// At x 3.5 every part of the victim is behind the wall from the
// shooter's eye; its client stops there while the server still has it
// 4 m back, and the shooter's hits find it in the open at the server
// until it passes x 2.5, three quarters of a second.
func TestSightingStoredLive(t *testing.T) {
	if testing.Short() {
		t.Skip("seconds of wall time")
	}
	walltest.Lock(t)
	h := NewHost(quiet, nil)
	l, err := transport.ListenUDP("127.0.0.1:0", transport.UDPOptions{Unrouted: h.UDPUnrouted})
	if err != nil {
		t.Fatal(err)
	}
	m, err := h.Start(MatchConfig{Map: "../scenarios/maps/range.json", Mode: "ffa", Seats: 2,
		Latency: []LinkRule{{Player: "victim", Up: LinkConfig{LatencyMS: 1000}}}})
	if err != nil {
		t.Fatal(err)
	}
	sink := &memSink{}
	if err := m.SetSink(sink); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := h.Serve(ctx, l); err != nil {
			t.Error(err)
		}
	}()
	defer func() {
		cancel()
		_ = l.Close()
		wg.Wait()
		_ = h.Shutdown(context.Background(), "test over")
	}()

	rangeMap, err := world.LoadFile("../scenarios/maps/range.json")
	if err != nil {
		t.Fatal(err)
	}
	sniper := &sightShooter{}
	sniper.victim.Store(-1)
	victim := &sightVictim{stopX: 3.5}
	var shooterStats, victimStats LiveStats
	play := func(name string, brain Brain, st *LiveStats) {
		defer wg.Done()
		conn, err := transport.Dial(ctx, "udp://"+l.Addr(), transport.DialOptions{})
		if err != nil {
			t.Error(err)
			return
		}
		defer conn.Close("test over")
		if _, err := RunClient(ctx, conn, ClientConfig{Client: shooter.Client(client.Config{Map: rangeMap, Name: name}), Brain: brain, Stats: st}); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	wg.Add(2)
	go play("shooter", sniper, &shooterStats)
	go play("victim", victim, &victimStats)

	deadline := time.Now().Add(40 * time.Second)
	waitUntil := func(what string, ok func() bool) {
		t.Helper()
		for !ok() {
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s (shooter %+v, victim %+v)", what, shooterStats.Get(), victimStats.Get())
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	waitUntil("both seated", func() bool {
		return shooterStats.Get().Seat >= 0 && victimStats.Get().Seat >= 0 && shooterStats.Get().Snapshots > 20 && victimStats.Get().Snapshots > 20
	})
	ss, vs := shooterStats.Get().Seat, victimStats.Get().Seat
	if err := m.Place(ss, geom.V(0, 0, 0), math.Pi/2); err != nil {
		t.Fatal(err)
	}
	if err := m.Place(vs, geom.V(-2, 15, 0), 0); err != nil {
		t.Fatal(err)
	}
	// The victim's placement reaches its client, and the client's
	// commands from then on the server, a second later.
	time.Sleep(1500 * time.Millisecond)
	sniper.victim.Store(int32(vs))

	// In the open on both sides.
	sniper.fire.Store(true)
	waitUntil("a hit in the open", func() bool { return victimStats.Get().HitsReceived >= 1 })
	sniper.fire.Store(false)
	if st := victimStats.Get(); st.SBCReceived != 0 {
		t.Fatalf("the victim's client found a hit in the open behind cover: %+v", st)
	}

	// Behind the wall on the victim's screen, in the open at the server.
	victim.walk.Store(true)
	waitUntil("the victim's client behind the wall", victim.behind.Load)
	sniper.fire.Store(true)
	waitUntil("a hit the victim's client found behind cover", func() bool { return victimStats.Get().SBCReceived >= 1 })
	sniper.fire.Store(false)

	// Every hit its client judged is stored, with that judgment, once it
	// reached the server.
	hits := func() (all, sbc, serverOpen, open int, known bool) {
		sink.mu.Lock()
		defer sink.mu.Unlock()
		known = true
		for _, r := range sink.mem.Records {
			s, ok := r.(record.Shot)
			if !ok || s.Victim != vs || !s.Hit {
				continue
			}
			all++
			known = known && s.SBCKnown
			switch {
			case s.ObjectiveSBC && !s.ServerSBC:
				sbc++
				serverOpen++
			case s.ObjectiveSBC:
				sbc++
			default:
				open++
			}
		}
		return
	}
	waitUntil("the hits stored", func() bool {
		all, _, _, _, _ := hits()
		return all >= victimStats.Get().HitsReceived
	})
	st := victimStats.Get()
	all, sbc, serverOpen, open, known := hits()
	t.Logf("victim: %d hits received, %d behind cover; stored: %d hits, %d objective_sbc (%d of them open at the server), %d open",
		st.HitsReceived, st.SBCReceived, all, sbc, serverOpen, open)
	if !known || all != st.HitsReceived || sbc != st.SBCReceived {
		t.Errorf("stored %d hits (all known: %v), %d behind cover; the victim's client received %d, found %d behind cover",
			all, known, sbc, st.HitsReceived, st.SBCReceived)
	}
	if open == 0 || serverOpen == 0 {
		t.Errorf("stored %d hits in the open and %d behind cover on the victim's screen but open at the server; want some of each", open, serverOpen)
	}
}
