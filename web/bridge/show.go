package bridge

import (
	"errors"
	"math"
	"slices"
	"time"

	"github.com/lagkit/lagkit/client"
	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/shooter/weapon"
	"github.com/lagkit/lagkit/wire"
)

// Rewind is the rewind view of one hit, from the server's RewindEvent
// (lag compensation shown, as Source's sv_showlagcompensation draws
// the rewound hitboxes, [source]): for the local player's own shot
// (Mine), the victim's hitboxes the server tested at the rewound time
// (Tested), where this page drew the victim when the shot was fired
// (Seen, empty when no longer known) and where the server had the victim
// when it judged the shot (Now); for a hit on the local player, the
// shooter's view of it (Tested) beside where the server had it (Now).
type Rewind struct {
	Mine      bool    `json:"mine"`
	Shooter   int     `json:"shooter"`
	Victim    int     `json:"victim"`
	ShotTick  uint32  `json:"shotTick"`
	Part      string  `json:"part"`
	Outcome   string  `json:"outcome"`
	RewindMs  float64 `json:"rewindMs"`
	RollbackM float64 `json:"rollbackM"`
	// SeenOffM is how far the drawn victim stood from the tested one,
	// along the ground (-1 when Seen is unknown).
	SeenOffM float64         `json:"seenOffM"`
	Tested   []game.PartView `json:"tested"`
	Now      []game.PartView `json:"now"`
	Seen     []game.PartView `json:"seen"`
	Eye      [3]float64      `json:"eye"`
	Impact   [3]float64      `json:"impact"`
}

// Tracer is a shot's line: the local player's own shots as predicted
// ("own", to where the ray meets the map or its range ends), hits the
// server showed ("hit", from the shooter's eye to the impact) and other
// players' shots the server told of ("shot", from the shooter's eye to
// where the ray stopped).
type Tracer struct {
	Kind string     `json:"kind"`
	From [3]float64 `json:"from"`
	To   [3]float64 `json:"to"`
}

// Projectile is a projectile in flight, where it is now.
type Projectile struct {
	ID    uint32     `json:"id"`
	Owner int        `json:"owner"`
	Pos   [3]float64 `json:"pos"`
}

// Explosion is a projectile that hit something.
type Explosion struct {
	Pos    [3]float64 `json:"pos"`
	Radius float64    `json:"radius"`
}

// inFlight is a projectile the page draws until it explodes or expires.
type inFlight struct {
	ev  wire.ProjectileEvent
	end time.Duration // server time it has flown its range
}

// maxFlights bounds the projectiles drawn at once.
const maxFlights = 64

// ReportSBC sends the player's "I was shot behind cover" report, naming
// the newest hit on it (see client.Client.ReportSBC): ErrNoHit before any
// hit on the player, ErrReported when that hit was reported already.
func (s *Session) ReportSBC() error {
	if s.c.Phase() == client.Connected && !s.hurt {
		return ErrNoHit
	}
	err := s.c.ReportSBC()
	s.take(s.last, s.c.Ready()) // the report
	switch err {
	case client.ErrReported:
		return ErrReported
	case client.ErrNotConnected:
		return ErrNotConnected
	default:
		return err
	}
}

// The reasons ReportSBC refuses a report, as the page shows them.
var (
	ErrNoHit        = errors.New("no hit on you to report")
	ErrReported     = errors.New("already reported")
	ErrNotConnected = errors.New("not connected")
)

// tickShown gives a shot the local player fired its tracer.
func (s *Session) tickShown(sh client.Shot) {
	in, st := s.aim, sh.State
	if int(weapon.ArmsOf(&st).Weapon) >= len(s.weapons) || s.weapons[weapon.ArmsOf(&st).Weapon].Kind != weapon.Hitscan {
		return // projectiles are drawn from the server's events
	}
	eye := game.EyePos(st, &s.params)
	dir := game.AimDir(in.Yaw, in.Pitch)
	dist := s.weapons[weapon.ArmsOf(&st).Weapon].Range
	if h, ok := s.m.Grid.Raycast(geom.Ray{Origin: eye, Dir: dir}, dist); ok {
		dist = h.Dist
	}
	if dir.Z < 0 {
		dist = min(dist, -eye.Z/dir.Z) // the ground
	}
	to := eye.Add(dir.Scale(dist))
	s.tracer(Tracer{Kind: "own", From: vec(eye), To: vec(to)})
	if len(s.shots) >= maxEvents {
		s.shots = s.shots[1:]
	}
	s.shots = append(s.shots, ownShot{cmd: sh.Cmd.Aimed(), eye: eye, to: to, at: s.last})
}

// ownShot is a hitscan shot of the local player not yet known to have
// hit: when no rewind of it comes within missWait, it is shown as a miss.
type ownShot struct {
	cmd     game.UserCmd
	eye, to geom.Vec3
	at      time.Duration // local time fired
}

// missWait is how long after a shot, beyond the round trip, the server's
// rewind of a hit may take before the shot counts as a miss.
const missWait = 500 * time.Millisecond

// misses turns the shots no hit came back for by now into the rewind
// view's misses: the shot's line and where this page drew the player
// nearest it when fired (Seen); the server sends no account of a miss,
// so Tested and Now are empty.
func (s *Session) misses(now time.Duration) {
	wait := missWait + s.c.RTT()
	keep := s.shots[:0]
	for _, sh := range s.shots {
		if now-sh.at < wait {
			keep = append(keep, sh)
			continue
		}
		r := Rewind{
			Mine: true, Shooter: s.c.ID(), Victim: -1, ShotTick: sh.cmd.Tick, Outcome: "miss", SeenOffM: -1,
			Tested: []game.PartView{}, Now: []game.PartView{}, Seen: []game.PartView{}, Eye: vec(sh.eye), Impact: vec(sh.to),
		}
		best := 3.0 // metres from the line: farther is no near miss
		s.ids = s.c.RemoteIDs(s.ids[:0])
		for _, id := range s.ids {
			ps, ok := s.c.Remote(id, sh.cmd.ViewTime)
			if !ok || id == s.c.ID() || ps.Has(game.FlagDead) {
				continue
			}
			c := ps.Pos.Add(geom.V(0, 0, 1))
			if d := segmentDist(c, sh.eye, sh.to); d < best {
				best, r.Victim, r.Seen = d, id, s.parts(ps)
			}
		}
		r.SeenOffM = -1
		if r.Victim >= 0 {
			r.RollbackM = 0
		}
		if len(s.rewinds) >= maxEvents {
			s.rewinds = s.rewinds[1:]
		}
		s.rewinds = append(s.rewinds, r)
	}
	s.shots = keep
}

// segmentDist is the distance from p to the segment from a to b.
func segmentDist(p, a, b geom.Vec3) float64 {
	ab, ap := b.Sub(a), p.Sub(a)
	t := 0.0
	if l := ab.Dot(ab); l > 0 {
		t = math.Max(0, math.Min(1, ap.Dot(ab)/l))
	}
	return p.Dist(a.Add(ab.Scale(t)))
}

func (s *Session) tracer(t Tracer) {
	if len(s.tracers) >= maxEvents {
		s.tracers = s.tracers[1:]
	}
	s.tracers = append(s.tracers, t)
}

// collectShown gathers the server's rewind, tracer, kill, projectile and
// explosion events the client core handed over.
func (s *Session) collectShown(r *client.Ready) {
	c := s.c
	me := c.ID()
	for _, e := range r.Rewinds {
		if int(e.Shooter) == me {
			// A hit: that shot missed nothing.
			s.shots = slices.DeleteFunc(s.shots, func(sh ownShot) bool { return sh.cmd.Tick == e.ShotTick })
		}
		r := s.rewind(&e, me)
		if len(s.rewinds) >= maxEvents {
			s.rewinds = s.rewinds[1:]
		}
		s.rewinds = append(s.rewinds, r)
		s.tracer(Tracer{Kind: "hit", From: r.Eye, To: r.Impact})
	}
	for _, t := range r.Tracers {
		s.tracer(Tracer{Kind: "shot", From: vec(t.From), To: vec(t.To)})
	}
	for _, k := range r.Kills {
		if int(k.Victim) == me {
			s.killer = int(k.Killer)
		}
		killer := int(k.Killer)
		if k.Killer == k.Victim {
			killer = -1 // a death by no one (the world, the game)
		}
		s.event(Event{Kind: "kill", Other: int(k.Victim), Killer: killer})
	}
	for _, p := range r.Projectiles {
		if len(s.flights) >= maxFlights {
			s.flights = s.flights[1:]
		}
		end := time.Duration(p.Tick) * c.TickDuration()
		if int(p.Weapon) < len(s.weapons) {
			if v := p.Velocity.Len(); v > 0 {
				end += time.Duration(s.weapons[p.Weapon].Range / v * float64(time.Second))
			}
		}
		s.flights = append(s.flights, inFlight{ev: p, end: end})
	}
	for _, e := range r.Explosions {
		for i := range s.flights {
			if s.flights[i].ev.ID == e.ID {
				s.flights = append(s.flights[:i], s.flights[i+1:]...)
				break
			}
		}
		if len(s.explosions) >= maxEvents {
			s.explosions = s.explosions[1:]
		}
		s.explosions = append(s.explosions, Explosion{Pos: vec(e.Pos), Radius: e.Radius})
	}
}

// rewind turns a RewindEvent into the rewind view's hitboxes.
func (s *Session) rewind(e *wire.RewindEvent, me int) Rewind {
	pose := game.PlayerState{Pos: e.Pos, Yaw: e.Yaw}
	if e.Crouched {
		pose.Flags |= game.FlagCrouched
	}
	r := Rewind{
		Mine: int(e.Shooter) == me, Shooter: int(e.Shooter), Victim: int(e.Victim), ShotTick: e.ShotTick,
		Part: e.Part.String(), Outcome: e.Outcome.String(),
		RewindMs:  float64(e.Rewind) / float64(time.Millisecond),
		RollbackM: math.Hypot(e.Pos.X-e.Now.X, e.Pos.Y-e.Now.Y),
		SeenOffM:  -1,
		Tested:    s.parts(pose), Eye: vec(e.Eye), Impact: vec(e.Impact),
	}
	pose.Pos = e.Now
	r.Now = s.parts(pose)
	r.Seen = []game.PartView{}
	if r.Mine {
		if cmd, ok := s.c.Cmd(e.ShotTick); ok {
			if seen, ok := s.c.Remote(r.Victim, cmd.ViewTime); ok {
				r.Seen = s.parts(seen)
				r.SeenOffM = math.Hypot(seen.Pos.X-e.Pos.X, seen.Pos.Y-e.Pos.Y)
			}
		}
	}
	return r
}

// projectiles returns where the projectiles in flight are at server time
// t, forgetting those that have flown their range.
func (s *Session) projectiles(t time.Duration) []Projectile {
	out := []Projectile{}
	s.eachProjectile(t, func(p Projectile) { out = append(out, p) })
	return out
}

// eachProjectile calls f with each projectile in flight at server time
// t, forgetting those that have flown their range.
func (s *Session) eachProjectile(t time.Duration, f func(Projectile)) {
	keep := s.flights[:0]
	td := s.c.TickDuration()
	for _, fl := range s.flights {
		if t > fl.end {
			continue
		}
		keep = append(keep, fl)
		dt := max(0, t-time.Duration(fl.ev.Tick)*td).Seconds()
		f(Projectile{ID: fl.ev.ID, Owner: int(fl.ev.Owner), Pos: vec(fl.ev.Origin.Add(fl.ev.Velocity.Scale(dt)))})
	}
	s.flights = keep
}
