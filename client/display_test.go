package client

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/wire"
)

// alongFromNewest is remote.along's interpolation found by walking back
// from the newest sample every time, without the remembered index.
func alongFromNewest(r *remote, t, limit time.Duration) game.PlayerState {
	newest := r.head
	if t >= r.h[newest].t {
		st := r.h[newest].s
		st.Pos = st.Pos.AddScaled(st.Vel, min(t-r.h[newest].t, limit).Seconds())
		return st
	}
	i := newest
	for k := 1; k < r.n; k++ {
		j := (newest + histLen - k) % histLen
		if r.h[j].t <= t {
			return game.Interpolate(r.h[j].s, r.h[i].s, float64(t-r.h[j].t)/float64(r.h[i].t-r.h[j].t))
		}
		i = j
	}
	return r.h[i].s
}

// TestAlongRemembersWhereItWas checks that interpolating from the sample
// found last time gives what a search from the newest gives, as samples
// arrive, the history starts again, the player teleports and the time
// asked jumps both ways, and that alongPos gives along's position and
// teleport counter.
func TestAlongRemembersWhereItWas(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var r remote
	now := time.Duration(0)
	for step := range 5000 {
		if rng.IntN(40) == 0 {
			r.n = 0 // the history starts again
		}
		now += time.Duration(1+rng.IntN(40)) * time.Millisecond
		r.head = (r.head + 1) % histLen
		r.h[r.head].t = now
		r.h[r.head].s = game.PlayerState{Pos: geom.V(rng.Float64()*10, rng.Float64()*10, 0), Vel: geom.V(1, 0, 0), Yaw: uint16(rng.Uint32()), Teleport: uint8(step / 30)}
		r.n = min(r.n+1, histLen)
		for range 3 {
			at := now - time.Duration(rng.IntN(800))*time.Millisecond + time.Duration(rng.IntN(50))*time.Millisecond
			if rng.IntN(2) == 0 {
				at = now - 100*time.Millisecond + time.Duration(step%7)*time.Millisecond
			}
			var got game.PlayerState
			r.along(&got, at, 250*time.Millisecond)
			if want := alongFromNewest(&r, at, 250*time.Millisecond); got != want {
				t.Fatalf("step %d, time %v: along %+v, search from the newest %+v", step, at, got, want)
			}
			if pos, teleport := r.alongPos(at, 250*time.Millisecond); pos != got.Pos || teleport != got.Teleport {
				t.Fatalf("step %d, time %v: alongPos %v, %d; along %v, %d", step, at, pos, teleport, got.Pos, got.Teleport)
			}
		}
	}
}

// TestDrawnAgainAfterANewState: a player asked for twice at one time is
// drawn once, but a state received in between is drawn from, and a
// player gone from the snapshots is no longer listed or drawn.
func TestDrawnAgainAfterANewState(t *testing.T) {
	c := connected(t, Config{Display: Extrapolate})
	feedMoving(t, c, 10*tick, 10, 10, 0, 10, 1, game.PlayerState{}, 0)
	at := 12 * tick
	if s, _ := c.Remote(1, at); s.Pos.X != 10 {
		t.Fatalf("x=%v, want 10", s.Pos.X)
	}
	feedMoving(t, c, 11*tick, 11, 11, 0, 11, 1, game.PlayerState{}, 0)
	if s, _ := c.Remote(1, at); s.Pos.X != 11 {
		t.Fatalf("after a new state x=%v, want 11", s.Pos.X)
	}
	if pos, teleport, ok := c.RemotePos(1, at); !ok || pos.X != 11 || teleport != 1 {
		t.Fatalf("RemotePos %v, teleport %d, %v; want x 11, teleport 1", pos, teleport, ok)
	}
	if ids := c.RemoteIDs(nil); len(ids) != 1 || ids[0] != 1 {
		t.Fatalf("remote ids %v, want [1]", ids)
	}
	var s wire.Snapshot
	s.Tick = 12
	b, err := wire.AppendSnapshot(nil, &s, nil, wire.MaxDatagram)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Step(12*tick, b); err != nil {
		t.Fatal(err)
	}
	if ids := c.RemoteIDs(nil); len(ids) != 0 {
		t.Fatalf("remote ids %v after the player left, want none", ids)
	}
	if _, ok := c.Remote(1, at); ok {
		t.Fatal("a player gone from the snapshots is still drawn")
	}
	if _, _, ok := c.RemotePos(1, at); ok {
		t.Fatal("RemotePos draws a player gone from the snapshots")
	}
}

// TestImplausibleJumpAtItsLimit: the squared distance decides only far
// from the limit; at it the distance itself does.
func TestImplausibleJumpAtItsLimit(t *testing.T) {
	p := game.DefaultParams()
	gap := 3 * tick
	limit := math.Sqrt(3)*p.MaxVelocity*gap.Seconds() + jumpMargin(&p)
	for _, d := range []float64{0, limit / 2, math.Nextafter(limit, 0), limit, math.Nextafter(limit, 2*limit), 2 * limit} {
		a, b := geom.V(1, 2, 3), geom.V(1+d*0.6, 2+d*0.8, 3)
		if got, want := implausibleJump(&p, a, b, gap), a.Dist(b) > limit; got != want {
			t.Errorf("distance %v (limit %v): implausible %v, want %v", a.Dist(b), limit, got, want)
		}
	}
}
