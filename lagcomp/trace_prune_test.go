package lagcomp

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/world"
)

// traceAll is Trace without any broad phase: every hittable player's pose
// at t is interpolated and all its parts tested. The pruned Trace must
// give the same answer.
func traceAll(tr *Tracer, r geom.Ray, maxDist float64, t time.Duration, shooter int) (Hit, bool) {
	if wall, ok := tr.Grid.Raycast(r, maxDist); ok {
		maxDist = wall.Dist
	}
	var best Hit
	found := false
	for id := 0; id < tr.History.maxPlayers; id++ {
		if id == shooter || (tr.Hittable != nil && !tr.Hittable(shooter, id)) {
			continue
		}
		st, ok := tr.History.At(id, t)
		if !ok {
			continue
		}
		if h, ok := TraceParts(r, maxDist, st, tr.Params); ok {
			h.Victim = id
			best, found, maxDist = h, true, h.Dist
		}
	}
	return best, found
}

// randomScene records a random crowd on metro: a random number of players
// and tick rate, players that walk, run, jump, crouch, teleport, come and
// go, and ticks the server skipped. It returns the tracer and the newest
// tick's time.
func randomScene(rng *rand.Rand, g *geom.Grid) (*Tracer, time.Duration) {
	p := game.DefaultParams()
	rate := []int{20, 30, 60, 64, 128}[rng.IntN(5)]
	dt := game.TickDuration(rate)
	players := 1 + rng.IntN(64)
	span := time.Duration(100+rng.IntN(1000)) * time.Millisecond
	h := NewHistory(dt, span, players)
	pos := make([]geom.Vec3, players)
	vel := make([]geom.Vec3, players)
	for i := range pos {
		pos[i] = geom.V(-30+60*rng.Float64(), -15+30*rng.Float64(), 3*rng.Float64())
	}
	ticks := uint32(1 + rng.IntN(3*rate))
	n := uint32(rng.IntN(1000))
	for range ticks {
		n += 1 + uint32(rng.IntN(20)/19*rng.IntN(40)) // now and then a gap
		h.Begin(n)
		for i := range pos {
			if rng.IntN(50) == 0 {
				vel[i] = geom.V(rng.NormFloat64()*6, rng.NormFloat64()*6, rng.NormFloat64())
			}
			pos[i] = pos[i].AddScaled(vel[i], dt.Seconds())
			st := game.PlayerState{
				Pos: game.SnapPos(pos[i]), Vel: vel[i],
				Yaw: uint16(rng.Uint32()), Pitch: int16(rng.IntN(8000) - 4000),
			}
			if rng.IntN(3) == 0 {
				st.Flags |= game.FlagCrouched
			}
			if rng.IntN(100) == 0 {
				pos[i] = geom.V(-30+60*rng.Float64(), -15+30*rng.Float64(), 3*rng.Float64())
				st.Pos, st.Teleport = game.SnapPos(pos[i]), uint8(rng.IntN(256))
			}
			if rng.IntN(20) != 0 { // sometimes absent
				h.Set(i, st)
			}
		}
	}
	tr := &Tracer{History: h, Grid: g, Params: &p}
	if rng.IntN(2) == 0 {
		mask := rng.Uint64()
		tr.Hittable = func(_, id int) bool { return mask>>(id%64)&1 == 1 }
	}
	return tr, h.TickTime(n)
}

// randomShot aims from a random point, often near its target, mostly at a random player's torso
// as it stood at a random time, sometimes along an axis or at a time the
// history does not hold.
func randomShot(rng *rand.Rand, tr *Tracer, now time.Duration) (geom.Ray, time.Duration, int) {
	h := tr.History
	shooter := rng.IntN(h.maxPlayers + 1) // maxPlayers: a shooter who is no player
	oldest, _ := h.Oldest()
	from := h.TickTime(oldest)
	t := from + time.Duration(rng.Int64N(int64(now-from)+int64(h.tickDur)))
	switch rng.IntN(20) {
	case 0:
		t = -time.Duration(rng.IntN(1000))
	case 1:
		t = from - time.Duration(rng.Int64N(int64(time.Second)))
	case 2:
		t = now + time.Duration(rng.Int64N(int64(time.Second)))
	}
	origin := geom.V(-30+60*rng.Float64(), -15+30*rng.Float64(), 0.5+3*rng.Float64())
	var dir geom.Vec3
	if target, ok := h.At(rng.IntN(h.maxPlayers), t); ok && rng.IntN(4) != 0 {
		aim := game.Hitboxes(target, tr.Params)[rng.IntN(game.NumParts)].Origin
		aim = aim.Add(geom.V(rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()).Scale(0.08))
		if rng.IntN(2) == 0 { // close in, where walls block less
			yaw := rng.Float64() * 2 * math.Pi
			origin = aim.Add(geom.V(math.Cos(yaw), math.Sin(yaw), 0.2*rng.NormFloat64()).Scale(1 + 10*rng.Float64()))
		}
		dir = aim.Sub(origin)
		if rng.IntN(4) == 0 {
			dir = dir.Norm()
		}
	} else {
		dir = geom.V(rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()*0.2)
	}
	switch rng.IntN(8) { // axis-parallel rays: zero direction components
	case 0:
		dir.Z = 0
	case 1:
		dir.X, dir.Z = 0, 0
	case 2:
		dir.Y = 0
	}
	if dir == (geom.Vec3{}) {
		dir = geom.V(1, 0, 0)
	}
	return geom.Ray{Origin: origin, Dir: dir}, t, shooter
}

// TestTracePrunedMatchesExhaustive checks that the swept-box broad phase
// never changes a result: on many random scenes and shots, Trace and a
// search that tests every player's interpolated pose return the same hit
// (victim, part, distance, point and pose) or the same miss.
func TestTracePrunedMatchesExhaustive(t *testing.T) {
	m, err := world.Load("metro")
	if err != nil {
		t.Fatal(err)
	}
	scenes, shots := 300, 300
	if testing.Short() {
		scenes = 60
	}
	hits := 0
	for seed := uint64(1); seed <= uint64(scenes); seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		tr, now := randomScene(rng, m.Grid)
		for k := range shots {
			r, at, shooter := randomShot(rng, tr, now)
			maxDist := []float64{200, 30, 5, math.Inf(1)}[rng.IntN(4)]
			got, gotOK := tr.Trace(r, maxDist, at, shooter)
			want, wantOK := traceAll(tr, r, maxDist, at, shooter)
			if gotOK != wantOK || got != want {
				t.Fatalf("seed %d shot %d (ray %v, t %v, shooter %d): pruned %+v (%v), exhaustive %+v (%v)",
					seed, k, r, at, shooter, got, gotOK, want, wantOK)
			}
			if gotOK {
				hits++
			}
		}
	}
	// The scenes must exercise hits, not only misses.
	if hits < scenes*shots/20 {
		t.Fatalf("only %d hits in %d shots: the scenes test too little", hits, scenes*shots)
	}
	t.Logf("%d hits in %d shots", hits, scenes*shots)
}

// TestHitboxStateMatchesInterpolate checks that the pose Trace tests has
// the position, yaw and flags of game.Interpolate's, bit for bit: across
// teleports, at both ends and at half way, with yaw wrapping.
func TestHitboxStateMatchesInterpolate(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 9))
	state := func() game.PlayerState {
		return game.PlayerState{
			Pos:      geom.V(rng.NormFloat64()*30, rng.NormFloat64()*30, rng.NormFloat64()),
			Vel:      geom.V(rng.NormFloat64(), rng.NormFloat64(), 0),
			Yaw:      uint16(rng.Uint32()),
			Pitch:    int16(rng.IntN(8000) - 4000),
			Flags:    game.StateFlags(rng.Uint32()),
			Teleport: uint8(rng.IntN(2)),
			Health:   int16(rng.IntN(100)),
		}
	}
	for i := range 100000 {
		a, b := state(), state()
		frac := []float64{0, 0.5, 1, rng.Float64()}[rng.IntN(4)]
		if frac == 0 && rng.IntN(2) == 0 {
			b = a
		}
		got := hitboxState(&a, &b, frac)
		want := game.Interpolate(a, b, frac)
		if frac == 0 {
			want = a
		}
		if got.Pos != want.Pos || got.Yaw != want.Yaw || got.Flags != want.Flags {
			t.Fatalf("case %d: frac %v: hitboxState %+v, Interpolate %+v", i, frac, got, want)
		}
		if game.Hitboxes(got, nil) != game.Hitboxes(want, nil) {
			t.Fatalf("case %d: the hitboxes differ", i)
		}
	}
}

// TestTraceCrowdedRayMatchesExhaustive checks shots along a queue of
// players, each entering more swept boxes than Trace orders
// (maxCandidates): Trace then tests every player, with the same answers.
func TestTraceCrowdedRayMatchesExhaustive(t *testing.T) {
	p := game.DefaultParams()
	dt := game.TickDuration(64)
	const players = 40
	h := NewHistory(dt, time.Second, players)
	rng := rand.New(rand.NewPCG(3, 4))
	for n := uint32(1); n <= 80; n++ {
		h.Begin(n)
		for i := range players {
			st := game.PlayerState{
				Pos: game.SnapPos(geom.V(-20+float64(i)*1.1, 0.3*math.Sin(float64(n)/7+float64(i)), 0)),
				Yaw: uint16(rng.Uint32()),
			}
			if i%3 == 0 {
				st.Flags |= game.FlagCrouched
			}
			h.Set(i, st)
		}
	}
	tr := &Tracer{History: h, Grid: geom.NewGrid(nil, 0), Params: &p}
	now := h.TickTime(80)
	crowded, hits := 0, 0
	for k := range 3000 {
		origin := geom.V(-25, rng.NormFloat64()*0.3, 0.2+1.6*rng.Float64())
		dir := geom.V(1, rng.NormFloat64()*0.01, rng.NormFloat64()*0.02)
		at := now - time.Duration(rng.Int64N(int64(900*time.Millisecond)))
		shooter := rng.IntN(players + 1)
		if k%2 == 0 {
			mask := rng.Uint64()
			tr.Hittable = func(_, id int) bool { return mask>>(id%64)&1 == 1 }
		} else {
			tr.Hittable = nil
		}
		if boxes, ok := h.sweptAt(at); ok && entered(tr, boxes, geom.Ray{Origin: origin, Dir: dir}, shooter) > maxCandidates {
			crowded++
		}
		got, gotOK := tr.Trace(geom.Ray{Origin: origin, Dir: dir}, 200, at, shooter)
		want, wantOK := traceAll(tr, geom.Ray{Origin: origin, Dir: dir}, 200, at, shooter)
		if gotOK != wantOK || got != want {
			t.Fatalf("shot %d: pruned %+v (%v), exhaustive %+v (%v)", k, got, gotOK, want, wantOK)
		}
		if gotOK {
			hits++
		}
	}
	if crowded < 1000 || hits < 1000 {
		t.Fatalf("%d shots entered more than %d boxes, %d hit: the test checks too little", crowded, maxCandidates, hits)
	}
	t.Logf("%d shots entered more than %d boxes, %d hit", crowded, maxCandidates, hits)
}

// entered counts the swept boxes of players other than shooter that the
// ray enters, by geom.RayAABB on the boxes Trace tests.
func entered(tr *Tracer, b sweptBoxes, r geom.Ray, shooter int) int {
	p := tr.Params
	side := p.Radius + sweepMargin
	count := 0
	for id, ok := range b.ok {
		if !ok || id == shooter {
			continue
		}
		box := geom.AABB{
			Min: geom.V(b.side(0, false)[id]-side, b.side(1, false)[id]-side, b.side(2, false)[id]-sweepMargin),
			Max: geom.V(b.side(0, true)[id]+side, b.side(1, true)[id]+side, b.side(2, true)[id]+max(p.Height, p.CrouchHeight)+sweepMargin),
		}
		if _, _, hit := geom.RayAABB(r, 200, box); hit {
			count++
		}
	}
	return count
}

// TestBodyMatchesHitboxes checks that the body a rewound shot tests parts
// of (the head and torso moved, the legs' capsule) has game.Hitboxes's
// shape for the default proportions and others, so Trace takes its short
// way, and that traceBody answers as traceParts does on poses of every
// yaw and stance, shots near and through them.
func TestBodyMatchesHitboxes(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 1))
	for trial := range 20 {
		p := game.DefaultParams()
		if trial > 0 {
			p.Radius = 0.2 + 0.5*rng.Float64()
			p.EyeHeight = 1 + rng.Float64()
			p.CrouchEyeHeight = 0.5 + 0.5*rng.Float64()
		}
		bd := newBody(&p)
		if !bd.ok {
			t.Fatalf("params %+v: the body does not have Hitboxes's shape", p)
		}
		hits := 0
		for range 2000 {
			st := game.PlayerState{
				Pos: geom.V(rng.NormFloat64()*30, rng.NormFloat64()*30, rng.NormFloat64()),
				Yaw: uint16(rng.Uint32()),
			}
			if rng.IntN(2) == 0 {
				st.Flags |= game.FlagCrouched
			}
			aim := game.Hitboxes(st, &p)[rng.IntN(game.NumParts)].Origin.Add(geom.V(rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()).Scale(0.2))
			origin := aim.Add(geom.V(rng.NormFloat64(), rng.NormFloat64(), 0.1*rng.NormFloat64()).Scale(10))
			r := geom.Ray{Origin: origin, Dir: aim.Sub(origin)}
			maxDist := []float64{200, 1.2, math.Inf(1)}[rng.IntN(3)]
			pr := newProbe(r, &p)
			got, gotOK := traceBody(&pr, maxDist, &st, &p, bd)
			want, wantOK := traceParts(r, maxDist, &st, &p, &pr)
			if gotOK != wantOK || got != want {
				t.Fatalf("params %+v, pose %+v, ray %v: traceBody %+v (%v), traceParts %+v (%v)", p, st, r, got, gotOK, want, wantOK)
			}
			if gotOK {
				hits++
			}
		}
		if hits < 300 {
			t.Fatalf("only %d hits: the test checks too little", hits)
		}
	}
}
