package server

import (
	"github.com/lagkit/lagkit/game"
)

// Time warp's pruning: what of a re-simulated tick can be seen to stand
// as recorded without judging it again.
//
// A shot or projectile of an unaffected player changes only if an
// affected player comes in its way (timewarp.go), so it is first tested
// against the box around the affected players' hitboxes in the tick,
// which the Warp keeps (timewarp.Warp.NearAffected, BlastNearAffected,
// PathNearAffected, from the spheres timeWarp.Bound gives): a ray or
// segment that stays outside it cannot meet them, and a blast whose
// radius does not reach it cannot hurt them. Only those that come near
// are traced against the affected players, and a shot an affected
// player may have come into is traced against the players whose sphere
// it passes near (timewarp.Warp.Near).
//
// A tick whose projectiles are the recorded ones and all stand (none
// meets an affected player, none has a recorded hit on one) keeps its
// recorded flights as they are: their recorded damage is dealt again
// and nothing else is done. Likewise its shots, when no stepped player
// fires or fired in it and each recorded pellet stands. A warp whose
// late player touches nobody thus costs, in most ticks, one box test per
// shot and projectile, and nothing per unaffected player: their states
// stay in the record (timewarp.Warp.State) and are only copied once
// damage in the tick changes them.
//
// Every shortcut gives the answer the judging it skips would give:
// TestTimeWarpPruningIsExact compares warps with timewarp.Warp.Exhaustive
// set, which judges every shot and projectile one by one.

// hitsA reports whether any of hits is on an affected player.
func (r *warpRun) hitsA(hits []warpHit) bool {
	for i := range hits {
		if r.w.d.Span.Affected(hits[i].victim) {
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
	if w.d.Exhaustive || !w.flyRec {
		return false
	}
	prev, _ := w.entry(r.t - 1)
	flying, flights, paths := prev.Lists.flying, r.orig.flights, r.orig.paths
	if len(flying) != len(flights) || len(paths) != len(flights) {
		return false
	}
	tested, full := 0, false
	for k := range paths {
		pa := &paths[k]
		if !pa.Full && !w.d.PathNearAffected(pa) {
			tested += len(w.d.Span.AffectedSlots())
			continue
		}
		full = true
		n, ok := r.flightStands(&flying[k], &flights[k])
		if !ok {
			return false
		}
		tested += n
	}
	w.d.Stats.Tested += tested
	if full {
		for k := range flights {
			if paths[k].Full {
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
	case r.rec.Owner[p.shooter] != p.owner || f.direct.Victim >= 0 && w.d.Span.Affected(f.direct.Victim) || r.hitsA(old):
		return 0, false
	}
	ray, seg := s.segment(p)
	limit := seg
	if f.hit {
		limit = f.dist
	}
	tested = len(w.d.Span.AffectedSlots())
	if r.w.d.NearAffected(ray, limit) {
		if _, hit := s.firstPlayer(r, ray, limit, p.shooter, w.d.Span.AffectedSlots()); hit {
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
	near := r.w.d.BlastNearAffected(centre, p.weapon.SplashRadius)
	for _, id := range w.d.Span.AffectedSlots() {
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
	if !r.keep.shots || !r.keep.flights || !w.weapons && len(r.orig.shots) > 0 {
		// A game's resolver chooses its rays itself: its shots are
		// fired again.
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
			case op.victim >= 0 && w.d.Span.Affected(op.victim) || r.hitsA(old):
				return false
			}
			limit := op.reach
			if op.victim >= 0 {
				limit = op.dist
			}
			tested += len(w.d.Span.AffectedSlots())
			if r.w.d.NearAffected(op.ray, limit) {
				if _, ok := s.firstPlayer(r, op.ray, limit, sh.shooter, w.d.Span.AffectedSlots()); ok {
					return false
				}
			}
		}
	}
	w.d.Stats.Tested += tested
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
		w.fly = append(w.fly[:0], prev.Lists.flying...)
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
