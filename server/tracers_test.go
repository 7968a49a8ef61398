package server

import (
	"math"
	"testing"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/lagcomp"
	"github.com/lagkit/lagkit/shooter/weapon"
	"github.com/lagkit/lagkit/wire"
	"github.com/lagkit/lagkit/world/worldtest"
)

// tracersSeen collects, per peer, the tracer events each snapshot brings
// for the first time.
type tracersSeen struct {
	perSnap map[Peer][]int
	events  map[Peer][]wire.TracerEvent
}

func watchTracers(t *testing.T, d *duel) *tracersSeen {
	w := &tracersSeen{perSnap: map[Peer][]int{}, events: map[Peer][]wire.TracerEvent{}}
	d.onSnap = func(to Peer, sn *wire.Snapshot) {
		n := 0
		for _, ev := range sn.Events {
			if ev.Seq < d.events[to] || ev.Kind != wire.EventTracer {
				continue
			}
			var e wire.TracerEvent
			if err := wire.DecodeTracerEvent(ev.Data, &e); err != nil {
				t.Fatal(err)
			}
			w.events[to] = append(w.events[to], e)
			n++
		}
		w.perSnap[to] = append(w.perSnap[to], n)
	}
	return w
}

// TestTracersCapPerSnapshot has nine players near one another fire a
// shotgun of eight pellets non-stop, far more pellets than tracers a
// snapshot may carry: each client is told of at most
// MaxTracersPerSnapshot new ones a snapshot (the cap is reached) and no
// more than its share of the bandwidth allows, never of its own shots; a player far from every shot hears of none; and a
// client that never acknowledges keeps a short queue and is not dropped
// for a backlog.
func TestTracersCapPerSnapshot(t *testing.T) {
	w := weapon.Rifle()
	w.Pellets, w.Magazine, w.FireInterval = 8, 255, weapon.PerMinute(600)
	d := newDuel(t, armed(Config{ShowTracers: true}, w))
	const far, silent = Peer(11), Peer(12)
	d.silent[silent] = true
	for p := Peer(3); p <= silent; p++ {
		d.join(p)
	}
	up := game.PitchUnits(0.3) // over everyone's head, to the top of the map
	for i, p := range d.peers {
		slot, _ := d.s.ClientByPeer(p)
		switch p {
		case 2:
			continue // the victim of the duel, at (20, 0)
		case far:
			d.s.Place(slot, geom.V(-90, 0, 0), 0)
			continue
		case silent:
			d.s.Place(slot, geom.V(10, 5, 0), 0)
			continue
		}
		d.s.Place(slot, geom.V(0, float64(i)-5, 0), 0)
		d.cmd[p] = game.UserCmd{Pitch: up, Buttons: game.BtnFire}
	}
	seen := watchTracers(t, d)
	silentSlot, _ := d.s.ClientByPeer(silent)
	for end := d.s.Time() + time.Second; d.s.Time() < end; {
		d.tick(nil)
		c := d.s.clients[silentSlot]
		if c == nil || c.overflow {
			t.Fatal("the silent client was dropped")
		}
		tracers := 0
		for _, ev := range c.events {
			if ev.kind == wire.EventTracer {
				tracers++
			}
		}
		if tracers > cosmeticEvents {
			t.Fatalf("the silent client has %d tracers queued, want at most %d", tracers, cosmeticEvents)
		}
	}
	for _, p := range d.peers {
		slot, _ := d.s.ClientByPeer(p)
		most := 0
		for _, n := range seen.perSnap[p] {
			most = max(most, n)
		}
		for _, e := range seen.events[p] {
			if int(e.Shooter) == slot {
				t.Errorf("peer %d was told of its own shot", p)
			}
		}
		switch {
		case p == far:
			if len(seen.events[p]) != 0 {
				t.Errorf("the far player heard of %d tracers, want none", len(seen.events[p]))
			}
		case p == silent:
		case most != MaxTracersPerSnapshot:
			t.Errorf("peer %d got at most %d new tracers a snapshot, want the cap %d", p, most, MaxTracersPerSnapshot)
		}
	}
	if len(seen.events[2]) < 2*MaxTracersPerSnapshot {
		t.Errorf("the victim heard of %d tracers in a second", len(seen.events[2]))
	}
	// Within the budget: a second's share of the bandwidth and the
	// bucket's saving.
	bytes := 0
	for _, e := range seen.events[2] {
		b, _ := wire.AppendTracerEvent(nil, &e)
		bytes += tracerCost(b)
	}
	if most := DefaultBandwidth/TracerShare + MaxTracersPerSnapshot*tracerCost(make([]byte, maxTracerData)); bytes > most {
		t.Errorf("the victim's tracers took %d bytes in a second, want at most %d", bytes, most)
	}
	t.Logf("the victim heard of %d tracers (%d bytes) in a second", len(seen.events[2]), bytes)
}

// TestTracerStopsAtWall checks a miss's tracer on the cover map: from
// the shooter's eye to where its ray meets the wall 10 m ahead, and a
// shot into the open sky ends at the top of the map's bounds.
func TestTracerStopsAtWall(t *testing.T) {
	w := weapon.Rifle()
	w.Spread, w.SpreadGrowth, w.SpreadMax, w.Recoil, w.RecoilMax = 0, 0, 0, 0, 0
	d := newDuel(t, armed(Config{Map: worldtest.Cover(t), ShowTracers: true}, w))
	seen := watchTracers(t, d)
	d.s.Place(0, geom.V(0, 2, 0), 0)
	d.s.Place(1, geom.V(5, -20, 0), math.Pi/2)
	d.cmd[1] = game.UserCmd{}
	d.run(200 * time.Millisecond)
	d.shoot(nil)
	d.run(200 * time.Millisecond)
	d.cmd[1] = game.UserCmd{Yaw: game.YawUnits(-math.Pi / 2), Pitch: game.PitchUnits(0.5)}
	d.run(200 * time.Millisecond)
	d.shoot(nil)
	d.run(200 * time.Millisecond)
	got := seen.events[2]
	if len(got) != 2 {
		t.Fatalf("the victim heard of %d tracers, want 2: %+v", len(got), got)
	}
	eye := geom.V(0, 2, 1.65)
	if e := got[0]; e.Shooter != 0 || e.From.Dist(eye) > 0.01 || e.To.Dist(geom.V(10, 2, 1.65)) > 0.01 {
		t.Errorf("tracer %+v, want from %v to the wall at x 10", e, eye)
	}
	e := got[1]
	dir := game.AimDir(game.YawUnits(-math.Pi/2), game.PitchUnits(0.5))
	want := eye.Add(dir.Scale((10 - eye.Z) / dir.Z))
	if e.From.Dist(eye) > 0.01 || e.To.Dist(want) > 0.01 {
		t.Errorf("tracer %+v, want from %v to the top of the map at %v", e, eye, want)
	}
}

// TestLateShotDrawsTracer: under time warp, a late player's shot is
// judged by the warp that inserts its command, not by a live tick; the
// players near it are told of it all the same, once, though later warps
// judge that tick again. So too a game's resolver's shot it shows
// (ShotWorld.ShowTracer), judged for the first time by a warp.
func TestLateShotDrawsTracer(t *testing.T) {
	var registered, rejudged int
	for name, shots := range map[string]Shots{
		"lagkit": nil,
		"game":   lineShots{damage: 10, registered: &registered, rejudged: &rejudged, tracers: true},
	} {
		t.Run(name, func(t *testing.T) { lateShotTracer(t, shots) })
	}
}

// lateShotTracer is TestLateShotDrawsTracer with the resolver shots.
func lateShotTracer(t *testing.T, shots Shots) {
	cfg := warpConfig()
	cfg.ShowTracers = true
	cfg.Map = worldtest.Open(t)
	if shots != nil {
		cfg.Shots = shots
		cfg.Body = lagcomp.Parts{{Shape: lagcomp.Circle{R: 0.3}, Damage: 10}}
	}
	s, err := New(armed(cfg))
	if err != nil {
		t.Fatal(err)
	}
	const late = 6
	shooter, watcher := join(t, s, 0, Peer(0)), join(t, s, 0, Peer(1))
	s.Place(shooter, geom.V(0, 0, 0), 0)
	s.Place(watcher, geom.V(5, 4, 0), math.Pi)
	setLatency(s, shooter, late)
	s.Ready()
	seen := map[uint32]wire.TracerEvent{}
	for n := uint32(1); n <= 40; n++ {
		now := s.NextTick()
		if m := n - min(n, late); m >= 1 {
			cmd := game.UserCmd{Tick: m, Duration: s.TickDuration()}
			if m == 10 {
				cmd.Buttons = game.BtnFire
			}
			sendCmds(t, s, now-time.Microsecond, Peer(0), []game.UserCmd{cmd})
		}
		s.Advance(now)
		s.Ready()
		// The watcher acknowledges nothing: its events stay queued.
		for _, ev := range s.clients[watcher].events {
			if ev.kind == wire.EventTracer {
				var e wire.TracerEvent
				if err := wire.DecodeTracerEvent(ev.data, &e); err != nil {
					t.Fatal(err)
				}
				seen[ev.seq] = e
			}
		}
	}
	if st := s.TimeWarpStats(); st.Warps == 0 {
		t.Fatalf("no warp ran: %+v", st)
	}
	if len(seen) != 1 {
		t.Fatalf("the watcher was told of %d tracers, want the late shot's one", len(seen))
	}
	for _, e := range seen {
		if int(e.Shooter) != shooter || e.To.X < 20 || math.Abs(e.To.Y) > 1 {
			t.Errorf("tracer %+v, want one from the shooter down +X", e)
		}
	}
}
