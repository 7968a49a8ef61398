package lagcomp_test

// This file holds the tests of a game's own bodies under lag
// compensation, in the manner of lagcomp_paper_test.go: each quotes the
// statement it checks, and drives a whole server through its public API
// (rig_test.go), with the game's bodies chosen per player and per tick
// (server.Config.BodyOf) and its shots handed to it (server.Config.Shots).

import (
	"math"
	"testing"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/lagcomp"
	"github.com/lagkit/lagkit/server"
)

// A game's bodies: a capsule standing 1.8 m tall, the same crouched to
// 1.2 m, and a heavy's twice as wide. Each is made a Body once.
var (
	standing lagcomp.Body = lagcomp.Parts{{Shape: lagcomp.Capsule{A: geom.V(0, 0, 0.3), B: geom.V(0, 0, 1.5), R: 0.3}, Damage: 25}}
	crouched lagcomp.Body = lagcomp.Parts{{Shape: lagcomp.Capsule{A: geom.V(0, 0, 0.3), B: geom.V(0, 0, 0.9), R: 0.3}, Damage: 25}}
	heavy    lagcomp.Body = lagcomp.Parts{{Shape: lagcomp.Capsule{A: geom.V(0, 0, 0.6), B: geom.V(0, 0, 1.2), R: 0.6}, Damage: 10}}
)

// is reports whether body is b, the same Parts (a slice, which == cannot
// compare).
func is(body, b lagcomp.Body) bool {
	p, ok := body.(lagcomp.Parts)
	return ok && len(p) > 0 && &p[0] == &b.(lagcomp.Parts)[0]
}

// byStance is a game's BodyOf: a crouched player's body is the crouched
// one.
func byStance(_ int, st game.PlayerState) lagcomp.Body {
	if st.Has(game.FlagCrouched) {
		return crouched
	}
	return standing
}

// shootAt makes p fire during the next tick and returns the one shot the
// server handed the game.
func (m *rig) shootAt(p *player) server.FiredShot {
	m.t.Helper()
	p.cmd.Buttons |= game.BtnFire
	m.tick()
	p.cmd.Buttons &^= game.BtnFire
	shots := m.fired
	if len(shots) != 1 {
		m.t.Fatalf("%d shots fired, want 1", len(shots))
	}
	return shots[0]
}

// along returns the ray from f's shooter along +X at height z, and off
// to its side.
func along(f server.FiredShot, z, off float64) geom.Ray {
	return geom.Ray{Origin: f.State.Pos.Add(geom.V(0, off, z)), Dir: geom.V(1, 0, 0)}
}

// TestRewoundStance checks that a rewind restores the victim's stance
// with its position:
//
//	"every tick, record each player's hitbox-relevant state (position,
//	yaw/pitch, stance, alive, part transforms)"
//
// A shot at head height, fired 200 ms after the view time it carries,
// hits a victim that stood then and has crouched since (the live
// crouched body it misses); once the victim has been crouched longer
// than that, the same shot misses and one at the crouched chest hits;
// and after the victim stands up again, the shot rewound to its crouch
// misses though the live body would be hit.
//
// Reference: [source], moving the other players back in time, which may
// force state such as ducking back too (docs/references.md).
func TestRewoundStance(t *testing.T) {
	m := newRig(t, server.Config{Shots: &keeper{}, BodyOf: byStance})
	a, b := m.join(100*ms, 100*ms), m.join(100*ms, 100*ms)
	m.place(a, geom.V(0, -20, 0), 0)
	m.place(b, geom.V(10, -20, 0), math.Pi)
	m.run(500 * ms)
	notA := func(id int) bool { return id == a.id }
	trace := func(f server.FiredShot, z float64, at time.Duration) (lagcomp.RewindHit, bool) {
		return m.s.TraceAt(along(f, z, 0), 100, at, notA)
	}

	b.cmd.Buttons |= game.BtnCrouch
	m.run(100 * ms)
	f := m.shootAt(a)
	if rewind := f.Now - f.Target; rewind < 200*ms || rewind > 200*ms+2*m.dt {
		t.Fatalf("shot rewound %v, want 200 ms", rewind)
	}
	if h, ok := trace(f, 1.6, f.Target); !ok || h.ID != b.id || !is(h.Body, standing) {
		t.Errorf("head-high shot at the standing victim: %+v %v, want a hit on the standing body", h, ok)
	}
	if _, ok := trace(f, 1.6, f.Now); ok {
		t.Error("head-high shot hit the live, crouched victim")
	}
	if _, body, ok := m.s.ShapeAt(b.id, f.Now); !ok || !is(body, crouched) {
		t.Errorf("the victim's live body is %v, want the crouched one", body)
	}

	m.run(300 * ms)
	f = m.shootAt(a)
	if _, ok := trace(f, 1.6, f.Target); ok {
		t.Error("head-high shot hit a victim crouched since before the shooter's view")
	}
	if h, ok := trace(f, 0.8, f.Target); !ok || !is(h.Body, crouched) {
		t.Errorf("chest-high shot at the crouched victim: %+v %v", h, ok)
	}

	b.cmd.Buttons &^= game.BtnCrouch
	m.run(100 * ms)
	f = m.shootAt(a)
	if _, ok := trace(f, 1.6, f.Target); ok {
		t.Error("head-high shot hit the victim that was crouched at the shooter's view")
	}
	if h, ok := trace(f, 1.6, f.Now); !ok || !is(h.Body, standing) {
		t.Errorf("the live victim stands again: %+v %v", h, ok)
	}
}

// TestRewoundClass checks that a player's class, chosen by the game
// with its state, is rewound as its stance is: a shot passing 45 cm
// beside the victim's axis hits the heavy it was at the shooter's view
// time, not the light it is by the time the server runs the shot, and
// the same shot at the light one, later, misses.
//
// Reference: [source], moving the other players back in time
// (docs/references.md).
func TestRewoundClass(t *testing.T) {
	class := map[int]lagcomp.Body{}
	m := newRig(t, server.Config{Shots: &keeper{}, BodyOf: func(id int, _ game.PlayerState) lagcomp.Body { return class[id] }})
	a, b := m.join(60*ms, 50*ms), m.join(60*ms, 50*ms)
	class[a.id], class[b.id] = standing, heavy
	m.place(a, geom.V(0, -20, 0), 0)
	m.place(b, geom.V(10, -20, 0), math.Pi)
	m.run(500 * ms)
	class[b.id] = standing
	m.run(50 * ms)
	notA := func(id int) bool { return id == a.id }

	f := m.shootAt(a)
	if h, ok := m.s.TraceAt(along(f, 1, 0.45), 100, f.Target, notA); !ok || h.ID != b.id || !is(h.Body, heavy) || h.Damage != 10 {
		t.Errorf("shot beside the heavy: %+v %v, want a hit on the heavy for 10", h, ok)
	}
	if _, ok := m.s.TraceAt(along(f, 1, 0.45), 100, f.Now, notA); ok {
		t.Error("shot beside the live light player hit")
	}
	m.run(200 * ms)
	f = m.shootAt(a)
	if _, ok := m.s.TraceAt(along(f, 1, 0.45), 100, f.Target, notA); ok {
		t.Error("shot beside a victim light since before the shooter's view hit")
	}
	// A body of nil leaves the player out of the tick's record.
	class[b.id] = nil
	m.run(200 * ms)
	f = m.shootAt(a)
	if _, ok := m.s.TraceAt(along(f, 1, 0), 100, f.Target, notA); ok {
		t.Error("a player without a body was hit")
	}
}
