package server

import (
	"errors"
	"fmt"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/lagcomp"
	"github.com/lagkit/lagkit/timewarp"
)

// Time warp's re-simulation: the server's side of it. Package timewarp's
// Warp re-runs the ticks from a late command's to the present, the
// affected players stepped again, the others taken from the ring (see
// timewarp.go); the server is its host (timewarp.Host), stepping a
// player through a tick's commands and resolving the tick's shots and
// projectiles. A live tick under time warp runs as an ordinary
// server's, and warpRecorder keeps what it did.

// warpResolve is the damage phase of a live tick under time warp: the
// ordinary one (moveProjectiles, resolveShots), with warpRecorder keeping
// what it did in the ring for later warps.
func (s *Server) warpResolve(now time.Duration) {
	e, _ := s.warp.entry(s.tick)
	for i, c := range s.clients {
		if c != nil {
			e.Moved[i] = c.state
		}
	}
	s.moveProjectiles(now)
	s.resolveShots(now)
}

// warpRecorder keeps what a live tick's shots and projectiles did (shots,
// pellets, flights and hits) in the ring's record of the tick, for later
// re-simulations to compare against. The live tick is the ordinary
// server's code, which calls it at each step; on a nil recorder (no time
// warp) the calls do nothing. It is a concrete type so that the values
// passed to it stay on the stack.
type warpRecorder struct{ s *Server }

// tick returns the ring's record of the live tick.
func (r *warpRecorder) tick() *warpTick {
	e, _ := r.s.warp.entry(r.s.tick)
	return e
}

// shot starts the record of shot ps; void: its shooter was dead when it
// was resolved.
func (r *warpRecorder) shot(ps *pendingShot, void bool) {
	if r == nil {
		return
	}
	e := r.tick()
	n := len(e.Lists.pellets)
	e.Lists.shots = append(e.Lists.shots, warpShot{pendingShot: *ps, void: void, p0: n, p1: n})
}

// traced records a pellet of a game's shot (ShotWorld.Trace): its ray,
// traced up to reach, and the player or entity it met, h if found.
func (r *warpRecorder) traced(ray geom.Ray, reach float64, h *lagcomp.RewindHit, found bool) {
	if r == nil {
		return
	}
	p := warpPellet{ray: ray, reach: reach, victim: -1, kind: pelletBody}
	if found {
		p.victim, p.dist = h.ID, h.Dist
	}
	r.pellet(p)
}

// struck records the hit on entity id, for damage, a game's shot
// registered with the pellet last recorded.
func (r *warpRecorder) struck(id int, damage int16) {
	if r == nil {
		return
	}
	e := r.tick()
	p := &e.Lists.pellets[len(e.Lists.pellets)-1]
	p.entity, p.edmg = id, damage
}

// hitscan records a pellet traced through lagkit's humanoid players
// (ShotWorld.Trace): its ray, its reach (maxDist, cut short by the first
// box on the ray) and the player or entity it met first (victim -1:
// none) at dist.
func (r *warpRecorder) hitscan(ray geom.Ray, maxDist float64, victim int, dist float64) {
	if r == nil {
		return
	}
	p := warpPellet{ray: ray, reach: r.s.wallReach(ray, maxDist), victim: victim}
	if victim >= 0 {
		p.dist = dist
	}
	r.pellet(p)
}

// launch records the launch of projectile p (id 0: dropped at
// MaxProjectiles).
func (r *warpRecorder) launch(p *projectile) {
	if r == nil {
		return
	}
	r.pellet(warpPellet{ray: geom.Ray{Origin: p.pos, Dir: p.dir}, victim: -1, id: p.id, vel: p.vel, kind: pelletLaunch})
}

// pellet records pellet p of the shot last recorded.
func (r *warpRecorder) pellet(p warpPellet) {
	e := r.tick()
	p.h0, p.h1 = len(e.Lists.hits), len(e.Lists.hits)
	e.Lists.pellets = append(e.Lists.pellets, p)
	e.Lists.shots[len(e.Lists.shots)-1].p1 = len(e.Lists.pellets)
	r.s.warp.lastFlight = false
}

// flight records p's flight through the tick, ended or flying on.
func (r *warpRecorder) flight(p *projectile, c *contact, ended bool) {
	if r == nil {
		return
	}
	e := r.tick()
	e.Lists.flights = append(e.Lists.flights, warpFlight{id: p.id, owner: p.owner, contact: *c, ended: ended, h0: len(e.Lists.hits), h1: len(e.Lists.hits)})
	r.s.warp.lastFlight = true
}

// dealt records damage the latest pellet or flight dealt.
func (r *warpRecorder) dealt(h *hitInfo, kill bool) {
	if r == nil {
		return
	}
	e := r.tick()
	e.Lists.hits = append(e.Lists.hits, warpHit{hitInfo: *h, kill: kill})
	if kill {
		// A death announced is a committed fact for later warps.
		r.s.warp.d.Deaths.Announce(h.victim, r.s.clients[h.victim], r.s.tick)
	}
	if r.s.warp.lastFlight {
		e.Lists.flights[len(e.Lists.flights)-1].h1 = len(e.Lists.hits)
	} else {
		e.Lists.pellets[len(e.Lists.pellets)-1].h1 = len(e.Lists.hits)
	}
}

// warpRecord completes the record of the tick just run: the states after
// it (a respawn marked as the server's fact) and the projectiles in
// flight.
func (s *Server) warpRecord() {
	w := s.warp
	e, _ := w.entry(s.tick)
	for i, c := range s.clients {
		if c != nil && e.Owner[i] == c {
			e.State[i] = c.state
			// Only the server changes Teleport (spawn, placement).
			e.FixedEnd[i] = c.state.Teleport != e.Moved[i].Teleport
		}
	}
	e.Lists.flying = append(e.Lists.flying[:0], s.projectiles...)
	// The path of each projectile that flew on, from where it started
	// the tick.
	prev, _ := w.entry(s.tick - 1)
	for k := range e.Lists.flights {
		f := &e.Lists.flights[k]
		if k >= len(prev.Lists.flying) || prev.Lists.flying[k].id != f.id || f.ended {
			e.Lists.paths = append(e.Lists.paths, timewarp.Path{Full: true})
			continue
		}
		ray, seg := s.segment(&prev.Lists.flying[k])
		e.Lists.paths = append(e.Lists.paths, timewarp.PathOf(ray, seg, false))
	}
}

// warpRestart makes the round's restart before the next tick a limit
// of the past: no warp re-runs a tick before it (its shots and kills are
// not judged again), and no projectile the restart dropped flies again.
func (s *Server) warpRestart() {
	w := s.warp
	w.d.Restart(s.tick)
	if e, ok := w.entry(s.tick); ok {
		e.Lists.flying = e.Lists.flying[:0]
	}
}

// Resimulate re-runs the last ticks ticks as a warp for a late command of
// player id at the first of them does, with the commands the server
// holds, and returns how many ticks it re-ran (at most the window). As
// the inputs are those the ticks ran with, it ends in the state it
// started from: it measures what a warp of that depth costs (lagkit
// experiment timewarp, BenchmarkTimeWarp) and checks that re-simulation
// reproduces the record.
func (s *Server) Resimulate(id, ticks int) (int, error) {
	w := s.warp
	switch {
	case w == nil:
		return 0, errors.New("server: resimulate: time warp is off")
	case id < 0 || id >= len(s.clients) || s.clients[id] == nil:
		return 0, fmt.Errorf("server: resimulate: no player in slot %d", id)
	case ticks < 0:
		return 0, fmt.Errorf("server: resimulate: %d ticks", ticks)
	}
	return w.d.Resimulate(id, s.clients[id], s.tick, ticks), nil
}

// The server is the host of its time warp's re-simulation
// (timewarp.Host): the Warp re-runs the ticks and steps the players it
// chooses through the methods below, and the server resolves each re-run
// tick's shots and projectiles by the rules of a live tick (fire.go,
// timewarp_judge.go).

// Player returns the player in slot i and its live state.
func (w *timeWarp) Player(i int) (*client, *game.PlayerState) {
	if c := w.s.clients[i]; c != nil {
		return c, &c.state
	}
	return nil, nil
}

// Bound returns the sphere around the hitboxes of a player in state st:
// the one lagcomp.TracePlayer tests first, which holds the torso the
// splash is measured to.
func (w *timeWarp) Bound(st *game.PlayerState) (geom.Vec3, float64) {
	p := w.s.cfg.Movement
	return st.Pos.Add(geom.Vec3{Z: p.Height / 2}), p.Radius + p.Height/2
}

// BeginWarp notes that the projectiles in flight are the recorded ones
// until a re-run tick changes them, and which projectiles the warp
// launches.
func (w *timeWarp) BeginWarp() {
	w.flyRec = true
	w.idBase = w.s.nextProjectile
}

// BeginTick starts the re-run of tick t, recorded in e: the steps see
// the view of the match the tick began with.
func (w *timeWarp) BeginTick(t uint32, e *warpTick) {
	s := w.s
	s.stepView = w.viewOf(t)
	// The run is kept in w, so that passing it as an arena does not
	// allocate.
	w.run = warpRun{s: s, w: w, t: t, now: time.Duration(t) * s.tickDur, rec: e, orig: &e.Lists, out: &w.spare}
	// The recorded shots stand but for the stepped players', whose
	// commands fire again.
	w.run.keep.shots = true
}

// Step runs slot i's commands cmds of the tick again from state st, as
// Server.run does, and keeps the shots they fire in the tick's new list,
// in place of the player's recorded shots.
func (w *timeWarp) Step(i int, st game.PlayerState, cmds []game.UserCmd) game.PlayerState {
	r, s := &w.run, w.s
	orig := r.orig.shots
	first := r.next
	for r.next < len(orig) && orig[r.next].shooter < i {
		r.next++
	}
	kept := r.next
	for r.next < len(orig) && orig[r.next].shooter == i {
		r.next++
	}
	if !r.keep.shots {
		r.out.shots = append(r.out.shots, orig[first:kept]...)
	}
	for k, cmd := range cmds {
		var fired bool
		before := st
		st, fired = s.act(i, st, cmd)
		if !fired || r.rec.Deferred(i, k) {
			continue // a deferred shot stays at its issue tick
		}
		if r.keep.shots {
			r.keep.shots = false
			r.out.shots = append(r.out.shots[:0], orig[:kept]...)
		}
		r.out.shots = append(r.out.shots, warpShot{pendingShot: s.firedShot(i, cmd, st, s.shotEye(before, st, cmd))})
	}
	if r.keep.shots && kept < r.next && !allDeferred(orig[kept:r.next]) {
		// Recorded shots no longer fired.
		r.keep.shots = false
		r.out.shots = append(r.out.shots[:0], orig[:kept]...)
	}
	if !r.keep.shots {
		r.keepDeferred(orig[kept:r.next])
	}
	return st
}

// Resolve resolves the tick's projectiles and shots once its players are
// stepped: the history holds the poses the server settled on, so those
// of the players stepped again change first, before the shots are traced
// through the bodies (a game's resolver, ShotWorld.Trace).
func (w *timeWarp) Resolve() {
	r, s := &w.run, w.s
	if !r.keep.shots {
		r.out.shots = append(r.out.shots, r.orig.shots[r.next:]...)
	}
	for _, i := range w.d.Steps() {
		s.history.Amend(r.t, i, r.rec.Moved[i])
		s.amendBody(r.t, i, &r.rec.Moved[i])
	}
	r.run()
}

// EndPlayer ends spawn protection that ran out in the tick.
func (w *timeWarp) EndPlayer(i int, st *game.PlayerState) {
	if st.Has(game.FlagProtected) && w.run.now >= w.run.rec.Owner[i].protectedUntil {
		st.Flags &^= game.FlagProtected
	}
}

// Killed processes a death a replayed change of the game's deals, as a
// re-simulated hit's (hurt, with nothing more to take). The counters
// Damage kept (hits taken and landed) stand as counted.
func (w *timeWarp) Killed(i, by int) {
	h := warpHit{hitInfo: hitInfo{shooter: by, victim: i}}
	w.run.hurt(&h)
}

// EndTick records the projectiles in flight after the tick and puts the
// lists the tick re-recorded into its record.
func (w *timeWarp) EndTick() {
	r := &w.run
	switch {
	case w.flyRec:
		r.keep.flying = true
	case r.flyingAsRecorded():
		// The projectiles in flight are the recorded ones again.
		r.keep.flying, w.flyRec = true, true
	default:
		r.out.flying = append(r.out.flying[:0], w.fly...)
	}
	r.swap()
}

// EndWarp restores the live view of the match and the projectiles in
// flight now.
func (w *timeWarp) EndWarp() {
	s := w.s
	s.stepView = &s.view
	if w.flyRec {
		last, _ := w.entry(s.tick)
		s.projectiles = append(s.projectiles[:0], last.Lists.flying...)
	} else {
		s.projectiles = append(s.projectiles[:0], w.fly...)
	}
}

// amendBody records player i's body at tick t again, from st, its
// re-simulated state after its commands, as recordBodies recorded it
// live: a game's TraceAt at a re-run tick (a warped shot's Target) tests
// the bodies where the server settled them, with the body BodyOf gives
// the re-simulated state.
func (s *Server) amendBody(t uint32, i int, st *game.PlayerState) {
	b, of := s.cfg.Body, s.cfg.BodyOf
	if s.rewind == nil || b == nil && of == nil {
		return
	}
	switch {
	case st.Has(game.FlagDead):
		b = nil
	case of != nil:
		b = of(i, *st)
	}
	// A full rewinder drops the record, as recordBodies does.
	_, _ = s.rewind.Amend(t, i, bodyPose(st), b)
}

// warpRun is the re-simulation of one tick.
type warpRun struct {
	s    *Server
	w    *timeWarp
	t    uint32
	now  time.Duration // the tick's time
	rec  *warpTick     // the tick's record (its per-slot arrays)
	orig *warpLists    // what the tick recorded before
	out  *warpLists    // what it records now
	// keep marks the lists of orig that stand as recorded: out's are
	// not filled in.
	keep keptLists
	// next is the first recorded shot of a slot not yet stepped (Step).
	next int
}

// keptLists are the lists of a tick's record a re-simulation leaves as
// they were.
type keptLists struct{ shots, pellets, flights, hits, flying bool }

// swap puts the lists the tick re-recorded into its record.
func (r *warpRun) swap() {
	o, n := r.orig, r.out
	if !r.keep.shots {
		o.shots, n.shots = n.shots, o.shots
	}
	if !r.keep.pellets {
		o.pellets, n.pellets = n.pellets, o.pellets
	}
	if !r.keep.flights {
		o.flights, n.flights = n.flights, o.flights
		o.paths, n.paths = n.paths, o.paths
	}
	if !r.keep.hits {
		o.hits, n.hits = n.hits, o.hits
	}
	if !r.keep.flying {
		o.flying, n.flying = n.flying, o.flying
	}
}

// join adds slot i to the affected set.
func (r *warpRun) join(i int) { r.w.d.Join(i) }

// state returns slot i's state at this point of the tick.
func (r *warpRun) state(i int) *game.PlayerState { return r.w.d.State(i) }

// own returns slot i's state at this point of the tick, to change.
func (r *warpRun) own(i int) *game.PlayerState { return r.w.d.Own(i) }

// allDeferred reports whether every shot of shots was deferred to its
// tick (none is fired by the tick's commands).
func allDeferred(shots []warpShot) bool {
	for i := range shots {
		if !shots[i].deferred {
			return false
		}
	}
	return true
}

// keepDeferred adds the deferred shots among a stepped player's recorded
// shots to the tick's new list, after the shots its commands fired
// again, keeping the player's shots in command order.
func (r *warpRun) keepDeferred(recorded []warpShot) {
	for i := range recorded {
		if !recorded[i].deferred {
			continue
		}
		sh := recorded[i]
		k := len(r.out.shots)
		r.out.shots = append(r.out.shots, sh)
		for k > 0 && before(&sh, &r.out.shots[k-1]) {
			r.out.shots[k] = r.out.shots[k-1]
			k--
		}
		r.out.shots[k] = sh
	}
}

// run resolves the tick's projectiles and shots.
func (r *warpRun) run() {
	r.out.pellets = r.out.pellets[:0]
	r.out.flights = r.out.flights[:0]
	r.out.paths = r.out.paths[:0]
	r.out.hits = r.out.hits[:0]
	switch {
	case !r.cleanFlights():
		r.flyRecorded()
		r.flights()
	case r.cleanShots():
		return
	default:
		r.flyRecorded()
		r.out.hits = append(r.out.hits, r.orig.hits[:r.flightHits()]...)
	}
	if r.keep.shots {
		// The shots are judged again: their pellets are re-recorded.
		r.keep.shots = false
		r.out.shots = append(r.out.shots[:0], r.orig.shots...)
	}
	r.shots()
}

// hittable reports whether shooter can hit player id in the tick: there,
// alive, not spawn protected, an enemy, and not settled.
func (r *warpRun) hittable(shooter, id int) bool {
	o := r.rec.Owner[id]
	if o == nil || r.w.d.Span.Settled(id) {
		return false
	}
	st := r.state(id)
	if st.Has(game.FlagDead) || st.Has(game.FlagProtected) {
		return false
	}
	sh := r.rec.Owner[shooter]
	return sh == nil || r.s.rules.Enemies(sh.id, sh.team, o.id, o.team)
}

// player returns the state of the player in slot id at the tick.
func (r *warpRun) player(id int) *game.PlayerState {
	if r.rec.Owner[id] == nil {
		return nil
	}
	return r.state(id)
}

// trace returns the first player other than shooter that a hitscan ray
// (or a projectile's segment) hits within maxDist, testing the players in
// ids (nil: everyone) in the tick's states.
func (r *warpRun) trace(ray geom.Ray, maxDist float64, shooter int, ids []int) (lagcomp.Hit, bool) {
	n := len(ids)
	if ids == nil {
		n = len(r.rec.Owner)
	}
	r.w.d.Stats.Tested += n
	switch {
	case ids != nil && !r.w.d.NearAffected(ray, maxDist):
		return lagcomp.Hit{}, false
	case ids == nil:
		ids = r.w.d.Near(ray, maxDist)
	}
	return r.s.firstPlayer(r, ray, maxDist, shooter, ids)
}
