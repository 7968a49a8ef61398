package lagcomp

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/lagkit/lagkit/geom"
)

// Pose is where an entity is: its body's origin, the yaw its body's X
// axis turns by (radians, counter-clockwise about +Z), and a teleport
// count that changes whenever the entity moves discontinuously, so that
// a rewound pose is never blended across the jump.
type Pose struct {
	Pos      geom.Vec3
	Yaw      float64
	Teleport uint8
}

// Rewinder is lag compensation for a game's own entities, usable in any
// server loop: it records each entity's pose and body every tick for a
// fixed span, answers where an entity was at a past server time
// (interpolated between the two ticks that straddle it), and traces a
// shot against the entities as they were then. A body may change from
// tick to tick (a class, a stance); a rewind tests the one recorded at
// the rewound time, restoring the past's shape with its pose, as Source
// moves a ducking player back ducked ([source]). Entities are named by
// the game's own ids; bodies are the game's own shapes (Body). It reads
// no clock and knows no map: a shot blocked by the world is traced with
// maxDist cut to the world's first hit, which the game works out.
//
// Recording and tracing allocate nothing once every id has been seen
// (the first Record of a new id adds it to a map), when each body is
// made a Body once and that value passed: converting a Parts slice to
// the interface at every call allocates.
type Rewinder struct {
	tickDur time.Duration
	slots   int
	cols    int
	col     map[int]int // entity id -> its column
	ids     []int       // id of each column's entity; -1: free
	ticks   []uint32    // tick held by each slot
	valid   []bool
	recs    []rewindRec // slots * cols
	newest  uint32
	has     bool
}

// rewindRec is one entity's record at one tick.
type rewindRec struct {
	id   int // the entity it is of (a column is reused by later ids)
	ok   bool
	pose Pose
	body Body
}

// RewindHit is a shot's hit on an entity as it was at the rewound time.
type RewindHit struct {
	ID int // the entity's id
	BodyHit
	// Point is the impact in world space, and Pose and Body the entity's
	// pose and body it was tested as: those it had at the rewound time,
	// which may not be its present ones (a player since crouched).
	Point geom.Vec3
	Pose  Pose
	Body  Body
}

// ErrRewinderFull is wrapped by the error Record returns for a new id
// when every column is held by an entity recorded within the span.
var ErrRewinderFull = errors.New("lagcomp: rewinder: no room for another entity")

// NewRewinder returns a Rewinder for a server ticking every tickDur that
// rewinds up to span, for up to maxEntities entities at a time.
func NewRewinder(tickDur, span time.Duration, maxEntities int) (*Rewinder, error) {
	if tickDur <= 0 || span < 0 || maxEntities < 1 || maxEntities > 1<<16 {
		return nil, fmt.Errorf("lagcomp: rewinder: tick %v, span %v, %d entities: want a positive tick, a span of 0 or more and 1 to 65536 entities", tickDur, span, maxEntities)
	}
	slots := int(span/tickDur) + 2
	if slots > 1<<14 {
		return nil, fmt.Errorf("lagcomp: rewinder: span %v holds %d ticks of %v, want at most %d", span, slots, tickDur, 1<<14)
	}
	r := &Rewinder{
		tickDur: tickDur, slots: slots, cols: maxEntities,
		col: make(map[int]int, maxEntities), ids: make([]int, maxEntities),
		ticks: make([]uint32, slots), valid: make([]bool, slots),
		recs: make([]rewindRec, slots*maxEntities),
	}
	for i := range r.ids {
		r.ids[i] = -1
	}
	return r, nil
}

// Begin starts recording tick, dropping the oldest tick held when the
// span is full. Ticks must increase.
func (r *Rewinder) Begin(tick uint32) {
	s := int(tick % uint32(r.slots))
	r.ticks[s], r.valid[s] = tick, true
	clear(r.recs[s*r.cols : (s+1)*r.cols])
	r.newest, r.has = tick, true
}

// Record records entity id at pose with body for the tick begun last.
// An entity not recorded at a tick is absent from it. A new id takes a
// column whose entity has no record left in the span.
func (r *Rewinder) Record(id int, pose Pose, body Body) error {
	if !r.has {
		return errors.New("lagcomp: rewinder: Record before Begin")
	}
	if body == nil {
		return fmt.Errorf("lagcomp: rewinder: entity %d has no body", id)
	}
	c, ok := r.col[id]
	if !ok {
		if c, ok = r.freeColumn(); !ok {
			return fmt.Errorf("entity %d: %w", id, ErrRewinderFull)
		}
		if old := r.ids[c]; old >= 0 {
			delete(r.col, old)
		}
		r.ids[c] = id
		r.col[id] = c
	}
	s := int(r.newest % uint32(r.slots))
	r.recs[s*r.cols+c] = rewindRec{id: id, ok: true, pose: pose, body: body}
	return nil
}

// freeColumn returns a column no record in the span belongs to.
func (r *Rewinder) freeColumn() (int, bool) {
	for c := range r.cols {
		if r.ids[c] < 0 {
			return c, true
		}
	}
	for c := range r.cols {
		used := false
		for s := 0; s < r.slots && !used; s++ {
			used = r.valid[s] && r.recs[s*r.cols+c].ok
		}
		if !used {
			return c, true
		}
	}
	return 0, false
}

// record returns entity column c's record at tick n.
func (r *Rewinder) record(c int, n uint32) *rewindRec {
	s := int(n % uint32(r.slots))
	if !r.valid[s] || r.ticks[s] != n || n > r.newest {
		return nil
	}
	if rec := &r.recs[s*r.cols+c]; rec.ok {
		return rec
	}
	return nil
}

// at returns the pose and body of column c's entity id at server time t.
func (r *Rewinder) at(c, id int, t time.Duration) (Pose, Body, bool) {
	if !r.has || t < 0 {
		return Pose{}, nil, false
	}
	n64 := int64(t / r.tickDur)
	if n64 >= int64(r.newest) {
		if a := r.record(c, r.newest); a != nil && a.id == id {
			return a.pose, a.body, true
		}
		return Pose{}, nil, false
	}
	n := uint32(n64)
	a := r.record(c, n)
	if a == nil || a.id != id {
		return Pose{}, nil, false
	}
	frac := float64(t%r.tickDur) / float64(r.tickDur)
	if frac == 0 {
		return a.pose, a.body, true
	}
	b := r.record(c, n+1)
	if b == nil || b.id != id {
		return Pose{}, nil, false
	}
	// A body is discrete, as a stance or a class is: the nearer record's,
	// as a client interpolating between two states draws the nearer
	// one's flags and values (game.Interpolate), so that the shot is
	// tested against the body its shooter saw.
	near := a
	if frac >= 0.5 {
		near = b
	}
	if a.pose.Teleport != b.pose.Teleport {
		return near.pose, near.body, true
	}
	dy := math.Remainder(b.pose.Yaw-a.pose.Yaw, 2*math.Pi)
	p := Pose{Pos: a.pose.Pos.Lerp(b.pose.Pos, frac), Yaw: a.pose.Yaw + dy*frac, Teleport: a.pose.Teleport}
	return p, near.body, true
}

// At returns entity id's pose and body at server time t, interpolated
// between the records of the two ticks that straddle it (the body is the
// nearer record's, as it was recorded then, whatever the entity's body
// is now; across a teleport, the nearer record's pose too). A time
// after the newest tick answers the newest record. It reports false when
// t is older than the span or negative, or the entity was absent then.
func (r *Rewinder) At(id int, t time.Duration) (Pose, Body, bool) {
	c, ok := r.col[id]
	if !ok {
		return Pose{}, nil, false
	}
	return r.at(c, id, t)
}

// Trace returns the first entity, other than those skip reports (nil:
// none), that ray rr (Dir a unit vector) hits within maxDist as the
// entities were at server time t. The broad phase rules out an entity
// whose body's Reach the ray passes outside of (measured across the
// ground plane, so that a 2D game's circles are found whatever the
// ray's height); the entities left are tested in their own frames.
func (r *Rewinder) Trace(rr geom.Ray, maxDist float64, t time.Duration, skip func(id int) bool) (RewindHit, bool) {
	best, hit := RewindHit{}, false
	limit := maxDist
	for c := range r.cols {
		id := r.ids[c]
		if id < 0 || skip != nil && skip(id) {
			continue
		}
		r.nearer(c, id, rr, t, &limit, &best, &hit)
	}
	return best, hit
}

// TraceAmong is Trace over the entities ids alone: the first of them,
// other than those skip reports, that ray rr hits within maxDist as they
// were at server time t. It costs nothing per entity left out, so that
// testing a ray against a few entities that changed is cheap.
func (r *Rewinder) TraceAmong(rr geom.Ray, maxDist float64, t time.Duration, ids []int, skip func(id int) bool) (RewindHit, bool) {
	best, hit := RewindHit{}, false
	limit := maxDist
	for _, id := range ids {
		c, ok := r.col[id]
		if !ok || r.ids[c] != id || skip != nil && skip(id) {
			continue
		}
		r.nearer(c, id, rr, t, &limit, &best, &hit)
	}
	return best, hit
}

// nearer tests ray rr against column c's entity id as it was at t, and
// makes a hit nearer than *limit the best.
func (r *Rewinder) nearer(c, id int, rr geom.Ray, t time.Duration, limit *float64, best *RewindHit, hit *bool) {
	pose, body, ok := r.at(c, id, t)
	if !ok || !reachable(rr, *limit, pose.Pos, body.Reach()) {
		return
	}
	local := toLocal(rr, pose)
	bh, ok := body.Raycast(local, *limit)
	if !ok || *hit && bh.Dist >= best.Dist {
		return
	}
	*best = RewindHit{ID: id, BodyHit: bh, Point: rr.At(bh.Dist), Pose: pose, Body: body}
	*hit, *limit = true, bh.Dist
}

// reachable reports whether ray rr comes within reach of pos across the
// ground plane before maxDist.
func reachable(rr geom.Ray, maxDist float64, pos geom.Vec3, reach float64) bool {
	mx, my := rr.Origin.X-pos.X, rr.Origin.Y-pos.Y
	dx, dy := rr.Dir.X, rr.Dir.Y
	a := dx*dx + dy*dy
	tc := 0.0
	if a > 0 {
		tc = min(max(-(mx*dx+my*dy)/a, 0), maxDist)
	}
	lx, ly := mx+dx*tc, my+dy*tc
	return lx*lx+ly*ly <= reach*reach*(1+1e-9)+1e-12
}

// ToWorld returns point local, in the frame of an entity at p (origin at
// its position, X along its yaw), in world space: where the spot a hit
// found on its body (BodyHit.Local) lies on the entity at p.
func (p Pose) ToWorld(local geom.Vec3) geom.Vec3 {
	if p.Yaw == 0 {
		return p.Pos.Add(local)
	}
	s, c := math.Sincos(p.Yaw)
	return p.Pos.Add(geom.V(c*local.X-s*local.Y, s*local.X+c*local.Y, local.Z))
}

// toLocal returns ray rr in the frame of an entity at pose.
func toLocal(rr geom.Ray, pose Pose) geom.Ray {
	o := rr.Origin.Sub(pose.Pos)
	if pose.Yaw == 0 {
		return geom.Ray{Origin: o, Dir: rr.Dir}
	}
	s, c := math.Sincos(-pose.Yaw)
	turn := func(v geom.Vec3) geom.Vec3 { return geom.V(c*v.X-s*v.Y, s*v.X+c*v.Y, v.Z) }
	return geom.Ray{Origin: turn(o), Dir: turn(rr.Dir)}
}
