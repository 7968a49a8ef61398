package server

import (
	"math"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/lagcomp"
	"github.com/lagkit/lagkit/wire"
)

// Projectiles. A resolver launches a projectile (ShotWorld.Launch: lagkit's
// shooter's projectile weapons launch one per pellet from the shooter's
// eye along weapon.ShotRay) along a ray at its Shell's Speed (origin and
// velocity snapped to the wire's grids, so that the ProjectileEvent
// describes exactly the path simulated). It first
// moves on the tick after the one that fired it, so it is at its origin at
// that tick's time and a flight of d metres ends between d/Speed and
// d/Speed plus one tick later. Each tick it flies in a straight line (no
// gravity); the segment is tested against the map's boxes, the ground and
// lagkit's humanoid hitboxes of the players' current states (as Half-Life does,
// projectiles are not lag compensated, [source]), and the first
// contact wins. The owner and its team mates are never hit (Server's
// hittable rule, as for hitscan). A projectile expires, settling as a
// miss, when it has flown its Range or leaves the map's bounds;
// when its owner leaves, its projectiles settle as misses.
//
// On contact with a player it deals that part's Damage. A shell with a
// SplashRadius then explodes: every hittable player whose torso centre
// lies within the radius of the blast, with no box in between, takes
// SplashDamage * (1 - d/SplashRadius) at distance d. The player hit
// directly takes the larger of its direct and splash damage, not both:
// the impact and the blast are one explosion. Kills by splash are kills,
// credited to the owner.
//
// Each projectile settles as one ShotRecord (Projectile true, Rewound
// false): Victim and Damage are the direct hit's (Victim -1 for none),
// Splashed counts the other players the blast damaged. The owner's Hits
// count a projectile once if it damaged anyone; each player damaged counts
// a hit taken and receives a HitEvent whose ShooterEye is where the damage
// came from (the projectile's position at the start of its last tick for
// a direct hit, the blast centre for splash), and the owner a
// ConfirmEvent per player damaged.

// MaxProjectiles bounds the projectiles in flight, server-wide, so that
// no client can grow the server's memory by firing: a pellet that would
// launch one more is a miss at once (Stats.ProjectilesDropped counts
// them). The shipped weapons stay far below it: 64 players firing the
// pistol non-stop keep about 550 in flight.
const MaxProjectiles = 1024

// blastLift moves a blast centre this far off the surface it hit, so that
// the surface itself does not block the lines of sight from it (box
// contact counts as blocking).
const blastLift = 0.01

// cosmeticEvents is the event queue length at or above which a client is
// not sent projectile and explosion events: they only serve drawing, and
// under heavy fire must neither delay the hits and kills queued behind
// them by more than one snapshot's share nor overflow the queue.
const cosmeticEvents = wire.MaxEvents / 2

// projectile is a projectile in flight.
type projectile struct {
	id      uint32
	shooter int
	owner   *client // tells the owner's departure from a new player in its slot
	slot    uint8
	shell   Shell
	shot    uint32 // the command that fired it
	pellet  int
	pos     geom.Vec3 // at the start of the next tick
	vel     geom.Vec3 // as launched, on the VelQuantum grid
	dir     geom.Vec3 // unit direction of flight
	speed   float64
	left    float64 // distance to fly before it expires
}

// Projectile is a projectile in flight, as Projectiles reports it.
type Projectile struct {
	ID      uint32
	Shooter int
	Weapon  uint8 // the weapon that fired it (Armoury)
	// Pos is where it is at the server's current time; Velocity is in
	// metres per second.
	Pos, Velocity geom.Vec3
}

// Projectiles appends the projectiles in flight to dst, oldest first.
func (s *Server) Projectiles(dst []Projectile) []Projectile {
	for i := range s.projectiles {
		p := &s.projectiles[i]
		dst = append(dst, Projectile{ID: p.id, Shooter: p.shooter, Weapon: p.slot, Pos: p.pos, Velocity: p.vel})
	}
	return dst
}

// launch fires pellet of shot ps as shell sh along ray.
func (s *Server) launch(now time.Duration, ps *pendingShot, pellet int, ray geom.Ray, sh *Shell) {
	p := projectileFor(ps.shooter, s.clients[ps.shooter], ps.weapon, ps.cmd.Tick, pellet, ray, sh, 0)
	if len(s.projectiles) >= MaxProjectiles {
		s.recorder.launch(&p)
		s.dropProjectile(now, ps.shooter, ps.cmd.Tick, pellet, ps.weapon, false)
		return
	}
	s.nextProjectile++
	p.id = s.nextProjectile
	s.recorder.launch(&p)
	s.projectiles = append(s.projectiles, p)
	s.announceLaunch(&p, s.tick)
}

// moveProjectiles flies every projectile one tick, in launch order,
// settling those that hit or expire.
func (s *Server) moveProjectiles(now time.Duration) {
	live := s.projectiles[:0]
	for i := range s.projectiles {
		p := s.projectiles[i]
		if s.clients[p.shooter] != p.owner {
			c := noContact()
			s.recorder.flight(&p, &c, true)
			s.settleMiss(now, &p)
			continue
		}
		if s.fly(now, &p) {
			live = append(live, p)
		}
	}
	clear(s.projectiles[len(live):]) // drop the settled ones' pointers
	s.projectiles = live
}

// fly moves p through one tick and reports whether it flies on; if not,
// it has been settled.
func (s *Server) fly(now time.Duration, p *projectile) bool {
	ray, seg := s.segment(p)
	c := s.worldContact(p, ray, seg)
	if h, ok := s.firstPlayer(s, ray, c.dist, p.shooter, nil); ok {
		c.meet(h)
	}
	if !c.hit {
		flies := s.advance(p, ray, seg)
		s.recorder.flight(p, &c, !flies)
		if !flies {
			s.settleMiss(now, p)
		}
		return flies
	}
	s.recorder.flight(p, &c, true)
	s.explode(now, p, c.centre(ray), &c.direct)
	return false
}

// settleMiss records p as a shot that hit nothing.
func (s *Server) settleMiss(now time.Duration, p *projectile) {
	rec := s.projectileRecord(now, p)
	s.emit(&rec)
}

func (s *Server) projectileRecord(now time.Duration, p *projectile) ShotRecord {
	rec := s.shotRecord(now, p.shooter, p.shot, p.pellet, p.slot)
	rec.Projectile = true
	return rec
}

// explode settles p, which came into contact at centre: a direct hit on
// direct.Victim (-1 for none) and the blast of its weapon's splash.
func (s *Server) explode(now time.Duration, p *projectile, centre geom.Vec3, direct *lagcomp.Hit) {
	rec := s.projectileRecord(now, p)
	rec.struck(direct)
	owner := p.owner // still connected: moveProjectiles checked
	landed := false
	for id, c := range s.clients {
		if c == nil || !s.hittable(p.shooter, id) {
			continue
		}
		h := s.blastHit(p, centre, direct, id, &c.state)
		if h.damage <= 0 {
			continue
		}
		pose := c.state
		kill := s.hurt(now, &h, true)
		landed = true
		rec.damaged(direct, id, h.damage, kill)
		s.confirm(owner, &h, h.damage, wire.OutcomeRegistered)
		s.showTested(&h, pose, 0)
	}
	if landed {
		owner.hitsLanded++
	}
	s.emit(&rec)
	s.announceExplosion(p, s.tick, centre)
}

// splash returns the damage shell w's blast at centre deals to a player
// in state st: SplashDamage falling off linearly to 0 at SplashRadius with
// the distance to the torso's centre, and nothing when a box stands in
// between.
func (s *Server) splash(w *Shell, centre geom.Vec3, st game.PlayerState) int16 {
	if w.SplashRadius <= 0 {
		return 0
	}
	torso := game.Hitboxes(st, s.cfg.Movement)[game.PartTorso].Origin
	d := torso.Dist(centre)
	if d >= w.SplashRadius || s.cfg.Map.Grid.SegmentBlocked(centre, torso) {
		return 0
	}
	return int16(math.Round(float64(w.SplashDamage) * (1 - d/w.SplashRadius)))
}

// snapVel rounds a velocity onto the game.VelQuantum grid.
func snapVel(v geom.Vec3) geom.Vec3 {
	q := func(x float64) float64 { return math.Round(x/game.VelQuantum) * game.VelQuantum }
	return geom.Vec3{X: q(v.X), Y: q(v.Y), Z: q(v.Z)}
}

// tellAll sends a projectile or explosion event to every client with
// fewer than cosmeticEvents events queued.
func (s *Server) tellAll(kind uint16, data []byte) {
	for _, c := range s.clients {
		if c != nil && len(c.events) < cosmeticEvents {
			s.sendEvent(c, kind, data)
		}
	}
}
