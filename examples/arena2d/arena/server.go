package arena

import (
	"sync"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/realtime"
	"github.com/lagkit/lagkit/server"
)

// Referee is the arena's server logic and its shot resolution. Run by
// the match after each tick (realtime.MatchConfig.OnTick, Tick) it
// slides the crate and hears the players' salutes. As the server's shot
// resolution (server.Config.Shots, Fire) it traces each shot against the
// circles and the crate where the match's lag compensation policy tests
// it (rewound to the time its shooter saw), passing the shooter's team
// mates (the team rule), shows it to the players near it as a tracer
// (server.ShotWorld.ShowTracer), and registers what it hit through
// lagkit's one hit path: a hit on a player is judged by the policy and takes the
// victim's shield first (Absorb) and then its health (a player dies
// after game.MaxHealth/Damage hits, scoring its killer, and respawns); a
// hit on the crate wears it down, and the one that breaks it grants its
// breaker a shield as loot (server.Server.Edit, into the state its
// client predicts); under time warp a hit on the crate that a
// re-simulation no longer finds is given back (Unhit). Its methods are
// safe to call from any goroutine.
type Referee struct {
	mu      sync.Mutex
	started bool
	t0      time.Duration
	crateHP int16
	broken  bool
	record  Record
}

// Record is what a Referee saw.
type Record struct {
	Shots     int // shots fired
	CrateHits int // of them, hits on the crate
	// BrokenBy is the slot of the player whose shot broke the crate (-1:
	// unbroken), BrokenRewind how far that shot was rewound, and
	// BrokenLiveMiss whether the same shot at the crate as it was at
	// the tick missed: lag compensation made the hit.
	BrokenBy       int
	BrokenRewind   time.Duration
	BrokenLiveMiss bool
	PlayerHits     int // hits on players
	// Looted is the slot of the player granted the crate's shield (-1:
	// none yet), ShieldHits the hits a shield absorbed.
	Looted     int
	ShieldHits int
	// Kills lists the players' deaths by the others' shots, in order.
	Kills []Kill
	// GGs counts the salutes received, by sender slot.
	GGs map[int]int
}

// NewReferee returns a referee for one match.
func NewReferee() *Referee {
	return &Referee{crateHP: CrateHealth, record: Record{BrokenBy: -1, Looted: -1, GGs: map[int]int{}}}
}

// Record returns a copy of what the referee saw so far.
func (r *Referee) Record() Record {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.record
	out.Kills = append([]Kill(nil), r.record.Kills...)
	out.GGs = make(map[int]int, len(r.record.GGs))
	for k, v := range r.record.GGs {
		out.GGs[k] = v
	}
	return out
}

// CratePos is where the crate is t after it started sliding.
func CratePos(t time.Duration) geom.Vec3 {
	// Back and forth along Y: a triangle wave of amplitude CrateRange.
	period := 4 * CrateRange / CrateSpeed
	ph := t.Seconds()/period - float64(int(t.Seconds()/period))
	y := 0.0
	switch {
	case ph < 0.25:
		y = ph * 4 * CrateRange
	case ph < 0.75:
		y = CrateRange - (ph-0.25)*4*CrateRange
	default:
		y = -CrateRange + (ph-0.75)*4*CrateRange
	}
	return geom.V(0, y, 0)
}

// Kill is a player's death by a shot.
type Kill struct {
	Killer, Victim int
	// Rewind is how far the killing shot was rewound, LiveMiss whether
	// the same shot at the victim as it was at the tick missed.
	Rewind   time.Duration
	LiveMiss bool
}

// Tick is the OnTick hook: it slides the crate and counts the salutes.
func (r *Referee) Tick(s *server.Server, rd *server.Ready) {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := s.Time()
	if !r.started {
		r.started, r.t0 = true, now
	}
	if !r.broken {
		st := game.PlayerState{Pos: CratePos(now - r.t0)}
		Decl.Of(&st).HP = r.crateHP
		if err := s.SetEntity(CrateSlot, st, CrateBody); err != nil {
			panic("arena: the crate: " + err.Error()) // its state is the referee's own
		}
	}
	for _, ev := range rd.GameEvents {
		if ev.Kind == EventGG {
			r.record.GGs[ev.Client]++
		}
	}
}

// Fire resolves a shot (server.Shots): one ray from the shooter's
// middle along its aim, up to the world's first wall or 60 m.
func (r *Referee) Fire(w *server.ShotWorld) {
	s, f := w.Server(), &w.Shot
	ray := geom.Ray{Origin: f.State.Pos.Add(geom.V(0, 0, 1)), Dir: Aim(f.State.Yaw)}
	reach := 60.0
	if h, ok := s.Config().Map.Grid.Raycast(ray, reach); ok {
		reach = h.Dist // the world's first wall
	}
	if !w.Rejudged() {
		// Under time warp a re-simulation hands a shot over again (Hit
		// then reports only what is news): it is counted once.
		r.mu.Lock()
		r.record.Shots++
		r.mu.Unlock()
	}
	h, ok := w.Trace(ray, reach)
	w.ShowTracer() // the players near the shot draw it (a live match's ShowTracers)
	if !ok {
		return
	}
	// Whether the same shot at the world as it is at the tick misses:
	// lag compensation made the hit.
	liveMiss := func() bool {
		_, team, _ := s.PlayerState(f.Shooter)
		_, live := s.TraceAt(ray, reach, f.Now, func(id int) bool {
			st, t, ok := s.PlayerState(id)
			return id == f.Shooter || ok && (st.Has(game.FlagDead) || t == team)
		})
		return !live
	}
	missedLive := liveMiss() // before the hit: a victim it kills is passed
	registered, kill := w.Hit(int16(h.Damage))
	if !registered {
		return // discarded by the policy, or awaiting the victim's appeal
	}
	if h.ID != CrateSlot {
		s.SendEvent(h.ID, EventHit, []byte{byte(f.Shooter)})
		r.mu.Lock()
		defer r.mu.Unlock()
		r.record.PlayerHits++
		if kill {
			r.record.Kills = append(r.record.Kills, Kill{Killer: f.Shooter, Victim: h.ID, Rewind: f.Now - w.Time(), LiveMiss: missedLive})
		}
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.record.CrateHits++
	r.crateHP -= int16(h.Damage)
	if r.crateHP > 0 || r.broken {
		return
	}
	r.broken = true
	r.record.BrokenBy, r.record.BrokenRewind, r.record.BrokenLiveMiss = f.Shooter, f.Now-w.Time(), missedLive
	wreck, _ := s.Entity(CrateSlot)
	s.RemoveEntity(CrateSlot)
	if err := s.SetEntity(WreckSlot, game.PlayerState{Pos: wreck.Pos}, nil); err != nil {
		panic("arena: the wreck: " + err.Error()) // the crate's own place
	}
	s.BroadcastEvent(EventCrateBroken, []byte{byte(f.Shooter)})
	// The loot: a shield in the breaker's inventory, written into the
	// state its client predicts.
	if err := s.Edit(f.Shooter, func(st *game.PlayerState) { Decl.Of(st).Item = ItemShield }); err == nil {
		r.record.Looted = f.Shooter
	}
}

// Unhit takes back a hit on the crate that a time warp re-simulation of
// its shot's tick no longer finds (server.Unhitter): the crate gets its
// damage back and the hit is no longer counted, unless the crate broke
// meanwhile (its breaking and the loot are facts given out).
func (r *Referee) Unhit(_ *server.FiredShot, entity int, damage int16) {
	if entity != CrateSlot {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.broken {
		return
	}
	r.crateHP += damage
	r.record.CrateHits--
}

// Absorb takes a hit's damage from the victim's shield first
// (server.Absorber) and returns what is left for its health.
func (r *Referee) Absorb(_ int, st *game.PlayerState, damage int16) int16 {
	a := Decl.Of(st)
	left := float32(damage)
	took := min(a.Shield, left)
	a.Shield, left = a.Shield-took, left-took
	if left == 0 {
		r.mu.Lock()
		r.record.ShieldHits++
		r.mu.Unlock()
	}
	return int16(left)
}

// MatchConfig returns the arena's match for a realtime.Host, refereed by
// r (its server logic and its shot resolution): seats players in two
// teams (no server-side bots: lagkit's bots play
// lagkit's game; the arena's connect as clients).
func MatchConfig(seats int, r *Referee) realtime.MatchConfig {
	return realtime.MatchConfig{
		Name: "arena2d", Map: "arena2d", World: Map(), Seats: seats, Rules: NewRules,
		Step: Step, Game: Decl.Layout, Cmd: CmdDecl.CmdLayout, Spawn: Spawn, Died: Died, Body: PlayerBody, Shots: r,
		OnTick: r.Tick,
	}
}
