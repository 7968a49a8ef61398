package server

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
	near := r.w.d.BlastNearAffected(centre, p.shell.SplashRadius)
	for _, id := range w.d.Span.AffectedSlots() {
		if !r.hittable(p.shooter, id) {
			continue
		}
		tested++
		if near && s.splash(&p.shell, centre, *r.state(id)) > 0 {
			return 0, false
		}
	}
	return tested, true
}

// hitscanStands reports whether recorded hitscan pellet op of lagkit's
// weapons, fired by shooter along its recorded ray, stands: it damaged
// a settled player, or its recorded victim is not affected and no
// affected player now lies on its ray before where it stopped. It
// returns how many players it tested.
func (r *warpRun) hitscanStands(op *warpPellet, shooter int) (int, bool) {
	w := r.w
	old := r.orig.hits[op.h0:op.h1]
	switch {
	case r.keeps(old):
		return 0, true
	case op.victim >= 0 && w.d.Span.Affected(op.victim) || r.hitsA(old):
		return 0, false
	}
	limit := op.reach
	if op.victim >= 0 {
		limit = op.dist
	}
	if w.d.NearAffected(op.ray, limit) {
		if _, ok := r.s.firstPlayer(r, op.ray, limit, shooter, w.d.Span.AffectedSlots()); ok {
			return 0, false
		}
	}
	return len(w.d.Span.AffectedSlots()), true
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
	w := r.w
	if !r.keep.shots || !r.keep.flights {
		return false
	}
	tested, stood := 0, 0
	for k := range r.orig.shots {
		sh := &r.orig.shots[k]
		if sh.void {
			continue
		}
		if sh.unjudged() {
			return false
		}
		// Its recorded rays stand as recorded when its shooter was not
		// stepped again; its projectiles were launched as recorded, the
		// flights kept.
		n, ok := r.raysStand(sh, r.orig.pellets[sh.p0:sh.p1], true)
		if !ok {
			return false
		}
		tested += n
		stood++
	}
	w.d.Stats.Tested += tested
	w.d.Stats.Stood += stood
	for k := range r.orig.shots {
		sh := &r.orig.shots[k]
		if sh.void {
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

// A resolver (Config.Shots: lagkit's shooter's weapons as a game's)
// chooses its rays itself, from the shot and the world it is handed,
// and registers what they met. The rays a recorded shot traced are
// those the resolver would trace again when the shot is the recorded
// one (its shooter was not stepped again) and every ray met what it met
// before: each recorded ray stands unless its
// recorded victim is affected or an affected player's body now lies on
// it before where it stopped. Such a shot stands as recorded (shotStands,
// or a tick's cleanShots) and is not handed to the resolver again: its
// pellets are re-recorded as they were and their hits dealt again, as
// Hit settling a hit against itself does, and what the resolver did
// with its hits (an entity's damage, the game's counters) stands, as
// when Hit reports nothing new. So a game pays for re-simulating a shot
// only where something that shot could see changed.

// raysStand reports whether the recorded rays old of a game's shot sh
// stand as recorded (see above), and how many players testing them took.
func (r *warpRun) raysStand(sh *warpShot, old []warpPellet, launched bool) (tested int, ok bool) {
	w := r.w
	if w.d.Exhaustive || w.d.Stepped(sh.shooter) {
		return 0, false
	}
	for i := range old {
		n, ok := r.rayStands(&old[i], sh.shooter, launched)
		tested += n
		if !ok {
			return tested, false
		}
	}
	return tested, true
}

// rayStands reports whether recorded ray op of a game's shot by shooter,
// whose shooter was not stepped again, stands as recorded: it damaged a
// settled player (whose hit stands anyway), or its recorded victim is
// not an affected player and no affected player's body lies on it before
// the point it stopped at (its victim's or its reach). A ray traced
// through lagkit's humanoid players is tested against their hitboxes
// (hitscanStands); a projectile launched stands when launched (the
// tick's flights are kept), else it is launched again. It returns how
// many players it tested.
func (r *warpRun) rayStands(op *warpPellet, shooter int, launched bool) (int, bool) {
	switch op.kind {
	case pelletHitscan:
		return r.hitscanStands(op, shooter)
	case pelletLaunch:
		return 0, launched
	}
	w := r.w
	hits := r.orig.hits[op.h0:op.h1]
	if r.keeps(hits) {
		return 0, true
	}
	if op.victim >= 0 && op.victim < len(r.rec.Owner) && w.d.Span.Affected(op.victim) || r.hitsA(hits) {
		return 0, false
	}
	aff := w.d.Span.AffectedSlots()
	if len(aff) == 0 || r.s.rewind == nil {
		return len(aff), true
	}
	limit := op.reach
	if op.victim >= 0 {
		limit = op.dist
	}
	w.standShooter = shooter
	_, met := r.s.rewind.TraceAmong(op.ray, limit, r.now, aff, w.standSkip)
	return len(aff), !met
}

// passes reports whether a recorded ray of a game's shot by
// standShooter passes player id in the tick being re-run, as
// ShotWorld.Trace passes it there.
func (w *timeWarp) passes(id int) bool {
	return id == w.standShooter || !w.run.hittable(w.standShooter, id)
}

// shotStands lets a game's recorded shot sh stand as recorded (see
// above) when its rays old do: it re-records them, deals their hits
// again and reports true; else it changes nothing.
func (r *warpRun) shotStands(sh *warpShot, old []warpPellet, owner *client) bool {
	w := r.w
	tested, ok := r.raysStand(sh, old, false)
	w.d.Stats.Tested += tested
	if !ok {
		return false
	}
	for i := range old {
		np := old[i]
		hits := r.orig.hits[np.h0:np.h1]
		np.h0 = len(r.out.hits)
		r.out.hits = append(r.out.hits, hits...)
		np.h1 = len(r.out.hits)
		if r.keeps(hits) {
			r.replay(hits)
		} else {
			for k := np.h0; k < np.h1; k++ {
				r.hurt(&r.out.hits[k])
			}
		}
		r.out.pellets = append(r.out.pellets, np)
	}
	owner.shotsFired += len(old)
	w.d.Stats.Stood++
	return true
}
