package server

import (
	"math"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
)

// Time warp's pruning: what of a re-simulated tick can be seen to stand
// as recorded without judging it again.
//
// A shot or projectile of an unaffected player changes only if an
// affected player comes in its way (timewarp.go), so it is first tested
// against the box around the affected players' hitboxes in the tick
// (reach): a ray or segment that stays outside it cannot meet them, and
// a blast whose radius does not reach it cannot hurt them. Only those
// that come near are traced against the affected players.
//
// A tick whose projectiles are the recorded ones and all stand (none
// meets an affected player, none has a recorded hit on one) keeps its
// recorded flights as they are: their recorded damage is dealt again
// and nothing else is done. Likewise its shots, when no stepped player
// fires or fired in it and each recorded pellet stands. A warp whose
// late player touches nobody thus costs, in most ticks, one box test per
// shot and projectile, and nothing per unaffected player: their states
// stay in the record (warpRun.state) and are only copied once damage in
// the tick changes them.
//
// Every shortcut gives the answer the judging it skips would give:
// TestTimeWarpPruningIsExact compares warps with timeWarp.exhaustive
// set, which judges every shot and projectile one by one.

// reachMargin widens the box around the affected players' hitboxes,
// against rounding.
const reachMargin = 0.01

// flightPath is what pruning needs of a recorded flight: the box around
// the segment a projectile flew without contact, or full: the flight
// ended (a contact, its range, its owner gone) and is looked at in full.
type flightPath struct {
	lo, hi geom.Vec3
	full   bool
}

// pathOf returns the path of a flight along ray, seg long; full: it
// ended.
func pathOf(ray geom.Ray, seg float64, full bool) flightPath {
	if full {
		return flightPath{full: true}
	}
	a, b := ray.Origin, ray.Origin.AddScaled(ray.Dir, seg)
	return flightPath{
		lo: geom.Vec3{X: min(a.X, b.X), Y: min(a.Y, b.Y), Z: min(a.Z, b.Z)},
		hi: geom.Vec3{X: max(a.X, b.X), Y: max(a.Y, b.Y), Z: max(a.Z, b.Z)},
	}
}

// reachAll sets the box around the affected players' hitboxes for the
// tick being re-simulated.
func (r *warpRun) reachAll() {
	r.w.reachOK = false
	for _, i := range r.w.aList {
		r.reachAdd(i)
	}
}

// reachAdd grows the box to hold slot i's hitboxes: the sphere
// lagcomp.TracePlayer tests first, and the torso the splash is measured
// to.
func (r *warpRun) reachAdd(i int) {
	w := r.w
	if r.rec.owner[i] == nil {
		return // neither traced nor hurt
	}
	p := r.s.cfg.Movement
	m := p.Radius + p.Height/2 + reachMargin
	c := r.state(i).Pos.Add(geom.Vec3{Z: p.Height / 2})
	b := geom.AABB{Min: c.Sub(geom.Vec3{X: m, Y: m, Z: m}), Max: c.Add(geom.Vec3{X: m, Y: m, Z: m})}
	if w.reachOK {
		b.Min = geom.Vec3{X: min(b.Min.X, w.reach.Min.X), Y: min(b.Min.Y, w.reach.Min.Y), Z: min(b.Min.Z, w.reach.Min.Z)}
		b.Max = geom.Vec3{X: max(b.Max.X, w.reach.Max.X), Y: max(b.Max.Y, w.reach.Max.Y), Z: max(b.Max.Z, w.reach.Max.Z)}
	}
	w.reach, w.reachOK = b, true
}

// nearA reports whether ray, up to maxDist, may meet an affected player:
// if not, tracing it against them finds nothing. A ray that is not
// finite is always near.
func (r *warpRun) nearA(ray geom.Ray, maxDist float64) bool {
	w := r.w
	if w.exhaustive {
		return true
	}
	if !w.reachOK {
		return false
	}
	return w.meetsReach(pathOf(ray, maxDist, false))
}

// meetsReach reports whether path's box meets the affected players'
// (reachOK set). A box that is not finite always does.
func (w *timeWarp) meetsReach(p flightPath) bool {
	lo, hi := w.reach.Min, w.reach.Max
	return !(p.hi.X < lo.X || p.lo.X > hi.X ||
		p.hi.Y < lo.Y || p.lo.Y > hi.Y ||
		p.hi.Z < lo.Z || p.lo.Z > hi.Z)
}

// near returns the slots, ascending, whose hitboxes ray may meet within
// maxDist: those whose bounding sphere (the one lagcomp.TracePlayer
// tests first, widened) comes within reach of the segment. It returns
// nil, everyone, when pruning is off or the ray is not finite.
func (r *warpRun) near(ray geom.Ray, maxDist float64) []int {
	w := r.w
	d, o := ray.Dir, ray.Origin
	dd := d.Dot(d)
	if w.exhaustive || !(dd > 0) || !o.IsFinite() || !d.IsFinite() || math.IsNaN(maxDist) {
		return nil
	}
	p := r.s.cfg.Movement
	lift := p.Height / 2
	rad := p.Radius + p.Height/2 + reachMargin
	rr := rad * rad
	ids := w.cands[:0]
	for i, owner := range r.rec.owner {
		if owner == nil {
			continue
		}
		c := r.state(i).Pos
		c.Z += lift
		v := c.Sub(o)
		t := min(max(v.Dot(d)/dd, 0), maxDist)
		if !(v.Sub(d.Scale(t)).Len2() > rr) {
			ids = append(ids, i)
		}
	}
	w.cands = ids
	return ids
}

// blastNearA reports whether a blast of radius at centre may reach an
// affected player's torso.
func (r *warpRun) blastNearA(centre geom.Vec3, radius float64) bool {
	w := r.w
	if w.exhaustive {
		return true
	}
	if !w.reachOK {
		return false
	}
	lo, hi := w.reach.Min, w.reach.Max
	d := geom.Vec3{
		X: max(lo.X-centre.X, 0, centre.X-hi.X),
		Y: max(lo.Y-centre.Y, 0, centre.Y-hi.Y),
		Z: max(lo.Z-centre.Z, 0, centre.Z-hi.Z),
	}
	return !(d.Len() >= radius) // NaN: near
}

// hitsA reports whether any of hits is on an affected player.
func (r *warpRun) hitsA(hits []warpHit) bool {
	for i := range hits {
		if r.w.inA[hits[i].victim] {
			return true
		}
	}
	return false
}

// cleanFlights keeps the tick's recorded flights when they all stand
// (see above): it deals their recorded damage again and reports true;
// else it changes nothing. A flight that flew on without contact, along
// a path clear of the affected players, is passed by its path alone.
func (r *warpRun) cleanFlights() bool {
	w := r.w
	if w.exhaustive || !w.flyRec {
		return false
	}
	prev, _ := w.entry(r.t - 1)
	flying, flights, paths := prev.flying, r.orig.flights, r.orig.paths
	if len(flying) != len(flights) || len(paths) != len(flights) {
		return false
	}
	tested, full := 0, false
	for k := range paths {
		pa := &paths[k]
		if !pa.full && (!w.reachOK || !w.meetsReach(*pa)) {
			tested += len(w.aList)
			continue
		}
		full = true
		n, ok := r.flightStands(&flying[k], &flights[k])
		if !ok {
			return false
		}
		tested += n
	}
	w.stats.Tested += tested
	if full {
		for k := range flights {
			if paths[k].full {
				r.redeal(r.orig.hits[flights[k].h0:flights[k].h1])
			}
		}
	}
	r.keep.flights = true
	return true
}

// flightStands reports whether recorded flight f of projectile p stands
// (see above), and how many players judging it would test.
func (r *warpRun) flightStands(p *projectile, f *warpFlight) (tested int, ok bool) {
	w, s := r.w, r.s
	old := r.orig.hits[f.h0:f.h1]
	switch {
	case f.id != p.id || p.id > w.idBase:
		return 0, false
	case r.keeps(old):
		return 0, true
	case r.rec.owner[p.shooter] != p.owner || f.direct.Victim >= 0 && w.inA[f.direct.Victim] || r.hitsA(old):
		return 0, false
	}
	ray, seg := s.segment(p)
	limit := seg
	if f.hit {
		limit = f.dist
	}
	tested = len(w.aList)
	if r.nearA(ray, limit) {
		if _, hit := s.firstPlayer(r, ray, limit, p.shooter, w.aList); hit {
			return 0, false
		}
	}
	if !f.hit {
		pos := ray.At(seg)
		flies := p.left-seg > 1e-9 && s.cfg.Map.Bounds.Contains(pos)
		return tested, flies != f.ended
	}
	if !f.ended {
		return 0, false
	}
	centre := f.centre(ray)
	near := r.blastNearA(centre, p.weapon.SplashRadius)
	for _, id := range w.aList {
		if !r.hittable(p.shooter, id) {
			continue
		}
		tested++
		if near && s.splash(p.weapon, centre, *r.state(id)) > 0 {
			return 0, false
		}
	}
	return tested, true
}

// redeal deals a kept pellet's or flight's recorded hits again, as
// settling them against themselves does.
func (r *warpRun) redeal(hits []warpHit) {
	if r.keeps(hits) {
		r.replay(hits)
		return
	}
	for i := range hits {
		r.hurt(&hits[i])
	}
}

// cleanShots keeps the tick's recorded shots, pellets and hits when they
// all stand (see above), after cleanFlights kept the flights: it deals
// the pellets' recorded damage again and reports true; else it changes
// nothing.
func (r *warpRun) cleanShots() bool {
	w, s := r.w, r.s
	if !r.keep.shots || !r.keep.flights {
		return false
	}
	tested := 0
	for k := range r.orig.shots {
		sh := &r.orig.shots[k]
		if sh.void {
			continue
		}
		wp := &s.cfg.Weapons[sh.state.Weapon]
		if sh.p1-sh.p0 != wp.Pellets {
			return false
		}
		if wp.Kind == game.Projectile {
			continue // launched as recorded: the projectiles in flight are
		}
		for i := sh.p0; i < sh.p1; i++ {
			op := &r.orig.pellets[i]
			old := r.orig.hits[op.h0:op.h1]
			switch {
			case r.keeps(old):
				continue
			case op.victim >= 0 && w.inA[op.victim] || r.hitsA(old):
				return false
			}
			limit := op.reach
			if op.victim >= 0 {
				limit = op.dist
			}
			tested += len(w.aList)
			if r.nearA(op.ray, limit) {
				if _, ok := s.firstPlayer(r, op.ray, limit, sh.shooter, w.aList); ok {
					return false
				}
			}
		}
	}
	w.stats.Tested += tested
	for k := range r.orig.shots {
		sh := &r.orig.shots[k]
		if sh.void || s.cfg.Weapons[sh.state.Weapon].Kind == game.Projectile {
			continue
		}
		for i := sh.p0; i < sh.p1; i++ {
			op := &r.orig.pellets[i]
			r.redeal(r.orig.hits[op.h0:op.h1])
		}
	}
	r.keep.pellets, r.keep.hits = true, true
	return true
}

// flyRecorded fills in the projectiles in flight from the record when
// they are the recorded ones: those of the previous tick at its start
// (flights not yet resolved), and those that flew on once the tick's
// recorded flights are kept.
func (r *warpRun) flyRecorded() {
	w := r.w
	if !w.flyRec {
		return
	}
	w.flyRec = false
	if r.keep.flights {
		n := 0
		for k := range r.orig.flights {
			if !r.orig.flights[k].ended {
				n++
			}
		}
		w.fly = append(w.fly[:0], r.orig.flying[:n]...)
	} else {
		prev, _ := w.entry(r.t - 1)
		w.fly = append(w.fly[:0], prev.flying...)
	}
	w.flyNew = w.flyNew[:0]
	for range w.fly {
		w.flyNew = append(w.flyNew, false)
	}
}

// flyingAsRecorded reports whether the projectiles in flight after the
// tick are the ones it recorded, unchanged.
func (r *warpRun) flyingAsRecorded() bool {
	w := r.w
	if len(w.fly) != len(r.orig.flying) {
		return false
	}
	for i := range w.fly {
		if w.flyNew[i] || w.fly[i] != r.orig.flying[i] {
			return false
		}
	}
	return true
}

// flightHits returns how many of the tick's recorded hits its flights
// dealt (they come first).
func (r *warpRun) flightHits() int {
	if n := len(r.orig.flights); n > 0 {
		return r.orig.flights[n-1].h1
	}
	return 0
}
