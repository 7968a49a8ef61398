package server

import (
	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/lagcomp"
	"github.com/lagkit/lagkit/timewarp"
	"github.com/lagkit/lagkit/wire"
)

// Time warp's judging: resolving a re-simulated tick's projectiles and
// shots by the rules of fire.go, as the live tick did, and settling each
// outcome against what the tick recorded before: only what differs is
// news (damage given or taken back, events, records, counters).

// keeps reports whether recorded hits damaged a settled player: the
// outcome then stands as recorded.
func (r *warpRun) keeps(hits []warpHit) bool {
	for i := range hits {
		if r.w.d.Span.Settled(hits[i].victim) {
			return true
		}
	}
	return false
}

// replay applies recorded hits again, as they were, telling nobody.
func (r *warpRun) replay(hits []warpHit) {
	for i := range hits {
		h := hits[i]
		r.hurt(&h)
	}
}

func same(a, b *warpHit) bool {
	return a.victim == b.victim && a.part == b.part && a.damage == b.damage
}

// settle applies the hits of one pellet or projectile contact, now, to
// the tick's states, and tells and counts those that differ from its
// recorded hits old. Hits on the same
// victim and part for the same damage are the same hit, told before. A
// victim whose damage changed joins the affected set. It reports whether
// anything differed.
func (r *warpRun) settle(shooter *client, old, now []warpHit) bool {
	differ := len(old) != len(now)
	for i := range now {
		if i < len(old) && same(&old[i], &now[i]) {
			r.hurt(&now[i])
		} else {
			differ = true
		}
	}
	if !differ {
		return false
	}
	for i := range old {
		if i < len(now) && same(&old[i], &now[i]) {
			continue
		}
		r.join(old[i].victim)
		if v := r.rec.Owner[old[i].victim]; v != nil {
			v.hitsTaken--
		}
	}
	for i := range now {
		if i < len(old) && same(&old[i], &now[i]) {
			continue
		}
		h := &now[i]
		pose := *r.state(h.victim)
		r.join(h.victim)
		if v := r.rec.Owner[h.victim]; v != nil {
			v.hitsTaken++
			if r.s.clients[h.victim] == v {
				r.s.sendHit(v, &h.hitInfo, 0, 0)
			}
		}
		r.hurt(h)
		if shooter != nil && r.s.clients[shooter.id] == shooter {
			r.s.confirm(shooter, &h.hitInfo, h.damage, wire.OutcomeRegistered)
		}
		r.s.showTested(&h.hitInfo, pose, r.s.Time()-r.now)
	}
	return true
}

// hurt takes h's damage from its victim's state in the tick. A kill of a
// connected player who is not settled is announced (in a re-simulation
// such a death is always news: a death announced before would have
// settled the player) and becomes the slot's newest death.
func (r *warpRun) hurt(h *warpHit) {
	st := r.own(h.victim)
	h.kill = false
	if st.Has(game.FlagDead) {
		return
	}
	st.Health -= r.s.lost(h.victim, st, h.damage)
	if st.Health > 0 {
		return
	}
	h.kill = true
	v := r.rec.Owner[h.victim]
	if v == nil || r.s.clients[h.victim] != v || r.w.d.Span.Settled(h.victim) {
		r.s.died(h.victim, st)
		return
	}
	// kill works on the live state: lend it the tick's.
	live := v.state
	v.state = *st
	r.s.kill(r.now, h.shooter, h.victim)
	*st, v.state = v.state, live
	r.w.d.Deaths.Announce(h.victim, v, r.t)
}

// flights flies every projectile in flight through the tick, in launch
// order, as moveProjectiles does; recorded flights no projectile flies
// any more are undone.
func (r *warpRun) flights() {
	w := r.w
	w.fly2, w.flyNew2 = w.fly2[:0], w.flyNew2[:0]
	orig := r.orig.flights
	cursor := 0
	for i := range w.fly {
		p := w.fly[i]
		changed := w.flyNew[i]
		var f *warpFlight
		if p.id <= w.idBase {
			// Projectiles keep their launch order, so the record's
			// flights are met in order; those passed are gone.
			for k := cursor; k < len(orig); k++ {
				if orig[k].id == p.id {
					for j := cursor; j < k; j++ {
						r.vanish(&orig[j])
					}
					f, cursor = &orig[k], k+1
					break
				}
			}
		}
		ray, seg := r.s.segment(&p)
		flies := r.flight(&p, f, changed)
		r.out.paths = append(r.out.paths, timewarp.PathOf(ray, seg, !flies))
		if flies {
			w.fly2 = append(w.fly2, p)
			w.flyNew2 = append(w.flyNew2, changed || f == nil || f.ended)
		}
	}
	for k := cursor; k < len(orig); k++ {
		r.vanish(&orig[k])
	}
	w.fly, w.fly2 = w.fly2, w.fly
	w.flyNew, w.flyNew2 = w.flyNew2, w.flyNew
}

// vanish undoes a recorded flight that no projectile flies any more.
func (r *warpRun) vanish(f *warpFlight) {
	if r.settle(nil, r.orig.hits[f.h0:f.h1], nil) && f.owner != nil {
		f.owner.hitsLanded--
	}
	r.rejudged(f, nil)
}

// rejudged reports whether a flight's outcome is news: one that differs
// from the recorded flight f (counted), or has none.
func (r *warpRun) rejudged(f, now *warpFlight) bool {
	if f != nil && now != nil && f.ended == now.ended && f.hit == now.hit &&
		f.direct.Victim == now.direct.Victim && f.direct.Part == now.direct.Part && f.dist == now.dist {
		return false
	}
	if f != nil {
		r.w.d.Stats.Rejudged++
	}
	return true
}

// flight flies p through the tick; f is its recorded flight (nil: none)
// and changed whether p differs from the recorded projectile. It reports
// whether p flies on.
func (r *warpRun) flight(p *projectile, f *warpFlight, changed bool) bool {
	s := r.s
	var old []warpHit
	if f != nil {
		old = r.orig.hits[f.h0:f.h1]
		if r.keeps(old) {
			r.replay(old)
			r.add(*f, old)
			return false
		}
	}
	fl := warpFlight{id: p.id, owner: p.owner, contact: noContact(), ended: true}
	if r.rec.Owner[p.shooter] != p.owner {
		r.miss(p, f, &fl, old)
		return false
	}
	ray, seg := s.segment(p)
	cheap := f != nil && !changed && (f.direct.Victim < 0 || !r.w.d.Span.Affected(f.direct.Victim))
	if cheap {
		// The same segment as recorded: only the affected players can
		// have come in its way.
		fl.contact = f.contact
		if !f.hit {
			fl.dist = seg
		}
		if h, ok := r.trace(ray, fl.dist, p.shooter, r.w.d.Span.AffectedSlots()); ok {
			fl.meet(h)
		}
	} else {
		fl.contact = s.worldContact(p, ray, seg)
		if h, ok := r.trace(ray, fl.dist, p.shooter, nil); ok {
			fl.meet(h)
		}
	}
	if !fl.hit {
		if s.advance(p, ray, seg) {
			fl.ended = false
			r.landed(p.owner, old, r.add(fl, nil))
			return true
		}
		r.miss(p, f, &fl, old)
		return false
	}
	centre := fl.centre(ray)
	unmoved := cheap && f.hit && fl.direct.Victim == f.direct.Victim && fl.dist == f.dist
	hits := r.add(fl, r.explosion(p, centre, &fl.direct, unmoved, old))
	differ := r.landed(p.owner, old, hits)
	if !r.rejudged(f, &fl) && !differ {
		return false
	}
	rec := s.projectileRecord(r.now, p)
	rec.Warped = true
	rec.struck(&fl.direct)
	for i := range hits {
		rec.damaged(&fl.direct, hits[i].victim, hits[i].damage, hits[i].kill)
	}
	s.emit(&rec)
	s.announceExplosion(p, r.t, centre)
	return false
}

// miss settles p as a miss (its owner left, or it expired).
func (r *warpRun) miss(p *projectile, f, fl *warpFlight, old []warpHit) {
	r.landed(p.owner, old, r.add(*fl, nil))
	if r.rejudged(f, fl) {
		rec := r.s.projectileRecord(r.now, p)
		rec.Warped = true
		r.s.emit(&rec)
	}
}

// add records flight fl with its hits and returns the recorded hits.
func (r *warpRun) add(fl warpFlight, hits []warpHit) []warpHit {
	fl.h0 = len(r.out.hits)
	r.out.hits = append(r.out.hits, hits...)
	fl.h1 = len(r.out.hits)
	r.out.flights = append(r.out.flights, fl)
	return r.out.hits[fl.h0:fl.h1]
}

// landed settles a projectile contact's hits against the recorded ones
// and keeps its owner's hit count (a projectile lands once, however many
// it damages). It reports whether the hits differ from the record's.
func (r *warpRun) landed(owner *client, old, now []warpHit) bool {
	differ := r.settle(owner, old, now)
	if differ {
		if len(old) > 0 {
			owner.hitsLanded--
		}
		if len(now) > 0 {
			owner.hitsLanded++
		}
	}
	return differ
}

// explosion returns the hits of p's contact at centre with direct victim
// direct (Victim -1: none), in slot order, as explode deals them. When
// unmoved, the contact is the recorded one, whose hits old stand for the
// players not affected: only the affected are computed again.
func (r *warpRun) explosion(p *projectile, centre geom.Vec3, direct *lagcomp.Hit, unmoved bool, old []warpHit) []warpHit {
	hits := r.w.hits[:0]
	k := 0
	for id := range r.rec.Owner {
		if unmoved && !r.w.d.Span.Affected(id) {
			for k < len(old) && old[k].victim < id {
				k++
			}
			if k < len(old) && old[k].victim == id {
				hits = append(hits, old[k])
			}
			continue
		}
		if !r.hittable(p.shooter, id) {
			continue
		}
		r.w.d.Stats.Tested++
		h := warpHit{hitInfo: r.s.blastHit(p, centre, direct, id, r.state(id))}
		if h.damage > 0 {
			hits = append(hits, h)
		}
	}
	r.w.hits = hits
	return hits
}

// shots resolves the tick's shots in the order fired, as resolveShots
// does, through the game's resolver (Config.Shots) in a ShotWorld of the
// re-run tick: every resolver (lagkit's shooter's weapons as a game's)
// traces, launches and registers through traceShot, launch and
// hitShot. Recorded shots no longer fired (the shooter's
// chain changed) are undone, and so are recorded pellets a shot no
// longer fires (ShotWorld.end).
func (r *warpRun) shots() {
	s := r.s
	oi := 0 // the recorded shots not yet passed
	for k := range r.out.shots {
		sh := &r.out.shots[k]
		var os *warpShot
		for oi < len(r.orig.shots) && before(&r.orig.shots[oi], sh) {
			r.undoShot(&r.orig.shots[oi])
			oi++
		}
		if oi < len(r.orig.shots) && r.orig.shots[oi].shooter == sh.shooter && r.orig.shots[oi].cmd.Tick == sh.cmd.Tick {
			os = &r.orig.shots[oi]
			oi++
			if os.unjudged() {
				os = nil // this re-simulation judges it for the first time
			}
		}
		owner := r.rec.Owner[sh.shooter]
		var old []warpPellet
		if os != nil && !os.void {
			old = r.orig.pellets[os.p0:os.p1]
			owner.shotsFired -= len(old)
		}
		sh.p0 = len(r.out.pellets)
		sh.p1 = sh.p0
		// No kill trading: a shooter killed earlier in the tick does not
		// fire.
		sh.void = r.state(sh.shooter).Has(game.FlagDead)
		if sh.void {
			for i := range old {
				r.undoPellet(&sh.pendingShot, owner, &old[i])
			}
			continue
		}
		if os == nil || os.void || !r.shotStands(sh, old, owner) {
			gw := &r.w.shotWorld
			gw.beginWarp(r, sh, os, old)
			s.cfg.Shots.Fire(gw)
			gw.end()
		}
		sh.p1 = len(r.out.pellets)
	}
	for ; oi < len(r.orig.shots); oi++ {
		r.undoShot(&r.orig.shots[oi])
	}
}

// before reports whether shot a was fired before shot b in a tick: by
// slot, then command.
func before(a, b *warpShot) bool {
	return a.shooter < b.shooter || a.shooter == b.shooter && a.cmd.Tick < b.cmd.Tick
}

// undoShot takes back a recorded shot no longer fired.
func (r *warpRun) undoShot(os *warpShot) {
	if os.void {
		return
	}
	owner := r.rec.Owner[os.shooter]
	owner.shotsFired -= os.p1 - os.p0
	for i := os.p0; i < os.p1; i++ {
		r.undoPellet(&os.pendingShot, owner, &r.orig.pellets[i])
	}
}

// undoPellet takes back a recorded pellet of shot ps no longer fired.
func (r *warpRun) undoPellet(ps *pendingShot, owner *client, op *warpPellet) {
	if op.id != 0 {
		return // a projectile: its flights are undone as they vanish
	}
	if op.entity != 0 {
		r.unhit(ps, op)
	}
	if r.settle(nil, r.orig.hits[op.h0:op.h1], nil) {
		owner.hitsLanded--
	}
	r.w.d.Stats.Rejudged++
}

// pelletStands reports whether recorded pellet op (nil: none) damaged a
// settled player, so that its outcome stands as recorded: it is then
// re-recorded and its hits dealt again, and traceShot is done with it.
func (r *warpRun) pelletStands(op *warpPellet) bool {
	if op == nil {
		return false
	}
	old := r.orig.hits[op.h0:op.h1]
	if !r.keeps(old) {
		return false
	}
	r.replay(old)
	np := *op
	np.h0 = len(r.out.hits)
	r.out.hits = append(r.out.hits, old...)
	np.h1 = len(r.out.hits)
	r.out.pellets = append(r.out.pellets, np)
	return true
}

// launch fires pellet of shot sh as a projectile, as launch does; op is
// the recorded launch (nil: none).
func (r *warpRun) launch(sh *warpShot, pellet int, ray geom.Ray, shell *Shell, op *warpPellet) {
	s, w := r.s, r.w
	p := projectileFor(sh.shooter, r.rec.Owner[sh.shooter], sh.weapon, sh.cmd.Tick, pellet, ray, shell, 0)
	np := warpPellet{ray: geom.Ray{Origin: p.pos, Dir: p.dir}, victim: -1, vel: p.vel, kind: pelletLaunch}
	np.h0, np.h1 = len(r.out.hits), len(r.out.hits)
	if len(w.fly) >= MaxProjectiles {
		if op == nil || op.id != 0 {
			s.dropProjectile(r.now, sh.shooter, sh.cmd.Tick, pellet, sh.weapon, true)
		}
		r.out.pellets = append(r.out.pellets, np)
		return
	}
	fresh := op == nil || op.id == 0
	if fresh {
		s.nextProjectile++
		np.id = s.nextProjectile
	} else {
		np.id = op.id
	}
	p.id = np.id
	w.fly = append(w.fly, p)
	w.flyNew = append(w.flyNew, fresh || op.ray.Origin != p.pos || op.vel != p.vel)
	r.out.pellets = append(r.out.pellets, np)
	if fresh {
		s.announceLaunch(&p, r.t)
	}
}

// beginWarp readies w for shot sh of the tick being re-simulated, os its
// recorded shot (nil: none) and old its recorded pellets: the world is
// the re-run tick's, tested at the tick's time (time warp's policy never
// rewinds).
func (w *ShotWorld) beginWarp(r *warpRun, sh, os *warpShot, old []warpPellet) {
	if w.skip == nil {
		w.skip = w.skips
	}
	s, c := r.s, r.rec.Owner[sh.shooter]
	ps := &sh.pendingShot
	target := s.targetTime(c, ps.cmd.Aimed().ViewTime, r.now)
	w.s, w.c, w.ps = s, c, ps
	w.Shot = FiredShot{Shooter: ps.shooter, Cmd: ps.cmd, State: ps.state, Eye: ps.eye, Target: target, Now: r.now}
	w.lag = lagcomp.Shot{Shooter: ps.shooter, Now: r.now, Target: target, ShooterRTT: measuredRTT(&c.rtt), Eye: ps.eye}
	w.judged, w.rewound, w.at = true, false, r.now
	w.pellets, w.open = 0, false
	w.run, w.sh, w.os, w.old, w.op = r, sh, os, old, nil
}

// traceShot traces ray, a pellet of a game's shot w (ShotWorld.Trace),
// up to maxDist through the bodies of the tick being re-simulated, and
// records it in the tick's new lists. A recorded pellet that damaged a
// settled player stands as recorded (pelletStands): its hit is given
// back, registered already.
func (r *warpRun) traceShot(w *ShotWorld, ray geom.Ray, maxDist float64) (lagcomp.RewindHit, bool) {
	s := r.s
	k := w.pellets
	w.pellets++
	w.c.shotsFired++
	w.op = nil
	if k < len(w.old) {
		w.op = &w.old[k]
	}
	if r.pelletStands(w.op) {
		op := w.op
		oh := &r.orig.hits[op.h0]
		pose := lagcomp.PoseOf(*r.state(op.victim))
		return lagcomp.RewindHit{
			ID: op.victim, BodyHit: lagcomp.BodyHit{Part: int(oh.part), Damage: int(oh.damage), Dist: op.dist, Local: oh.local},
			Point: oh.impact, Pose: pose,
		}, true
	}
	rec := &w.rec
	*rec = s.pelletRecord(r.now, w.ps, k)
	rec.Eye, rec.Tested, rec.Warped = ray.Origin, r.now, true
	np := warpPellet{ray: ray, reach: maxDist, victim: -1, kind: pelletBody}
	np.h0, np.h1 = len(r.out.hits), len(r.out.hits)
	var h lagcomp.RewindHit
	var ok bool
	if s.humans {
		np.kind, np.reach = pelletHitscan, s.wallReach(ray, maxDist)
		h, ok = r.traceHumans(w, ray, maxDist, np.reach)
	} else {
		r.w.d.Stats.Tested += len(r.rec.Owner)
		h, ok = s.TraceAt(ray, maxDist, r.now, w.skip)
	}
	if ok {
		np.victim, np.dist = h.ID, h.Dist
	}
	if w.op == nil {
		w.keepTraced(ray, maxDist, &h, ok) // judged for the first time
	}
	r.out.pellets = append(r.out.pellets, np)
	if !ok {
		if r.settleShot(w) {
			s.emit(rec)
		}
		return lagcomp.RewindHit{}, false
	}
	w.ray, w.reach = ray, maxDist
	w.hit, w.open = h, true
	return h, true
}

// traceHumans traces ray, a pellet of shot w, as ShotWorld.Trace does
// where the players are lagkit's humanoids, in the tick being
// re-simulated: the entities' bodies up to maxDist, then the players'
// hitboxes in their re-simulated states up to reach (maxDist cut short
// by the map's boxes) and the entity met.
func (r *warpRun) traceHumans(w *ShotWorld, ray geom.Ray, maxDist, reach float64) (lagcomp.RewindHit, bool) {
	limit := reach
	var eh lagcomp.RewindHit
	entity := false
	if r.s.rewind != nil {
		if eh, entity = r.s.TraceAt(ray, maxDist, r.now, w.skip); entity {
			limit = min(limit, eh.Dist)
		}
	}
	if hh, ok := r.trace(ray, limit, w.Shot.Shooter, nil); ok {
		w.human, w.hh = true, hh
		return humanHit(&hh), true
	}
	return eh, entity
}

// hitShot registers the hit of a game's shot w that traceShot found
// (ShotWorld.Hit), for damage: judged by the policy as a live hit is,
// then settled against the pellet's recorded outcome. It reports the
// hit registered and whether it killed only when it is news.
func (r *warpRun) hitShot(w *ShotWorld, damage int16) (registered, kill bool) {
	s, h, rec := r.s, &w.hit, &w.rec
	np := &r.out.pellets[len(r.out.pellets)-1]
	if rec.Entity != 0 {
		np.entity, np.edmg = h.ID, damage
		if !r.settleShot(w) {
			return false, false
		}
		s.settled(rec, wire.OutcomeRegistered, true, damage, false)
		return true, false
	}
	if w.human {
		return r.hitHuman(w, damage)
	}
	v := r.rec.Owner[h.ID] // there: Trace passes the empty slots
	now := *r.state(h.ID)
	pose := now
	pose.Pos = h.Pose.Pos
	found := &s.found
	*found = lagcomp.Found{
		Hit:       lagcomp.Hit{Victim: h.ID, Part: rec.Part, Dist: h.Dist, Point: h.Point, Local: h.Local, Pose: pose},
		VictimRTT: measuredRTT(&v.rtt), VictimNow: now,
		Grid: s.cfg.Map.Grid, Params: s.cfg.Movement, OnBody: true,
	}
	hit := hitInfo{
		shooter: w.Shot.Shooter, victim: h.ID, shotTick: w.Shot.Cmd.Tick, part: rec.Part,
		local: h.Local, eye: game.SnapPos(w.ray.Origin), damage: damage, impact: h.Point, onBody: true,
	}
	hit.tested = tested{ok: true, pose: pose, now: now.Pos, impact: h.Point}
	return r.judge(w, found, &hit)
}

// hitHuman registers the hit of shot w that traceShot found on a
// humanoid player (w.hh), for damage, as hitShot does a hit on a body.
func (r *warpRun) hitHuman(w *ShotWorld, damage int16) (registered, kill bool) {
	s, h := r.s, &w.hh
	found := &s.found
	*found = lagcomp.Found{
		Hit: *h, VictimRTT: measuredRTT(&r.rec.Owner[h.Victim].rtt), VictimNow: *r.state(h.Victim),
		Grid: s.cfg.Map.Grid, Params: s.cfg.Movement,
	}
	hit := hitInfo{
		shooter: w.Shot.Shooter, victim: h.Victim, shotTick: w.Shot.Cmd.Tick, part: h.Part,
		local: h.Local, eye: game.SnapPos(w.ray.Origin), damage: damage, impact: h.Point,
	}
	return r.judge(w, found, &hit)
}

// judge has the policy judge hit h of shot w, found as it sees it, and
// settles the outcome against the pellet's recorded one. Time warp's
// policy never rewinds nor appeals (checkTimeWarp): the verdict is to
// register or to discard. It reports the hit registered and whether it
// killed only when it is news.
func (r *warpRun) judge(w *ShotWorld, found *lagcomp.Found, h *hitInfo) (registered, kill bool) {
	s, rec := r.s, &w.rec
	np := &r.out.pellets[len(r.out.pellets)-1]
	if s.policy.Judge(&w.lag, found) == lagcomp.Discard {
		if r.settleShot(w) {
			s.settled(rec, wire.OutcomeDiscarded, false, 0, false)
		}
		return false, false
	}
	r.out.hits = append(r.out.hits, warpHit{hitInfo: *h})
	np.h1 = len(r.out.hits)
	if !r.settleShot(w) {
		return false, false
	}
	kill = r.out.hits[np.h0].kill
	s.settled(rec, wire.OutcomeRegistered, true, h.damage, kill)
	return true, kill
}

// settleShot settles the pellet of a game's shot w traced last against
// its recorded outcome w.op (nil: none): damage given or taken back,
// events and counters; a
// recorded hit on an entity the pellet no longer makes (another entity
// or damage, or none) is taken back (unhit). It reports whether the
// outcome is news, to be recorded: a pellet judged for the first time,
// or one whose hits changed.
func (r *warpRun) settleShot(w *ShotWorld) bool {
	op := w.op
	np := &r.out.pellets[len(r.out.pellets)-1]
	var old []warpHit
	entity := np.entity != 0
	if op != nil {
		old = r.orig.hits[op.h0:op.h1]
		entity = op.entity != np.entity || op.edmg != np.edmg
		if entity && op.entity != 0 {
			// The recorded hit on an entity is no longer the pellet's.
			r.unhit(w.ps, op)
		}
	}
	now := r.out.hits[np.h0:np.h1]
	differ := r.settle(w.c, old, now)
	if differ {
		if len(old) > 0 {
			w.c.hitsLanded--
		}
		if len(now) > 0 {
			w.c.hitsLanded++
		}
	}
	if op == nil {
		return true
	}
	if !differ && !entity {
		return false
	}
	r.w.d.Stats.Rejudged++
	return true
}

// unhit takes back recorded pellet op's hit on a game's entity, which
// shot ps no longer makes, through the game's resolver, which dealt its
// damage when Hit registered it (Unhitter); a resolver that is not one
// leaves it standing.
func (r *warpRun) unhit(ps *pendingShot, op *warpPellet) {
	u, ok := r.s.cfg.Shots.(Unhitter)
	if !ok {
		return
	}
	f := &r.w.unhitShot
	*f = FiredShot{Shooter: ps.shooter, Cmd: ps.cmd, State: ps.state, Eye: ps.eye, Target: r.now, Now: r.now}
	if c := r.rec.Owner[ps.shooter]; c != nil {
		f.Target = r.s.targetTime(c, ps.cmd.Aimed().ViewTime, r.now)
	}
	u.Unhit(f, op.entity, op.edmg)
}
