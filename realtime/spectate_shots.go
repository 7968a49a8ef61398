package realtime

import (
	"math"
	"sync"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/server"
)

// Shots for a spectator, as Source's sv_showlagcompensation draws them:
// for each hitscan shot the server judged, hit or miss, every player's
// hitboxes where the server had them at the time it tested the shot
// (rewound when the policy rewinds), with the shot's line. Keeping them
// costs the match's goroutine a pose per player per shot, so a match
// keeps them only while someone spectates it (Spectate within
// spectateWatch).

// ViewShot is one hitscan shot the server judged.
type ViewShot struct {
	Seq     uint64  `json:"seq"`
	TimeS   float64 `json:"time_s"`
	Shooter int     `json:"shooter"`
	// Victim is the player hit, -1 for a miss; Part the part hit.
	Victim   int     `json:"victim"`
	Part     string  `json:"part,omitempty"`
	Outcome  string  `json:"outcome"`
	RewindMs float64 `json:"rewind_ms"`
	// Eye is the shooter's eye when it fired, Dir the way it aimed (a
	// unit vector).
	Eye [3]float64 `json:"eye"`
	Dir [3]float64 `json:"dir"`
	// Rewound is every player but the shooter as the server tested it.
	Rewound []ViewPose `json:"rewound"`
	// Near is the player the shot was aimed at: the victim of a hit;
	// for a miss, the living player whose tested hitboxes the shot's
	// line passed nearest, within NearMissM (-1: none). Now is Near's
	// hitboxes when the server judged the shot (its present), beside
	// its pose in Rewound (the time it tested): the two poses Source's
	// sv_showlagcompensation contrasts.
	Near int             `json:"near"`
	Now  []game.PartView `json:"now,omitempty"`
}

// NearMissM is how far from a player's hitboxes a missed shot's line
// may pass for the player to count as the one it was aimed at
// (ViewShot.Near).
const NearMissM = 2.0

// ViewPose is one player's hitboxes at an instant.
type ViewPose struct {
	Seat  int             `json:"seat"`
	Team  int             `json:"team"`
	Parts []game.PartView `json:"parts"`
}

// MaxViewShots is how many recent shots a watched match keeps.
const MaxViewShots = 128

// spectateWatch is how long after a Spectate a match goes on keeping
// shots for spectators.
const spectateWatch = 5 * time.Second

// viewShots is a match's ring of recent shots, owned by its goroutine.
type viewShots struct {
	ring      [MaxViewShots]ViewShot
	seq       uint64
	watchedAt time.Duration // the match's clock at the last Spectate
	watched   bool
}

// spectateEvery is how often at most a match builds the view its
// spectators share.
const spectateEvery = 50 * time.Millisecond

// spectators is the view a match's spectators share: built on the
// match's goroutine at most once every spectateEvery, however many
// spectators poll (or however often one polls), so that spectating,
// open to anyone on lagkit serve, costs the match a bounded amount of
// its time.
type spectators struct {
	mu     sync.Mutex
	view   View
	at     time.Time // when view was built; zero: never
	builds int       // views built, for tests
}

// Spectate is View for a spectator's page: the match with the hits after
// since, and the shots after shotsSince (a ViewShot.Seq; 0 for every
// shot kept), which the match keeps from the first Spectate on for as
// long as someone asks again within 5 s. The view is at most
// spectateEvery old; the View returned shares its slices with other
// spectators' and must not be changed. On a host with a spectate delay
// (Host.SetSpectateDelay) it is the match as it was that long ago,
// kept from the first Spectate on; until then it is empty, with
// StartsInS.
func (m *Match) Spectate(since, shotsSince uint64) (View, error) {
	sp := &m.spectators
	sp.mu.Lock()
	defer sp.mu.Unlock()
	if sp.at.IsZero() || time.Since(sp.at) >= spectateEvery {
		var v View
		err := m.do(func() {
			if m.delayed != nil {
				m.delayed.watch(m.srv.Time(), m.shots.seq)
				v = m.delayedView()
				return
			}
			v = m.view(0)
			s := &m.shots
			s.watched, s.watchedAt = true, m.now()
			v.Shots = []ViewShot{}
			for seq := s.seq - min(s.seq, MaxViewShots) + 1; seq <= s.seq; seq++ {
				v.Shots = append(v.Shots, s.ring[seq%MaxViewShots])
			}
		})
		if err != nil {
			return View{}, err
		}
		sp.view, sp.at = v, time.Now()
		sp.builds++
	}
	v := sp.view
	v.Rewinds = after(v.Rewinds, since, func(r *ViewRewind) uint64 { return r.Seq })
	v.Shots = after(v.Shots, shotsSince, func(s *ViewShot) uint64 { return s.Seq })
	return v, nil
}

// after returns the tail of xs, in sequence order, whose sequence
// numbers are above since.
func after[T any](xs []T, since uint64, seq func(*T) uint64) []T {
	i := len(xs)
	for i > 0 && seq(&xs[i-1]) > since {
		i--
	}
	return xs[i:]
}

// keepShot keeps a hitscan shot for spectators, while the match is
// watched.
func (m *Match) keepShot(rec *server.ShotRecord) {
	s := &m.shots
	watched := m.delayed != nil && m.delayed.watched || s.watched && m.now()-s.watchedAt <= spectateWatch
	if rec.Projectile || !watched {
		return
	}
	cfg := m.srv.Config()
	h := m.srv.History()
	shot := ViewShot{
		TimeS: rec.Time.Seconds(), Shooter: rec.Shooter, Victim: rec.Victim, Outcome: "miss",
		RewindMs: rec.RewindMS, Dir: vec3(game.AimDir(rec.Yaw, rec.Pitch)), Rewound: []ViewPose{},
	}
	if rec.Victim >= 0 {
		shot.Part, shot.Outcome = rec.Part.String(), rec.Outcome.String()
	}
	if st, ok := h.At(rec.Shooter, rec.Time); ok {
		shot.Eye = vec3(game.EyePos(st, cfg.Movement))
	} else if sc, ok := m.srv.Client(rec.Shooter); ok {
		shot.Eye = vec3(game.EyePos(sc.State, cfg.Movement))
	}
	for seat := range m.srv.MaxClients() {
		ci, ok := m.srv.Client(seat)
		if !ok || seat == rec.Shooter {
			continue
		}
		st, ok := h.At(seat, rec.Tested)
		if !ok || st.Has(game.FlagDead) {
			continue
		}
		shot.Rewound = append(shot.Rewound, ViewPose{Seat: seat, Team: ci.Team, Parts: game.PartViews(st, cfg.Movement)})
	}
	shot.Near = rec.Victim
	if shot.Near < 0 {
		shot.Near = nearest(shot.Eye, shot.Dir, shot.Rewound)
	}
	if shot.Near >= 0 {
		if st, ok := h.At(shot.Near, rec.Time); ok {
			shot.Now = game.PartViews(st, cfg.Movement)
		} else if ci, ok := m.srv.Client(shot.Near); ok {
			shot.Now = game.PartViews(ci.State, cfg.Movement)
		}
	}
	s.seq++
	shot.Seq = s.seq
	s.ring[s.seq%MaxViewShots] = shot
}

// nearest returns the seat of the pose whose hitboxes the line from eye
// along dir passes nearest, within NearMissM of their surface, or -1.
func nearest(eye, dir [3]float64, poses []ViewPose) int {
	seat, best := -1, NearMissM
	for _, p := range poses {
		for _, part := range p.Parts {
			if d := rayToSegment(eye, dir, part.A, part.B) - part.R; d < best {
				seat, best = p.Seat, d
			}
		}
	}
	return seat
}

// rayToSegment is the distance between the ray from o along the unit
// vector d and the segment from a to b: the closest points of two
// segments (Ericson, Real-Time Collision Detection, 5.1.9), the ray's
// unbounded.
func rayToSegment(o, d, a, b [3]float64) float64 {
	sub := func(x, y [3]float64) [3]float64 { return [3]float64{x[0] - y[0], x[1] - y[1], x[2] - y[2]} }
	dot := func(x, y [3]float64) float64 { return x[0]*y[0] + x[1]*y[1] + x[2]*y[2] }
	e, r := sub(b, a), sub(o, a)
	ee, de, dr, er := dot(e, e), dot(d, e), dot(d, r), dot(e, r)
	// s is how far along the ray, t how far along the segment (0 to 1).
	s, t := max(0, -dr), 0.0
	if ee > 1e-12 {
		if den := ee - de*de; den > 1e-12 {
			s = max(0, (de*er-ee*dr)/den)
		}
		t = (er + s*de) / ee
		if t < 0 || t > 1 {
			t = min(1, max(0, t))
			s = max(0, t*de-dr)
		}
	}
	var q [3]float64
	for i := range 3 {
		q[i] = o[i] + d[i]*s - (a[i] + e[i]*t)
	}
	return math.Sqrt(dot(q, q))
}
