package server

import (
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/lagcomp"
	"github.com/lagkit/lagkit/wire"
)

// What a command, a shot and a projectile do: the rules every tick runs
// by, whether the server runs it live or time warp re-runs it. Movement
// and firing (act), a pellet's damage (pelletHit), a projectile's launch
// (projectileFor), its flight through a tick (segment, worldContact,
// firstPlayer, advance), its blast (blastHit) and the records and events
// they make are written once, here; the live tick (resolveShots,
// moveProjectiles) and time warp's re-simulation (timewarp_judge.go)
// differ only in which players' states they apply them to (an arena) and
// in what they do with the outcome: the live tick applies it, a
// re-simulation compares it with what the tick recorded before.

// arena is the world a tick's shots and projectiles meet: the live
// server's players, or a time warp re-simulation's at the tick it
// re-runs.
type arena interface {
	// player returns the state of the player in slot id, nil for none.
	player(id int) *game.PlayerState
	// hittable reports whether shooter can hit the player in slot id.
	hittable(shooter, id int) bool
}

// player returns the live state of the player in slot id.
func (s *Server) player(id int) *game.PlayerState {
	if c := s.clients[id]; c != nil {
		return &c.state
	}
	return nil
}

// act runs cmd on player id in state st through the game's step,
// Config.Step, and reports whether it fired.
func (s *Server) act(id int, st game.PlayerState, cmd game.UserCmd) (game.PlayerState, bool) {
	// One context, rewritten for each command: a pointer to a local
	// would escape through the step's function value and allocate.
	ctx := &s.stepCtx
	ctx.Grid, ctx.Params = s.cfg.Map.Grid, s.cfg.Movement
	ctx.Slot, ctx.Team = id, 0
	if c := s.clients[id]; c != nil {
		ctx.Team = c.team
	}
	ctx.Tick, ctx.Time = cmd.Tick, time.Duration(cmd.Tick)*s.tickDur
	ctx.View = s.stepView
	st, fired := s.cfg.Step(st, cmd, ctx)
	// On the wire's grid, as the movement snaps the position: what the
	// owner decodes is what the server holds, and its prediction from
	// it reproduces the server's.
	s.cfg.Game.Snap(&st.Game)
	return st, fired
}

// shotRecord starts the record of pellet of the shot shooter fired with
// command shotTick, with weapon slot (Armoury), resolved at now.
func (s *Server) shotRecord(now time.Duration, shooter int, shotTick uint32, pellet int, slot uint8) ShotRecord {
	return ShotRecord{
		Time: now, Shooter: shooter, ShotTick: shotTick, Pellet: pellet, Victim: -1,
		Policy: s.policy.Name(), Weapon: slot,
	}
}

// projectileFor returns pellet of the shot that command shotTick of
// shooter (owner) fired with weapon slot, launched as shell sh along
// ray, as the projectile id: origin and velocity snapped to the wire's
// grids so that the ProjectileEvent describes exactly the path
// simulated. The projectile leaves from ray's origin at the tick, where
// its flight is simulated from.
func projectileFor(shooter int, owner *client, slot uint8, shotTick uint32, pellet int, ray geom.Ray, sh *Shell, id uint32) projectile {
	vel := snapVel(ray.Dir.Scale(sh.Speed))
	return projectile{
		id: id, shooter: shooter, owner: owner, slot: slot,
		shell: *sh, shot: shotTick, pellet: pellet,
		pos: game.SnapPos(ray.Origin), vel: vel, dir: vel.Norm(), speed: vel.Len(), left: sh.Range,
	}
}

// dropProjectile settles a pellet that would have launched a projectile
// beyond MaxProjectiles as a miss; warped marks a re-simulation's record.
func (s *Server) dropProjectile(now time.Duration, shooter int, shotTick uint32, pellet int, slot uint8, warped bool) {
	s.stats.ProjectilesDropped++
	rec := s.shotRecord(now, shooter, shotTick, pellet, slot)
	rec.Projectile, rec.Warped = true, warped
	s.emit(&rec)
}

// announceLaunch tells the clients of p's launch at tick.
func (s *Server) announceLaunch(p *projectile, tick uint32) {
	ev := wire.ProjectileEvent{ID: p.id, Owner: uint8(p.shooter), Weapon: p.slot, Tick: tick, Origin: p.pos, Velocity: p.vel}
	if data, err := wire.AppendProjectileEvent(nil, &ev); err == nil {
		s.tellAll(wire.EventProjectile, data)
	}
}

// contact is what ends a projectile's tick of flight first: a box, the
// ground or a player (direct; Victim -1 for none), at dist along its
// segment.
type contact struct {
	hit    bool
	dist   float64
	normal geom.Vec3
	direct lagcomp.Hit
}

// segment returns the ray p flies along this tick and its length.
func (s *Server) segment(p *projectile) (geom.Ray, float64) {
	return geom.Ray{Origin: p.pos, Dir: p.dir}, min(p.speed*s.tickDur.Seconds(), p.left)
}

// noContact is the contact of a projectile that met nothing.
func noContact() contact { return contact{direct: lagcomp.Hit{Victim: -1}} }

// worldContact returns where p's segment ray, seg long, first meets the
// map's boxes or the ground, if it does.
func (s *Server) worldContact(p *projectile, ray geom.Ray, seg float64) contact {
	c := noContact()
	c.dist = seg
	if wall, ok := s.cfg.Map.Grid.Raycast(ray, c.dist); ok {
		c.dist, c.normal, c.hit = wall.Dist, wall.Normal, true
	}
	if ground := s.cfg.Map.Bounds.Min.Z; p.dir.Z < 0 {
		if d := (ground - p.pos.Z) / p.dir.Z; d <= c.dist {
			c.dist, c.normal, c.hit = max(d, 0), geom.Vec3{Z: 1}, true
		}
	}
	return c
}

// meet makes player hit h the contact.
func (c *contact) meet(h lagcomp.Hit) {
	c.hit, c.dist, c.normal, c.direct = true, h.Dist, geom.Vec3{}, h
}

// centre returns the blast centre of contact c on ray: lifted off the
// surface hit, so that the surface itself does not block the lines of
// sight from it.
func (c *contact) centre(ray geom.Ray) geom.Vec3 {
	return ray.At(c.dist).AddScaled(c.normal, blastLift)
}

// firstPlayer returns the first player other than shooter, among the
// slots ids (nil: every slot) that shooter can hit in arena a, whose
// hitboxes the ray (a hitscan pellet or a projectile's segment) meets
// within maxDist. Projectiles are not lag compensated (as in Half-Life):
// they meet the players' states of the tick.
func (s *Server) firstPlayer(a arena, ray geom.Ray, maxDist float64, shooter int, ids []int) (lagcomp.Hit, bool) {
	best := lagcomp.Hit{Victim: -1}
	found := false
	n := len(ids)
	if ids == nil {
		n = len(s.clients)
	}
	for k := range n {
		id := k
		if ids != nil {
			id = ids[k]
		}
		if id == shooter {
			continue
		}
		st := a.player(id)
		if st == nil || !a.hittable(shooter, id) {
			continue
		}
		if h, ok := lagcomp.TracePlayer(ray, maxDist, *st, s.cfg.Movement); ok {
			h.Victim = id
			best, found, maxDist = h, true, h.Dist
		}
	}
	return best, found
}

// advance moves p along its segment ray, seg long, without contact, and
// reports whether it flies on: not when it has flown its range or left
// the map's bounds.
func (s *Server) advance(p *projectile, ray geom.Ray, seg float64) bool {
	p.pos = ray.At(seg)
	p.left -= seg
	return p.left > 1e-9 && s.cfg.Map.Bounds.Contains(p.pos)
}

// blastHit is the damage p's contact at centre, a direct hit on
// direct.Victim (-1 for none), deals the player in slot id in state st:
// the blast's splash, or for the player hit directly the larger of its
// direct and splash damage (the impact and the blast are one explosion).
func (s *Server) blastHit(p *projectile, centre geom.Vec3, direct *lagcomp.Hit, id int, st *game.PlayerState) hitInfo {
	h := hitInfo{
		shooter: p.shooter, victim: id, shotTick: p.shot, part: game.PartTorso,
		eye: game.SnapPos(centre), damage: s.splash(&p.shell, centre, *st), impact: centre,
	}
	if id == direct.Victim {
		h.part, h.local, h.impact = direct.Part, direct.Local, direct.Point
		if d := p.shell.Damage[direct.Part]; d >= h.damage {
			h.damage, h.eye = d, game.SnapPos(p.pos)
		}
	}
	return h
}

// struck notes in a projectile's record its direct hit (Victim -1: none).
func (rec *ShotRecord) struck(direct *lagcomp.Hit) {
	if direct.Victim >= 0 {
		rec.Hit, rec.Victim, rec.Part = true, direct.Victim, direct.Part
	}
}

// damaged notes in a projectile's record that its blast dealt damage to
// victim, killing or not: the direct victim's damage, or one more player
// splashed.
func (rec *ShotRecord) damaged(direct *lagcomp.Hit, victim int, damage int16, kill bool) {
	if victim == direct.Victim {
		rec.Registered, rec.Damage, rec.Kill = true, damage, kill
	} else {
		rec.Splashed++
	}
}

// announceExplosion tells the clients of p's explosion at centre at tick.
func (s *Server) announceExplosion(p *projectile, tick uint32, centre geom.Vec3) {
	ev := wire.ExplosionEvent{ID: p.id, Tick: tick, Pos: game.SnapPos(centre), Radius: p.shell.SplashRadius}
	if data, err := wire.AppendExplosionEvent(nil, &ev); err == nil {
		s.tellAll(wire.EventExplosion, data)
	}
}
