package lagcomp_test

import (
	"errors"
	"math"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/lagcomp"
)

const tick = time.Second / 64

func within9(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestShapes(t *testing.T) {
	x := geom.Ray{Origin: geom.V(-10, 0, 1), Dir: geom.V(1, 0, 0)}
	cases := []struct {
		name  string
		shape lagcomp.Shape
		ray   geom.Ray
		dist  float64
		hit   bool
		reach float64
	}{
		{"sphere", lagcomp.Sphere{C: geom.V(0, 0, 1), R: 0.5}, x, 9.5, true, 1.5},
		{"sphere above", lagcomp.Sphere{C: geom.V(0, 0, 3), R: 0.5}, x, 0, false, 3.5},
		{"capsule", lagcomp.Capsule{A: geom.V(0, 0, 0), B: geom.V(0, 0, 2), R: 0.25}, x, 9.75, true, 2.25},
		{"box", lagcomp.Box{Min: geom.V(-1, -1, 0), Max: geom.V(1, 1, 2)}, x, 9, true, math.Sqrt(6)},
		{"circle", lagcomp.Circle{X: 0, Y: 0, R: 2}, x, 8, true, 2},
		{"circle high", lagcomp.Circle{X: 0, Y: 0, R: 2}, geom.Ray{Origin: geom.V(-10, 0, 50), Dir: geom.V(1, 0, 0)}, 8, true, 2},
		{"circle aside", lagcomp.Circle{X: 0, Y: 3, R: 2}, x, 0, false, 5},
		{"circle inside", lagcomp.Circle{X: -10, Y: 0, R: 1}, x, 0, true, 11},
	}
	for _, c := range cases {
		d, ok := c.shape.Raycast(c.ray, 100)
		if ok != c.hit || ok && !within9(d, c.dist) {
			t.Errorf("%s: %v %v, want %v %v", c.name, d, ok, c.dist, c.hit)
		}
		if r := c.shape.Reach(); !within9(r, c.reach) {
			t.Errorf("%s: reach %v, want %v", c.name, r, c.reach)
		}
		if ok && c.dist > 0 {
			if _, ok := c.shape.Raycast(c.ray, c.dist-0.01); ok {
				t.Errorf("%s: hit before maxDist", c.name)
			}
		}
	}
}

// TestPartsDamage: a hit is on the first part the ray enters, with that
// part's damage.
func TestPartsDamage(t *testing.T) {
	crate := lagcomp.Parts{
		{Shape: lagcomp.Box{Min: geom.V(-0.5, -0.5, 0), Max: geom.V(0.5, 0.5, 0.9)}, Damage: 10},
		{Shape: lagcomp.Box{Min: geom.V(-0.5, -0.5, 0.9), Max: geom.V(0.5, 0.5, 1)}, Damage: 50}, // the lid
	}
	low := geom.Ray{Origin: geom.V(-5, 0, 0.5), Dir: geom.V(1, 0, 0)}
	lid := geom.Ray{Origin: geom.V(0, 0, 5), Dir: geom.V(0, 0, -1)}
	if h, ok := crate.Raycast(low, 50); !ok || h.Part != 0 || h.Damage != 10 || !within9(h.Dist, 4.5) {
		t.Errorf("side: %+v %v", h, ok)
	}
	if h, ok := crate.Raycast(lid, 50); !ok || h.Part != 1 || h.Damage != 50 || !within9(h.Dist, 4) || !within9(h.Local.Z, 1) {
		t.Errorf("lid: %+v %v", h, ok)
	}
}

// record runs n ticks of a circle of radius 0.5 moving along +X at 5 m/s
// from the origin, as entity 42, with a box (entity 7) standing at y = 10.
func record(t *testing.T, n int) *lagcomp.Rewinder {
	t.Helper()
	r, err := lagcomp.NewRewinder(tick, time.Second, 8)
	if err != nil {
		t.Fatal(err)
	}
	circle := lagcomp.Parts{{Shape: lagcomp.Circle{R: 0.5}, Damage: 25}}
	box := lagcomp.Parts{{Shape: lagcomp.Box{Min: geom.V(-2, -0.1, 0), Max: geom.V(2, 0.1, 1)}, Damage: 1}}
	for k := range n {
		r.Begin(uint32(k))
		x := 5 * float64(k) * tick.Seconds()
		if err := r.Record(42, lagcomp.Pose{Pos: geom.V(x, 0, 0)}, circle); err != nil {
			t.Fatal(err)
		}
		if err := r.Record(7, lagcomp.Pose{Pos: geom.V(0, 10, 0), Yaw: math.Pi / 2}, box); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

// TestRewindMovingCircle: a shot rewound 150 ms hits the circle where it
// was then, which the same shot against the live pose misses.
func TestRewindMovingCircle(t *testing.T) {
	r := record(t, 128)
	now := 127 * tick
	then := now - 150*time.Millisecond
	pose, _, ok := r.At(42, then)
	wantX := 5 * then.Seconds()
	if !ok || !within9(pose.Pos.X, wantX) {
		t.Fatalf("pose at %v: %+v %v, want x %v", then, pose, ok, wantX)
	}
	shot := geom.Ray{Origin: geom.V(wantX, -20, 0), Dir: geom.V(0, 1, 0)}
	h, ok := r.Trace(shot, 100, then, nil)
	if !ok || h.ID != 42 || h.Damage != 25 || !within9(h.Dist, 19.5) || !within9(h.Point.X, wantX) {
		t.Fatalf("rewound shot: %+v %v", h, ok)
	}
	if h, ok := r.Trace(shot, 100, now, nil); ok && h.ID == 42 {
		t.Fatalf("the live circle, %.2f m further on, was hit: %+v", 5*0.15, h)
	}
	if _, ok := r.Trace(shot, 100, then, func(id int) bool { return id == 42 }); ok {
		t.Fatal("a skipped entity was hit")
	}
	if _, ok := r.Trace(shot, 19, then, nil); ok {
		t.Fatal("hit beyond maxDist (a wall the game found first)")
	}
	// The box at y = 10, 4 m long and 0.2 m thick, is turned a quarter:
	// along y it spans 8 to 12.
	down := geom.Ray{Origin: geom.V(0, 5, 0.5), Dir: geom.V(0, 1, 0)}
	if h, ok := r.Trace(down, 100, then, nil); !ok || h.ID != 7 || !within9(h.Dist, 3) {
		t.Fatalf("turned box: %+v %v", h, ok)
	}
	if _, _, ok := r.At(42, now-2*time.Second); ok {
		t.Fatal("a pose older than the span")
	}
	if _, _, ok := r.At(43, now); ok {
		t.Fatal("an entity never recorded")
	}
}

// TestRewinderEntities: ids come and go; a column is reused only once
// its entity has left the span, and never answers for another id.
func TestRewinderEntities(t *testing.T) {
	r, err := lagcomp.NewRewinder(tick, 100*time.Millisecond, 2)
	if err != nil {
		t.Fatal(err)
	}
	ball := lagcomp.Parts{{Shape: lagcomp.Sphere{R: 1}}}
	r.Begin(1)
	if r.Record(1, lagcomp.Pose{}, ball) != nil || r.Record(2, lagcomp.Pose{}, ball) != nil {
		t.Fatal("two entities in two columns")
	}
	r.Begin(2)
	if err := r.Record(3, lagcomp.Pose{}, ball); !errors.Is(err, lagcomp.ErrRewinderFull) {
		t.Fatalf("a third entity: %v", err)
	}
	for k := uint32(3); k < 20; k++ {
		r.Begin(k)
		if err := r.Record(1, lagcomp.Pose{Pos: geom.V(float64(k), 0, 0)}, ball); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Record(3, lagcomp.Pose{Pos: geom.V(0, 50, 0)}, ball); err != nil {
		t.Fatalf("entity 2 left the span long ago: %v", err)
	}
	if _, _, ok := r.At(2, 19*tick); ok {
		t.Fatal("entity 2 answers after its column went to 3")
	}
	if p, _, ok := r.At(3, 19*tick); !ok || p.Pos.Y != 50 {
		t.Fatalf("entity 3: %+v %v", p, ok)
	}
	if _, _, ok := r.At(3, 18*tick); ok {
		t.Fatal("entity 3 answers for a tick before it came")
	}
	if r.Record(4, lagcomp.Pose{}, nil) == nil {
		t.Fatal("an entity without a body")
	}
	for _, bad := range [][3]int{{0, 1, 1}, {1, -1, 1}, {1, 1, 0}} {
		if _, err := lagcomp.NewRewinder(time.Duration(bad[0])*tick, time.Duration(bad[1])*time.Second, bad[2]); err == nil {
			t.Errorf("NewRewinder%v accepted", bad)
		}
	}
}

// TestRewinderTeleport: a pose is never blended across a teleport.
func TestRewinderTeleport(t *testing.T) {
	r, _ := lagcomp.NewRewinder(tick, time.Second, 1)
	ball := lagcomp.Parts{{Shape: lagcomp.Sphere{R: 1}}}
	r.Begin(0)
	r.Record(1, lagcomp.Pose{Pos: geom.V(0, 0, 0), Yaw: 3}, ball)
	r.Begin(1)
	r.Record(1, lagcomp.Pose{Pos: geom.V(40, 0, 0), Yaw: 3, Teleport: 1}, ball)
	if p, _, _ := r.At(1, tick/4); p.Pos.X != 0 {
		t.Errorf("a quarter across a teleport: %+v", p)
	}
	if p, _, _ := r.At(1, 3*tick/4); p.Pos.X != 40 {
		t.Errorf("three quarters across a teleport: %+v", p)
	}
	r.Begin(2)
	r.Record(1, lagcomp.Pose{Pos: geom.V(44, 0, 0), Yaw: 3 - 2*math.Pi + 0.4, Teleport: 1}, ball)
	// The yaw turns the short way, through ±π.
	if p, _, _ := r.At(1, tick+tick/2); !within9(p.Pos.X, 42) || math.Abs(math.Remainder(p.Yaw-3.2, 2*math.Pi)) > 1e-9 {
		t.Errorf("half way: %+v", p)
	}
}

// TestRewinderAllocs: recording and tracing known entities allocate
// nothing.
func TestRewinderAllocs(t *testing.T) {
	r := record(t, 64)
	// A Parts converted to a Body once: converting a slice to an
	// interface at every call would allocate.
	var circle lagcomp.Body = lagcomp.Parts{{Shape: lagcomp.Circle{R: 0.5}}}
	shot := geom.Ray{Origin: geom.V(0, -20, 0), Dir: geom.V(0, 1, 0)}
	k := uint32(64)
	if n := testing.AllocsPerRun(100, func() {
		r.Begin(k)
		r.Record(42, lagcomp.Pose{Pos: geom.V(1, 0, 0)}, circle)
		r.Trace(shot, 100, time.Duration(k)*tick-100*time.Millisecond, nil)
		k++
	}); n != 0 {
		t.Fatalf("%v allocations a tick", n)
	}
}

// TestStandalone: lag compensation imports no map code and no parser.
func TestStandalone(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/lagkit/lagkit/lagcomp").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.Contains(dep, "lagkit/world") || strings.Contains(dep, "toml") || strings.Contains(dep, "lagkit/nav") || strings.Contains(dep, "yaml") {
			t.Errorf("lagcomp imports %s", dep)
		}
	}
}

func BenchmarkRewinderTrace64(b *testing.B) {
	r, _ := lagcomp.NewRewinder(tick, time.Second, 64)
	var circle lagcomp.Body = lagcomp.Parts{{Shape: lagcomp.Circle{R: 0.5}}}
	for k := range 64 {
		r.Begin(uint32(k))
		for id := range 64 {
			r.Record(id, lagcomp.Pose{Pos: geom.V(float64(id%8)*5+float64(k)*0.05, float64(id/8)*5, 0)}, circle)
		}
	}
	shot := geom.Ray{Origin: geom.V(-10, 12, 0), Dir: geom.V(1, 0.01, 0).Norm()}
	b.ReportAllocs()
	for b.Loop() {
		r.Trace(shot, 200, 50*tick+tick/3, nil)
	}
}

// TestRewinderBodyChanges: an entity's body may change from tick to
// tick; a rewind tests the body recorded at the rewound time, between
// two ticks the nearer one's (as a client draws the nearer state's
// stance), whatever the body is now.
func TestRewinderBodyChanges(t *testing.T) {
	r, _ := lagcomp.NewRewinder(tick, time.Second, 1)
	var small, big lagcomp.Body = lagcomp.Parts{{Shape: lagcomp.Circle{R: 0.25}, Damage: 1}}, lagcomp.Parts{{Shape: lagcomp.Circle{R: 1}, Damage: 2}}
	for k := range uint32(4) {
		r.Begin(k)
		body := big
		if k >= 2 {
			body = small
		}
		r.Record(7, lagcomp.Pose{Pos: geom.V(10, 0, 0)}, body)
	}
	// 0.5 m beside the centre: inside the big circle, outside the small.
	shot := geom.Ray{Origin: geom.V(0, 0.5, 1), Dir: geom.V(1, 0, 0)}
	for _, c := range []struct {
		at  time.Duration
		hit bool
	}{{0, true}, {tick, true}, {tick + tick/4, true}, {tick + tick/2, false}, {tick + 3*tick/4, false}, {2 * tick, false}, {3 * tick, false}, {time.Second, false}} {
		h, ok := r.Trace(shot, 100, c.at, nil)
		if ok != c.hit || ok && (h.Damage != 2 || h.Body.Reach() != 1) {
			t.Errorf("at %v: hit %v (%+v), want %v on the big circle", c.at, ok, h, c.hit)
		}
	}
}

// TestRewinderAmend: an amended tick answers the new pose and body (or
// none), its neighbours and ticks the rewinder no longer holds stay as
// they were, and a new id takes a column as Record's would.
func TestRewinderAmend(t *testing.T) {
	r := record(t, 20)
	big := lagcomp.Parts{{Shape: lagcomp.Circle{R: 2}, Damage: 50}}
	at := func(n uint32) time.Duration { return time.Duration(n) * tick }
	if ok, err := r.Amend(15, 42, lagcomp.Pose{Pos: geom.V(9, 9, 0)}, big); !ok || err != nil {
		t.Fatalf("amend tick 15: %v, %v", ok, err)
	}
	if p, b, ok := r.At(42, at(15)); !ok || p.Pos != geom.V(9, 9, 0) || b.Reach() != big.Reach() {
		t.Errorf("tick 15 after its amendment: %v %v %v", p, b, ok)
	}
	if p, _, _ := r.At(42, at(14)); p.Pos.X != 5*14*tick.Seconds() {
		t.Errorf("tick 14 changed: %v", p.Pos)
	}
	if ok, _ := r.Amend(16, 42, lagcomp.Pose{}, nil); !ok {
		t.Fatal("amend tick 16 away")
	}
	if _, _, ok := r.At(42, at(16)); ok {
		t.Error("a body amended away at tick 16 is still there")
	}
	if ok, _ := r.Amend(25, 42, lagcomp.Pose{}, big); ok {
		t.Error("amended tick 25, not recorded yet")
	}
	if ok, err := r.Amend(17, 3, lagcomp.Pose{Pos: geom.V(1, 0, 0)}, big); !ok || err != nil {
		t.Fatalf("amend a new id: %v, %v", ok, err)
	}
	if h, ok := r.Trace(geom.Ray{Origin: geom.V(1, -5, 0), Dir: geom.V(0, 1, 0)}, 10, at(17), nil); !ok || h.ID != 3 {
		t.Errorf("the new id's amended body at tick 17: %+v, %v", h, ok)
	}
}

// TestRewinderTraceAmong: TraceAmong finds what Trace finds with every
// entity but those listed skipped: the nearest of them on the ray, none
// left out, none of the others, and none skip reports.
func TestRewinderTraceAmong(t *testing.T) {
	r, err := lagcomp.NewRewinder(tick, 100*time.Millisecond, 4)
	if err != nil {
		t.Fatal(err)
	}
	ball := lagcomp.Parts{{Shape: lagcomp.Sphere{R: 0.5}, Damage: 1}}
	r.Begin(1)
	for id, x := range map[int]float64{1: 2, 2: 4, 3: 6, 4: 8} {
		if err := r.Record(id, lagcomp.Pose{Pos: geom.V(x, 0, 0)}, ball); err != nil {
			t.Fatal(err)
		}
	}
	ray := geom.Ray{Origin: geom.V(0, 0, 0), Dir: geom.V(1, 0, 0)}
	skip3 := func(id int) bool { return id == 3 }
	for _, c := range []struct {
		ids  []int
		skip func(int) bool
		max  float64
		want int // 0: none
	}{
		{[]int{2, 4}, nil, 100, 2},
		{[]int{4, 3}, nil, 100, 3},
		{[]int{4, 3}, skip3, 100, 4},
		{[]int{3}, skip3, 100, 0},
		{[]int{4}, nil, 7, 0},
		{[]int{9, 4}, nil, 100, 4}, // 9 was never recorded
		{nil, nil, 100, 0},
	} {
		h, ok := r.TraceAmong(ray, c.max, tick, c.ids, c.skip)
		if got := map[bool]int{true: h.ID, false: 0}[ok]; got != c.want {
			t.Errorf("TraceAmong(%v, max %v) = %d, want %d", c.ids, c.max, got, c.want)
		}
		in := func(id int) bool { return !slices.Contains(c.ids, id) || c.skip != nil && c.skip(id) }
		if f, fok := r.Trace(ray, c.max, tick, in); fok != ok || ok && (f.ID != h.ID || f.Dist != h.Dist) {
			t.Errorf("TraceAmong(%v) = %v %v; Trace skipping the others %v %v", c.ids, h.ID, ok, f.ID, fok)
		}
	}
}
