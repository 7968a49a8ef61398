package server

import (
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/lagcomp"
	"github.com/lagkit/lagkit/wire"
)

// The victims' judgments of the hits on them. A client runs SBC
// detection on every hit its player takes, on its own predicted pose
// when the hit arrives ([alc]; client.HitReport.SBC), and sends what it
// found as a wire.Sighting on its command packets. The server keeps,
// for each hit it tells a victim of (a wire.HitEvent), a sight awaiting
// that judgment; the hit's record joins it when the hit is settled
// (emit), and once both are there, or the judgment can no longer come,
// the record is handed over again, completed, in Ready.Sightings: a
// study's objective shot behind cover is what the victim's client found,
// stored through the same path live and simulated.

// Sight is the victim's client's judgment of a hit on it.
type Sight struct {
	// Known reports that the judgment arrived; SBC is then whether the
	// client's SBC detection found the hit behind cover. A hit whose
	// judgment never arrived (the victim left, the packets carrying it
	// were all lost, its client sends none) has neither.
	Known, SBC bool
}

// SightCounts counts the victims' sightings.
type SightCounts struct {
	// Taken counts the sightings tied to a hit; Ignored those that named
	// no hit awaiting one on their sender (the copies a client sends of
	// each, and any naming a hit on someone else or none at all).
	Taken, Ignored int
	// Unknown counts the hits handed over without their victim's
	// judgment (Sight.Known false).
	Unknown int
}

// sightWait is how long after telling a victim of a hit the server waits
// for its judgment: a round trip of a second, some copies lost, and the
// appeal window a provisional hit is settled within (its record joins
// its sight only then) all fit. A victim that left is not waited for.
const sightWait = 2 * time.Second

// maxSights bounds the hits one victim's judgments are awaited for; a
// hit that finds them full hands over the oldest unjudged. Within
// sightWait a victim takes far fewer: it dies after a few.
const maxSights = 64

// sight is a hit told to its victim, awaiting the victim's judgment and
// the hit's record.
type sight struct {
	shooter  int
	shotTick uint32
	part     game.PartKind
	told     time.Duration // server time the victim was told
	judged   Sight
	hasRec   bool
	rec      ShotRecord
}

// awaitSight notes that victim v was told of hit h (sendHit).
func (s *Server) awaitSight(v *client, h *hitInfo) {
	if len(v.sights) == maxSights {
		s.handSight(&v.sights[0])
		v.sights = append(v.sights[:0], v.sights[1:]...)
	}
	v.sights = append(v.sights, sight{shooter: h.shooter, shotTick: h.shotTick, part: h.part, told: s.Time()})
}

// joinSight ties rec, the record of a hit being emitted, to the sight of
// its victim's judgment, and marks it Told; a record of a hit its victim
// was not told of (discarded, or a splash's other victims) is left as it
// is. A judgment already in hands the record over at once.
func (s *Server) joinSight(rec *ShotRecord) {
	if !rec.Hit || rec.Victim < 0 || rec.Victim >= len(s.clients) || s.clients[rec.Victim] == nil {
		return
	}
	v := s.clients[rec.Victim]
	for i := range v.sights {
		g := &v.sights[i]
		if g.hasRec || g.shooter != rec.Shooter || g.shotTick != rec.ShotTick || g.part != rec.Part {
			continue
		}
		rec.Told = true
		g.rec, g.hasRec = *rec, true
		if g.judged.Known {
			s.handSight(g)
			v.sights = append(v.sights[:i], v.sights[i+1:]...)
		}
		return
	}
}

// sightings takes the judgments client c sent (Commands.Sightings): each
// settles the oldest hit on c awaiting one with its shooter, shot tick
// and part. A client can judge only the hits on itself, each once.
func (s *Server) sightings(c *client, list []wire.Sighting) {
	for _, m := range list {
		i := c.sightFor(&m)
		if i < 0 {
			s.stats.Sightings.Ignored++
			continue
		}
		s.stats.Sightings.Taken++
		g := &c.sights[i]
		g.judged = Sight{Known: true, SBC: m.SBC}
		if g.hasRec {
			s.handSight(g)
			c.sights = append(c.sights[:i], c.sights[i+1:]...)
		}
	}
}

// sightFor returns the index of the oldest of c's sights that sighting m
// judges, or -1.
func (c *client) sightFor(m *wire.Sighting) int {
	for i := range c.sights {
		g := &c.sights[i]
		if !g.judged.Known && g.shooter == int(m.Shooter) && g.shotTick == m.ShotTick && g.part == m.Part {
			return i
		}
	}
	return -1
}

// expireSights gives up, at now, on the judgments awaited longer than
// sightWait: their records are handed over without one.
func (s *Server) expireSights(now time.Duration) {
	for _, c := range s.clients {
		if c == nil || len(c.sights) == 0 || now-c.sights[0].told <= sightWait {
			continue
		}
		keep := c.sights[:0]
		for i := range c.sights {
			if g := &c.sights[i]; now-g.told > sightWait {
				s.handSight(g)
			} else {
				keep = append(keep, *g)
			}
		}
		c.sights = keep
	}
}

// dropSights hands over the records of the hits on c, which is leaving,
// as they stand.
func (s *Server) dropSights(c *client) {
	for i := range c.sights {
		s.handSight(&c.sights[i])
	}
	c.sights = c.sights[:0]
}

// handSight hands g's record over with its judgment (Ready.Sightings);
// a sight whose hit has no record (one never settled) hands over
// nothing.
func (s *Server) handSight(g *sight) {
	if !g.hasRec {
		return
	}
	rec := g.rec
	rec.Sight = g.judged
	if !g.judged.Known {
		s.stats.Sightings.Unknown++
	}
	s.ready.cur.Sightings = append(s.ready.cur.Sightings, rec)
}

// coverNow reports whether the victim of registered hit rec stands, at
// the server's present, behind cover from the shooter's eye
// (ShotRecord.ServerSBC): a shot behind cover as the server can tell it,
// the impact taken at the hit part's centre. The victim's client judges
// its own predicted pose, which the server does not have (Sight).
func (s *Server) coverNow(rec *ShotRecord) bool {
	if rec.Victim < 0 || rec.Victim >= len(s.clients) || rec.Shooter < 0 || rec.Shooter >= len(s.clients) {
		return false
	}
	v, sh := s.clients[rec.Victim], s.clients[rec.Shooter]
	if v == nil || sh == nil || v.state.Has(game.FlagDead) && !rec.Kill {
		return false
	}
	return lagcomp.BehindCover(v.state, rec.Part, geom.Vec3{}, game.EyePos(sh.state, s.cfg.Movement), s.cfg.Map.Grid, s.cfg.Movement)
}
