package arena

import (
	"sync"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/realtime"
	"github.com/lagkit/lagkit/server"
)

// Referee is the arena's server logic, run by the match after each tick
// (realtime.MatchConfig.OnTick): it slides the crate, resolves the
// players' shots against the rewound circles and crate (shots pass team
// mates: the team rule), takes a hit from the victim's shield first and
// the rest from its health (server.Server.Damage: a player dies after
// game.MaxHealth/Damage hits, and respawns), breaks the crate and grants
// its breaker a shield as loot (server.Server.Edit, into the state its
// client predicts), and hears the players' salutes. Its methods are safe to call
// from any goroutine.
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
	// Warped counts the shots a time warp handed over at their
	// commands' ticks (server.FiredShot.Warped: the command arrived
	// after its tick ran), WarpedHits their hits on players.
	Warped, WarpedHits int
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

// Tick is the OnTick hook.
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
	grid := s.Config().Map.Grid
	for _, f := range rd.Fired {
		r.record.Shots++
		if f.Warped {
			r.record.Warped++
		}
		ray := geom.Ray{Origin: f.State.Pos.Add(geom.V(0, 0, 1)), Dir: Aim(f.State.Yaw)}
		reach := 60.0
		if h, ok := grid.Raycast(ray, reach); ok {
			reach = h.Dist // the world's first wall
		}
		// Shots pass the shooter, its team mates and the dead.
		_, team, _ := s.PlayerState(f.Shooter)
		notShooter := func(id int) bool {
			st, t, ok := s.PlayerState(id)
			return id == f.Shooter || ok && (st.Has(game.FlagDead) || t == team)
		}
		h, ok := s.TraceAt(ray, reach, f.Target, notShooter)
		if !ok {
			continue
		}
		if h.ID != CrateSlot {
			// The hit takes health through lagkit's own path: a
			// player at none dies, scores its killer a kill and
			// respawns.
			r.record.PlayerHits++
			if f.Warped {
				r.record.WarpedHits++
			}
			s.SendEvent(h.ID, EventHit, []byte{byte(f.Shooter)})
			left := float32(h.Damage)
			if err := s.Edit(h.ID, func(st *game.PlayerState) {
				a := Decl.Of(st)
				took := min(a.Shield, left)
				a.Shield, left = a.Shield-took, left-took
			}); err != nil {
				panic("arena: shield: " + err.Error()) // a traced player
			}
			if left == 0 {
				r.record.ShieldHits++
				continue
			}
			killed, err := s.Damage(h.ID, int16(left), f.Shooter)
			if err != nil {
				panic("arena: damage: " + err.Error()) // a traced player, a shooter's slot
			}
			if killed {
				_, live := s.TraceAt(ray, reach, f.Now, notShooter)
				r.record.Kills = append(r.record.Kills, Kill{Killer: f.Shooter, Victim: h.ID, Rewind: f.Now - f.Target, LiveMiss: !live})
			}
			continue
		}
		r.record.CrateHits++
		r.crateHP -= int16(h.Damage)
		if r.crateHP > 0 || r.broken {
			continue
		}
		_, live := s.TraceAt(ray, reach, f.Now, notShooter)
		r.broken = true
		r.record.BrokenBy, r.record.BrokenRewind, r.record.BrokenLiveMiss = f.Shooter, f.Now-f.Target, !live
		wreck, _ := s.Entity(CrateSlot)
		s.RemoveEntity(CrateSlot)
		if err := s.SetEntity(WreckSlot, game.PlayerState{Pos: wreck.Pos}, nil); err != nil {
			panic("arena: the wreck: " + err.Error()) // the crate's own place
		}
		s.BroadcastEvent(EventCrateBroken, []byte{byte(f.Shooter)})
		// The loot: a shield in the breaker's inventory, written into
		// the state its client predicts.
		if err := s.Edit(f.Shooter, func(st *game.PlayerState) { Decl.Of(st).Item = ItemShield }); err == nil {
			r.record.Looted = f.Shooter
		}
	}
	for _, ev := range rd.GameEvents {
		if ev.Kind == EventGG {
			r.record.GGs[ev.Client]++
		}
	}
}

// MatchConfig returns the arena's match for a realtime.Host, refereed by
// r: seats players in two teams (no server-side bots: lagkit's bots play
// lagkit's game; the arena's connect as clients).
func MatchConfig(seats int, r *Referee) realtime.MatchConfig {
	return realtime.MatchConfig{
		Name: "arena2d", Map: "arena2d", World: Map(), Seats: seats, Rules: NewRules,
		Step: Step, Game: Decl.Layout, Cmd: CmdDecl.CmdLayout, Spawn: Spawn, Body: PlayerBody, GameShots: true,
		OnTick: r.Tick,
	}
}
