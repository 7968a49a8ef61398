package server

import (
	"math"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/lagcomp"
	"github.com/lagkit/lagkit/wire"
)

// Shot resolution: the one hit-registration path every game's shots
// take. A command that fires (Config.Step reports it) is a shot; once
// every player's pose of the tick is recorded, the core takes each shot
// in the order fired, drops one whose shooter died earlier in the tick
// (no kill trading through lag), and hands the rest to the game's
// resolver (Config.Shots) in a ShotWorld: the shot with the server time
// its shooter saw, the world as the lag compensation policy judges it
// (rewound to that time, or the present), and the match's view. The
// resolver says where the shot goes and what a hit is worth; the core
// judges every hit on a player by the policy (tlc, clc's rollback cap,
// alc's appeal, alc-predict's cover check), applies its damage
// (Absorber, health, death, the kill scored by the rules, respawn),
// tells the shooter and the victim (wire.ConfirmEvent, wire.HitEvent,
// wire.KillEvent), and records each pellet (ShotRecord, the victims' SBC
// reports). Every game brings its own resolver: lagkit's shooter's
// weapons (hitscan pellets and projectiles) are shooter.Weapons, and
// examples/arena2d's referee resolves its sidearm against its crate and
// circles.

// Shots resolves a game's shots (Config.Shots). The server calls Fire on
// its tick's goroutine, once for each shot of a living shooter, in the
// order fired, after the tick's commands and before the rules' Update.
type Shots interface {
	// Fire resolves the shot w holds (w.Shot): it traces each of the
	// shot's rays in w's world (ShotWorld.Trace) and registers what it
	// found (ShotWorld.Hit). It must not keep w.
	Fire(w *ShotWorld)
}

// NoShots is the resolver of a game whose shots hit nothing, the
// default (Config.Shots nil).
type NoShots struct{}

// Fire does nothing.
func (NoShots) Fire(*ShotWorld) {}

// Armoury is a Shots that names what its shots fire. Weapon gives, for
// a shooter in state st (after the command that fired), the weapon as
// the game numbers it (ShotRecord.Weapon, a tracer's, a projectile's, a
// kill's), and whether the shot is hitscan alone: time warp of hitscan
// shots only (Config.TimeWarpHitscanOnly) defers those, and needs an
// Armoury. Without one, every shot's weapon is 0.
type Armoury interface {
	Weapon(st *game.PlayerState) (slot uint8, hitscan bool)
}

// Absorber is a Shots whose game takes part of a hit's damage elsewhere
// than health (a shield, armour). The core calls Absorb when it applies
// a hit on a player (at once, or once the victim's appeal is settled),
// with the victim's state, which it may change (the shield's charge in
// the game's declared state), and takes the damage Absorb returns from
// the victim's health. The hit's record and events carry the damage the
// shot dealt.
type Absorber interface {
	Absorb(victim int, st *game.PlayerState, damage int16) int16
}

// Unhitter is a Shots whose game takes back, under time warp
// (Config.TimeWarp), a hit on one of its entities that a re-simulation
// of the shot's tick no longer finds: the shot now misses the entity,
// hits something else or the entity for other damage, is no longer
// fired, or its shooter was dead by then. The game dealt that damage
// itself when Hit reported the hit registered; the server calls Unhit,
// on its tick's goroutine, during the re-simulation (within Fire of the
// shot when the resolver is handed it again), with the shot, the
// entity's slot and the damage Hit registered, for the game to undo
// what it did with it. The shot's record is amended as a player's hit
// taken back is (a warped record of the new outcome when the shot is
// judged again). shot is valid until Unhit returns. A resolver that is
// not one leaves such hits standing.
type Unhitter interface {
	Unhit(shot *FiredShot, entity int, damage int16)
}

// FiredShot is a shot a player's command fired, as a resolver is given it
// (ShotWorld.Shot).
type FiredShot struct {
	Shooter int
	// Cmd is the command that fired and State the shooter's state after
	// it.
	Cmd   game.UserCmd
	State game.PlayerState
	// Eye is lagkit's humanoid eye at the shot: the shooter's after the
	// command, or with a fire press within the command (sub-tick input)
	// the one its client drew at the press (game.PressEye).
	Eye geom.Vec3
	// Target is the server time the shooter saw when it fired: the view
	// time its command carries (the fire press's, with sub-tick input)
	// within Config.ViewTimeTolerance of the server's estimate, never
	// older than Config.MaxUnlag. Whether a shot is tested then is the
	// policy's to say (ShotWorld.Time).
	Target time.Duration
	// Now is the server time of the tick that ran the command.
	Now time.Duration
}

// ShotWorld is the world a shot is resolved in: the shot, the time the
// lag compensation policy tests it at and the bodies as they were then,
// the match's view, and the core's hit registration. A resolver gets one
// in Fire, valid until Fire returns.
type ShotWorld struct {
	// Shot is the shot being resolved.
	Shot FiredShot

	s   *Server
	c   *client
	ps  *pendingShot
	lag lagcomp.Shot // the shot as the policy sees it

	// judged reports whether at and rewound are set for the shot.
	judged  bool
	rewound bool
	at      time.Duration

	// The pellet traced last: its record, ray and reach, and what it hit
	// (open: a hit not yet registered).
	pellets int
	rec     ShotRecord
	ray     geom.Ray
	reach   float64
	hit     lagcomp.RewindHit
	open    bool

	// human reports that the hit traced last is on one of lagkit's
	// humanoid players (a game without bodies of its own: Config.Body
	// and BodyOf nil), hh what lagcomp.Tracer found of it.
	human bool
	hh    lagcomp.Hit

	skip func(id int) bool // w.skips, bound once

	traced tracedRay // the ray traced last, for ShowTracer

	// In a time warp re-simulation (run set): the shot re-run, its
	// recorded shot (nil: judged for the first time) and pellets, and
	// the recorded outcome of the pellet traced last (nil: none).
	run *warpRun
	sh  *warpShot
	os  *warpShot
	old []warpPellet
	op  *warpPellet
}

// begin readies w for shot ps of c, resolved at now.
func (w *ShotWorld) begin(s *Server, now time.Duration, c *client, ps *pendingShot) {
	if w.skip == nil {
		w.skip = w.skips
	}
	target := s.targetTime(c, ps.cmd.Aimed().ViewTime, now)
	w.s, w.c, w.ps = s, c, ps
	w.Shot = FiredShot{Shooter: ps.shooter, Cmd: ps.cmd, State: ps.state, Eye: ps.eye, Target: target, Now: now}
	w.lag = lagcomp.Shot{Shooter: ps.shooter, Now: now, Target: target, ShooterRTT: measuredRTT(&c.rtt), Eye: ps.eye}
	w.judged, w.pellets, w.open = false, 0, false
	w.traced.ok = false
}

// tracedRay is the ray a ShotWorld traced last, for ShowTracer: where it
// stopped, at the player or entity it hit or at its reach, and the
// player it hit (-1: none, or an entity). ok reports a ray not yet shown
// and judged for the first time.
type tracedRay struct {
	ok     bool
	ray    geom.Ray
	reach  float64
	hit    bool
	point  geom.Vec3
	victim int
}

// keepTraced keeps ray, traced up to maxDist to hit h (ok: hit), for
// ShowTracer.
func (w *ShotWorld) keepTraced(ray geom.Ray, maxDist float64, h *lagcomp.RewindHit, ok bool) {
	w.traced = tracedRay{ok: true, ray: ray, reach: maxDist, hit: ok, point: h.Point, victim: -1}
	if ok && h.ID < len(w.s.clients) {
		w.traced.victim = h.ID
	}
}

// ShowTracer shows the ray the last Trace traced to the players near it
// (Config.ShowTracers), as lagkit's own hitscan pellets are shown, in a
// wire.TracerEvent their clients hand over in client.Ready.Tracers: from
// the ray's origin to the player or entity it hit or, for a miss, to
// where its maxDist ends (cut at the map's boxes and bounds). The rules
// are lagkit's pellets' (tracers.go): only to clients whose eye lies
// within TracerReach of the line, never to the shooter nor, under
// ShowRewind, to the player the ray hit, within each client's tracer
// budget. A resolver calls it for the rays that are shots a player would
// see fly (a rifle's, not a melee swing's reach or a line-of-sight
// test). A ray is shown once, when its shot is first judged: ShowTracer
// does nothing a second time for one Trace, before any Trace, or in a
// time warp re-simulation that judges the shot again (Rejudged).
func (w *ShotWorld) ShowTracer() {
	t := &w.traced
	if !t.ok || !w.s.cfg.ShowTracers {
		return
	}
	t.ok = false
	end := t.point
	if !t.hit {
		end = t.ray.At(w.s.rayLength(t.ray, t.reach))
	}
	w.s.sendTracer(w.Shot.Shooter, w.ps.weapon, t.ray.Origin, end, t.victim)
}

// end settles a pellet left open by the resolver and, in a
// re-simulation, takes back the recorded pellets the shot no longer
// traced.
func (w *ShotWorld) end() {
	w.settleOpen()
	if r := w.run; r != nil {
		for i := w.pellets; i < len(w.old); i++ {
			r.undoPellet(&w.sh.pendingShot, w.c, &w.old[i])
		}
		w.run, w.sh, w.os, w.old, w.op = nil, nil, nil, nil, nil
	}
	w.s, w.c, w.ps = nil, nil, nil
}

// Rejudged reports whether the shot was judged before, live or by an
// earlier time warp, and a re-simulation judges it again
// (Config.TimeWarp): Hit then reports only what is news, a hit the
// shot's record did not have, so that what a resolver does with a hit
// is done once. A late command's shot judged by a re-simulation for the
// first time is not rejudged. A recorded shot is handed over again only
// when something it could see changed: a shot whose shooter the
// re-simulation did not step again, whose recorded rays no changed
// player's body could reach, stands as recorded and Fire is not called
// for it: what the shot did stands as recorded, which is what Fire
// would find again when it depends only on the shot and its Traces.
func (w *ShotWorld) Rejudged() bool { return w.os != nil }

// judge sets the time the policy tests the shot at: its Target when the
// policy rewinds it, else now. A shooter whose round trip is unmeasured
// is tested against the present: without it the server cannot check
// the view time claimed.
func (w *ShotWorld) judge() {
	if w.judged {
		return
	}
	w.judged = true
	w.rewound = w.lag.ShooterRTT != unmeasuredRTT && w.s.policy.Rewind(&w.lag)
	w.at = w.lag.Now
	if w.rewound {
		w.at = w.lag.Target
	}
}

// Time returns the server time the policy tests the shot at: its Target
// when the policy rewinds it, else the tick's time (Shot.Now).
func (w *ShotWorld) Time() time.Duration {
	w.judge()
	return w.at
}

// Rewound reports whether the policy tests the shot in the past
// (Time before Shot.Now).
func (w *ShotWorld) Rewound() bool {
	w.judge()
	return w.rewound
}

// BodyAt returns the pose player or entity id had at the shot's Time,
// as Trace tests it.
func (w *ShotWorld) BodyAt(id int) (lagcomp.Pose, bool) {
	return w.s.BodyAt(id, w.Time())
}

// View returns the match as the shot's tick began: the entities and
// match state the steps saw (game.StepCtx.View).
func (w *ShotWorld) View() *game.MatchView { return w.s.stepView }

// Params returns the match's movement rules (Config.Movement): where a
// player's eye is, what its hitboxes are.
func (w *ShotWorld) Params() *game.Params { return w.s.cfg.Movement }

// Server returns the server, for what a resolver does beyond the hit
// (an entity's state, a game event, loot written with Edit).
func (w *ShotWorld) Server() *Server { return w.s }

// skips reports whether the shot's rays pass player id: the shooter and
// the players it cannot hit (dead, spawn protected, or not an enemy by
// the rules). Entities are never passed.
func (w *ShotWorld) skips(id int) bool {
	s := w.s
	if id >= len(s.clients) {
		return false
	}
	if w.run != nil {
		return id == w.Shot.Shooter || !w.run.hittable(w.Shot.Shooter, id)
	}
	return id == w.Shot.Shooter || !s.hittable(w.Shot.Shooter, id)
}

// Trace traces ray (Dir a unit vector) of the shot, one of its pellets,
// up to maxDist through the bodies with which the players (Config.Body
// or BodyOf) and the entities are recorded, as they were at the shot's
// Time, passing the shooter and the players it cannot hit. The world
// does not block a body: a game cuts maxDist at its world's first hit.
// Where the game gives its players no body, they are lagkit's
// humanoids: their hitboxes are traced (lagcomp.Tracer, which the map's
// boxes stop; the hit's Part a game.PartKind, Local in the part's
// frame), and a ray that meets nothing is offered to the world
// adjustments (Config.Adjust), which note in the record what they did;
// this is how lagkit's shooter's weapons (shooter.Weapons) trace their
// pellets. Each
// Trace counts a shot fired by the shooter and starts the pellet's
// record; a miss is recorded at once, a hit when it is registered (Hit)
// or at the next Trace or the end of Fire, as a hit the game did not
// register (Outcome discarded). In a time warp re-simulation the world
// is the re-run tick's, with the bodies the re-simulation settled on.
func (w *ShotWorld) Trace(ray geom.Ray, maxDist float64) (lagcomp.RewindHit, bool) {
	w.settleOpen()
	w.traced.ok, w.human = false, false
	if w.run != nil {
		return w.run.traceShot(w, ray, maxDist)
	}
	s := w.s
	w.judge()
	rec := &w.rec
	*rec = s.pelletRecord(w.Shot.Now, w.ps, w.pellets)
	rec.Eye, rec.Tested = ray.Origin, w.at
	if w.rewound {
		rec.Rewound = true
		rec.RewindMS = float64(w.Shot.Now-w.at) / float64(time.Millisecond)
	}
	w.pellets++
	w.c.shotsFired++
	w.ray, w.reach = ray, maxDist
	var h lagcomp.RewindHit
	var ok bool
	if s.humans {
		h, ok = w.traceHumans(ray, maxDist)
	} else {
		h, ok = s.TraceAt(ray, maxDist, w.at, w.skip)
		s.recorder.traced(ray, maxDist, &h, ok)
	}
	w.keepTraced(ray, maxDist, &h, ok)
	if !ok {
		s.emit(rec)
		return lagcomp.RewindHit{}, false
	}
	w.hit, w.open = h, true
	return h, true
}

// traceHumans traces ray up to maxDist at the shot's Time where the
// players are lagkit's humanoids: the entities' bodies first, then the
// players' humanoid hitboxes (lagcomp.Tracer, which the map's boxes
// stop) before the entity met, and a ray that met nothing is offered to
// the world adjustments (Config.Adjust). It notes in the record what an
// adjustment did and keeps the pellet for time warp.
func (w *ShotWorld) traceHumans(ray geom.Ray, maxDist float64) (lagcomp.RewindHit, bool) {
	s := w.s
	limit := maxDist
	var eh lagcomp.RewindHit
	entity := false
	if s.rewind != nil {
		if eh, entity = s.TraceAt(ray, maxDist, w.at, w.skip); entity {
			limit = eh.Dist
		}
	}
	hh, ok := s.tracer.Trace(ray, limit, w.at, w.Shot.Shooter)
	if !ok && !entity && len(s.adjust) > 0 {
		hh, ok = s.adjusted(&w.lag, ray, maxDist, w.at, &w.rec)
	}
	switch {
	case ok:
		w.human, w.hh = true, hh
		s.recorder.hitscan(ray, maxDist, hh.Victim, hh.Dist)
		return humanHit(&hh), true
	case entity:
		w.human = false
		s.recorder.hitscan(ray, maxDist, eh.ID, eh.Dist)
		return eh, true
	}
	s.recorder.hitscan(ray, maxDist, -1, 0)
	return lagcomp.RewindHit{}, false
}

// humanHit is hit h on a humanoid player as ShotWorld.Trace reports it.
func humanHit(h *lagcomp.Hit) lagcomp.RewindHit {
	return lagcomp.RewindHit{
		ID: h.Victim, BodyHit: lagcomp.BodyHit{Part: int(h.Part), Dist: h.Dist, Local: h.Local},
		Point: h.Point, Pose: lagcomp.PoseOf(h.Pose),
	}
}

// settleOpen records a pellet whose hit the resolver did not register.
func (w *ShotWorld) settleOpen() {
	if !w.open {
		return
	}
	w.open = false
	w.noteHit(&w.hit)
	if w.run != nil && !w.run.settleShot(w) {
		return // as recorded
	}
	w.s.settled(&w.rec, wire.OutcomeDiscarded, false, 0, false)
}

// noteHit notes hit h in the pellet's record: the player or entity hit
// and the part.
func (w *ShotWorld) noteHit(h *lagcomp.RewindHit) {
	rec := &w.rec
	rec.Hit, rec.Part = true, bodyPart(h.Part, w.s.cfg.Shape.PartCount())
	if h.ID < len(w.s.clients) {
		rec.Victim, rec.Entity = h.ID, 0
	} else {
		rec.Victim, rec.Entity = -1, h.ID
	}
}

// bodyPart is the part a game's body hit (lagcomp.BodyHit.Part) is
// recorded and sent as: its index, the last of the declared parts
// (Config.Shape) for any beyond.
func bodyPart(i, parts int) game.PartKind {
	return game.PartKind(max(0, min(i, parts-1)))
}

// Hit registers the hit the last Trace found, dealing damage (none is a
// hit that takes no health, still judged, told and recorded; below none
// Hit does nothing), and reports whether it stood at once and whether
// it killed. A hit on an entity stands: the entity is the game's, which
// applies its damage itself when Hit reports it. A hit on a player is
// judged by the lag compensation policy: registered; discarded; beyond
// its rollback cap, traced again at the present (the player the ray
// meets there takes the hit, for the damage of the resolver's Damage if
// it is a Damager, else for damage; an entity or nothing met is a
// miss); or provisional, awaiting the victim's appeal (applied when the
// appeal is settled: Hit reports false). A registered hit takes its damage through
// Absorber, if the resolver is one, and health: at none the victim dies,
// a kill by the shooter scored by the rules. Hit without an open hit
// (none traced, a miss, or one registered already) does nothing. In a
// time warp re-simulation (see Rejudged) Hit reports a hit registered
// only when it is news; a hit on an entity that the shot's record has
// stands as the game applied it, and one the re-simulation no longer
// finds is taken back through the resolver, if it is an Unhitter
// (entities are the game's, not re-simulated).
func (w *ShotWorld) Hit(damage int16) (registered, kill bool) {
	if !w.open || damage < 0 {
		return false, false
	}
	w.open = false
	s, h, rec := w.s, &w.hit, &w.rec
	w.noteHit(h)
	if w.run != nil {
		return w.run.hitShot(w, damage)
	}
	if rec.Entity != 0 {
		s.recorder.struck(h.ID, damage)
		s.settled(rec, wire.OutcomeRegistered, true, damage, false)
		return true, false
	}
	if w.human {
		return w.hitHuman(damage)
	}
	v := s.clients[h.ID] // connected: Trace passes the others
	pose := v.state
	if st, ok := s.history.At(h.ID, w.at); ok {
		pose = st
	}
	pose.Pos = h.Pose.Pos
	found := &s.found
	*found = lagcomp.Found{
		Hit:     lagcomp.Hit{Victim: h.ID, Part: rec.Part, Dist: h.Dist, Point: h.Point, Local: h.Local, Pose: pose},
		Rewound: rec.Rewound, VictimRTT: measuredRTT(&v.rtt), VictimNow: v.state,
		Grid: s.cfg.Map.Grid, Params: s.cfg.Movement, OnBody: true,
	}
	verdict := w.judgeHit(found, v, h.Pose.Pos)
	if verdict == lagcomp.Unrewind {
		// Beyond the policy's rollback cap: judge the shot as the
		// present has it instead.
		w.unrewind()
		now, ok := s.TraceAt(w.ray, w.reach, w.Shot.Now, w.skip)
		if !ok || now.ID >= len(s.clients) {
			return w.missNow()
		}
		damage = w.redamage(&now, damage)
		*h, pose = now, s.clients[now.ID].state
		pose.Pos = now.Pose.Pos
		rec.Victim, rec.Part = now.ID, bodyPart(now.Part, s.cfg.Shape.PartCount())
		verdict = lagcomp.Register
	}
	hit := hitInfo{
		shooter: w.Shot.Shooter, victim: h.ID, shotTick: w.Shot.Cmd.Tick, part: rec.Part,
		local: h.Local, eye: game.SnapPos(w.ray.Origin), damage: damage, impact: h.Point, onBody: true,
	}
	hit.tested = tested{ok: true, pose: pose, now: s.clients[h.ID].state.Pos, impact: h.Point, rewindMS: rec.RewindMS}
	return w.verdict(verdict, &hit)
}

// hitHuman registers the hit the last Trace found on a humanoid player
// (w.hh), for damage, as Hit does a hit on a body: judged by the
// policy, its spot in the frame of the humanoid part hit.
func (w *ShotWorld) hitHuman(damage int16) (registered, kill bool) {
	s, h, rec := w.s, &w.hh, &w.rec
	v := s.clients[h.Victim] // connected: the tracer tests only hittable players
	found := &s.found
	*found = lagcomp.Found{
		Hit: *h, Rewound: rec.Rewound, VictimRTT: measuredRTT(&v.rtt), VictimNow: v.state,
		Grid: s.cfg.Map.Grid, Params: s.cfg.Movement,
	}
	verdict := w.judgeHit(found, v, h.Pose.Pos)
	if verdict == lagcomp.Unrewind {
		// Beyond the policy's rollback cap: judge the shot as the
		// present has it instead.
		w.unrewind()
		now, ok := s.tracer.Trace(w.ray, w.reach, w.Shot.Now, w.Shot.Shooter)
		if !ok {
			return w.missNow()
		}
		rh := humanHit(&now)
		damage = w.redamage(&rh, damage)
		*h = now
		rec.Victim, rec.Part = now.Victim, now.Part
		verdict = lagcomp.Register
	}
	hit := hitInfo{
		shooter: w.Shot.Shooter, victim: h.Victim, shotTick: w.Shot.Cmd.Tick, part: h.Part,
		local: h.Local, eye: game.SnapPos(w.ray.Origin), damage: damage, impact: h.Point,
	}
	hit.tested = tested{ok: true, pose: h.Pose, now: s.clients[h.Victim].state.Pos, impact: h.Point, rewindMS: rec.RewindMS}
	return w.verdict(verdict, &hit)
}

// judgeHit has the policy judge the hit found on player v, tested at pos:
// how far the victim was moved back along the ground, when the shot was
// rewound, is noted in found and the record first.
func (w *ShotWorld) judgeHit(found *lagcomp.Found, v *client, pos geom.Vec3) lagcomp.Verdict {
	rec := &w.rec
	if rec.Rewound {
		d := pos.Sub(v.state.Pos)
		found.RollbackM = math.Hypot(d.X, d.Y)
	}
	rec.RollbackM = found.RollbackM
	return w.s.policy.Judge(&w.lag, found)
}

// unrewind notes in the record that the shot is judged at the present,
// beyond the policy's rollback cap.
func (w *ShotWorld) unrewind() {
	rec := &w.rec
	rec.Rewound, rec.RewindMS, rec.RollbackM, rec.Tested = false, 0, 0, w.Shot.Now
}

// missNow records the shot, traced again at the present, as a miss.
func (w *ShotWorld) missNow() (registered, kill bool) {
	rec := &w.rec
	rec.Hit, rec.Victim, rec.Part = false, -1, 0
	w.s.emit(rec)
	return false, false
}

// redamage returns the damage of hit h, met when the shot was traced
// again at the present: the resolver's Damage if it is a Damager, else
// the damage the hit was registered with.
func (w *ShotWorld) redamage(h *lagcomp.RewindHit, damage int16) int16 {
	if d, ok := w.s.cfg.Shots.(Damager); ok {
		return d.Damage(w, h)
	}
	return damage
}

// verdict applies the policy's verdict on player hit h: an appeal
// started (the hit applied once it is settled), a discarded hit, or a
// registered one; it reports whether the hit stood at once and killed.
func (w *ShotWorld) verdict(verdict lagcomp.Verdict, h *hitInfo) (registered, kill bool) {
	s, rec := w.s, &w.rec
	switch verdict {
	case lagcomp.Appeal:
		if s.startAppeal(w.Shot.Now, h, *rec) {
			return false, false // recorded when the appeal is decided
		}
	case lagcomp.Discard:
		s.apply(w.Shot.Now, h, rec, wire.OutcomeDiscarded, false)
		return false, false
	}
	s.apply(w.Shot.Now, h, rec, wire.OutcomeRegistered, true)
	return rec.Registered, rec.Kill
}

// Damager is a Shots whose hits are worth what they meet. When the lag
// compensation policy judges a hit on a player beyond its rollback cap
// (clc's, lagcomp.Unrewind), the core traces the shot's ray again at
// the present, and the player it meets there takes the hit; Damage
// gives its damage. Without it, the hit keeps the damage Hit was given.
type Damager interface {
	Damage(w *ShotWorld, h *lagcomp.RewindHit) int16
}

// Shell is a projectile a resolver launches (ShotWorld.Launch): the
// server flies it tick by tick against the present world (projectiles
// are not lag compensated), and it explodes on its first contact.
type Shell struct {
	// Speed is its speed in metres per second, and Range how far it
	// flies before it expires, a miss.
	Speed, Range float64
	// Damage is what a direct hit takes from the part it hits
	// (lagkit's humanoid parts, game.PartKind).
	Damage [game.NumParts]int16
	// SplashRadius is the radius of its explosion (0: none), and
	// SplashDamage the damage at its centre, falling off linearly to 0
	// at the radius.
	SplashRadius float64
	SplashDamage int16
}

// Launch fires pellet of the shot as projectile sh along ray: from
// ray's origin along its direction at sh.Speed (both snapped to the
// wire's grids, so that the clients' wire.ProjectileEvent describes the
// path flown), flown from the next tick (projectile.go). It counts as a
// shot fired; its record is made when it settles. Pellets are numbered
// as the resolver traces and launches them, from 0. Its flight meets
// the map and lagkit's humanoid hitboxes of the players' present
// states; a game's own bodies (Config.Body, BodyOf) are not flown
// against.
func (w *ShotWorld) Launch(ray geom.Ray, sh Shell) {
	pellet := w.pellets
	w.settleOpen()
	w.pellets++
	w.c.shotsFired++
	if r := w.run; r != nil {
		var op *warpPellet
		if pellet < len(w.old) {
			op = &w.old[pellet]
		}
		r.launch(w.sh, pellet, ray, &sh, op)
		return
	}
	w.s.launch(w.Shot.Now, w.ps, pellet, ray, &sh)
}
