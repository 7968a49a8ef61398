package server

import (
	"math/rand/v2"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/lagcomp"
	"github.com/lagkit/lagkit/wire"
	"github.com/lagkit/lagkit/world"
)

// The match's rules and the world's adjustments at hit registration are
// the game's, handed to the core through two seams, as its step, bodies
// and spawn rule are: Config.Rules (who plays with whom, what a death
// scores, where a player respawns, what objectives do each tick, when
// the match ends) and Config.Adjust (what a hitscan ray that missed
// every true hitbox may still hit). The core keeps time, history, lag
// compensation and the wire; it imports none of a game's rules. lagkit's
// shooter supplies its modes (free-for-all, team deathmatch, capture the
// flag, domination), attribute scaling and aim assistance from package
// shooter.

// RulesEnv is what a game's rules and adjustments are made for: the
// server's map, player slots and tick.
type RulesEnv struct {
	Map          *world.Map
	MaxClients   int
	TickDuration time.Duration
}

// Rules are a game's match rules. The server core calls them on its
// tick's goroutine, live and when time warp re-runs a kill, in the order
// the match's events happen, so rules that depend on their calls alone
// keep the simulation deterministic. A game's rules may embed NoRules
// and override what they decide.
type Rules interface {
	// Name names the rules to the clients (wire.SettingsEvent.Mode, at
	// most 15 bytes).
	Name() string
	// Teams reports whether players play in two teams: spawns are then
	// chosen from the map's spawns of the player's team.
	Teams() bool
	// Team chooses the team (0 or 1) of a joining player, given how
	// many players each team has.
	Team(sizes [2]int) int
	// Enemies reports whether player a of team ta and player b of team
	// tb are enemies: only enemies hit each other (no friendly fire),
	// and a spawn is chosen away from the living enemies.
	Enemies(a, ta, b, tb int) bool
	// Spawn chooses where player id of team respawns among spawns
	// (the map's, its team's when Teams) given the positions of the
	// living enemies, drawing only from rng, the server's generator
	// seeded from Config.Seed. ok false leaves the player where it
	// stands.
	Spawn(id, team int, spawns []world.Spawn, enemies []geom.Vec3, rng *rand.Rand) (sp world.Spawn, ok bool)
	// Kill scores the death of victim by killer (killer == victim for a
	// suicide), with their teams.
	Kill(now time.Duration, killer, killerTeam, victim, victimTeam int)
	// Died tells that player id died or left at pos: what it carried
	// drops there.
	Died(now time.Duration, id int, pos geom.Vec3)
	// Update runs one tick of length dt of the rules' objectives over
	// the players (r.Players), after the tick's shots: r tells the
	// clients what changed and marks the players' states.
	Update(now, dt time.Duration, r *Referee)
	// Score is player id's score on the scoreboard, and SetScore sets
	// it (a player seated again with Config.Seat takes its score back).
	Score(id int) int
	SetScore(id, score int)
	// TeamScore is the teams' scores.
	TeamScore() [2]int
	// TimeLeft is the time left in the round, ok false when it has no
	// limit.
	TimeLeft(now time.Duration) (left time.Duration, ok bool)
	// Over reports whether the round has ended.
	Over(now time.Duration) bool
	// Restart puts the round back to its start (Server.Restart).
	Restart(now time.Duration)
	// WarpCheck reports why the rules cannot run under time warp, nil
	// if they can: a re-simulation re-runs kills, not Update, so rules
	// whose objectives move in Update refuse it.
	WarpCheck() error
}

// NoRules are the rules of a game that brings none (Config.Rules nil):
// every player on team 0 and an enemy of every other, no score, no end,
// and a spawn drawn at random. A game's rules may embed it and override
// what they decide.
type NoRules struct{}

// Name returns "none".
func (NoRules) Name() string { return "none" }

// Teams reports false.
func (NoRules) Teams() bool { return false }

// Team returns 0.
func (NoRules) Team([2]int) int { return 0 }

// Enemies reports whether a and b are different players.
func (NoRules) Enemies(a, _, b, _ int) bool { return a != b }

// Spawn returns one of spawns at random.
func (NoRules) Spawn(_, _ int, spawns []world.Spawn, _ []geom.Vec3, rng *rand.Rand) (world.Spawn, bool) {
	if len(spawns) == 0 {
		return world.Spawn{}, false
	}
	return spawns[rng.IntN(len(spawns))], true
}

// Kill scores nothing.
func (NoRules) Kill(time.Duration, int, int, int, int) {}

// Died does nothing.
func (NoRules) Died(time.Duration, int, geom.Vec3) {}

// Update does nothing.
func (NoRules) Update(time.Duration, time.Duration, *Referee) {}

// Score returns 0.
func (NoRules) Score(int) int { return 0 }

// SetScore does nothing.
func (NoRules) SetScore(int, int) {}

// TeamScore returns zeros.
func (NoRules) TeamScore() [2]int { return [2]int{} }

// TimeLeft reports no limit.
func (NoRules) TimeLeft(time.Duration) (time.Duration, bool) { return 0, false }

// Over reports false.
func (NoRules) Over(time.Duration) bool { return false }

// Restart does nothing.
func (NoRules) Restart(time.Duration) {}

// WarpCheck returns nil.
func (NoRules) WarpCheck() error { return nil }

// MatchPlayer is what a game's rules see of a player each tick.
type MatchPlayer struct {
	ID, Team int
	Pos      geom.Vec3
	Alive    bool
	Flags    game.StateFlags
}

// Referee is the rules' hand on the match during Update: the players
// as the tick left them, and what the rules may do about them.
type Referee struct {
	s *Server
	// Players are the players in the match, by slot.
	Players []MatchPlayer
}

// Objective is a change of an objective the rules tell every client of
// (wire.ObjectiveEvent) and the server's log records.
type Objective struct {
	// Kind names it in the log ("flag_taken"), What codes it on the wire.
	Kind string
	What uint8
	// Objective is its index among the rules' objectives, Player the
	// player who did it (-1: none) and Team the team it concerns.
	Objective, Player, Team int
	// Pos is where the objective now is.
	Pos geom.Vec3
	// Scorers are the players it scored for, for the log.
	Scorers []int
}

// Objective tells every client of o and records it.
func (r *Referee) Objective(o Objective) {
	s := r.s
	pos := game.SnapPos(o.Pos)
	s.record(LogEntry{Kind: o.Kind, Player: o.Player, Team: o.Team, Objective: o.Objective, Pos: pos, Scorers: o.Scorers})
	data, err := wire.AppendObjectiveEvent(nil, &wire.ObjectiveEvent{
		What: o.What, Objective: uint8(o.Objective), Player: o.Player, Team: uint8(max(o.Team, 0)), Pos: pos,
	})
	if err != nil {
		return
	}
	for _, c := range s.clients {
		if c != nil {
			s.sendEvent(c, wire.EventObjective, data)
		}
	}
}

// Edit writes player id's state as Server.Edit does (a flag carrier's
// mark), between its commands.
func (r *Referee) Edit(id int, edit func(st *game.PlayerState)) {
	if id >= 0 && id < len(r.s.clients) {
		if c := r.s.clients[id]; c != nil {
			r.s.edit(c, edit)
		}
	}
}

// Adjustment is a world adjustment at hit registration: a hitscan ray
// that missed every true hitbox in the lag-compensated world is offered
// to each of Config.Adjust in turn, in that same world, and the first
// that finds a hit registers it (scaled hitboxes, an aim bent onto a
// target).
type Adjustment interface {
	Adjust(q *HitQuery) (lagcomp.Hit, bool)
}

// HitQuery is a missed hitscan ray offered to the adjustments.
type HitQuery struct {
	Ray     geom.Ray
	Range   float64
	Shooter int
	// RTT is the shooter's smoothed round trip, Measured false while
	// the server has none.
	RTT      time.Duration
	Measured bool
	// Time is the server time the ray was tested at (the shot's target
	// time when rewound).
	Time   time.Duration
	Grid   *geom.Grid
	Params *game.Params
	// Record is the shot's record, in which an adjustment notes what it
	// did (Scale, Scaled, Assisted).
	Record *ShotRecord

	s       *Server
	targets []lagcomp.Target
	built   bool
}

// Targets returns the players the shooter may hit, alive at Time, with
// their poses then; built once per query.
func (q *HitQuery) Targets() []lagcomp.Target {
	if q.built {
		return q.targets
	}
	q.built = true
	s := q.s
	s.targets = s.targets[:0]
	for id, c := range s.clients {
		if c == nil || id == q.Shooter || !s.hittable(q.Shooter, id) {
			continue
		}
		st, ok := s.history.At(id, q.Time)
		if !ok || st.Has(game.FlagDead) {
			continue
		}
		s.targets = append(s.targets, lagcomp.Target{ID: id, Pose: st})
	}
	q.targets = s.targets
	return q.targets
}

// adjusted offers a hitscan ray of shot that missed every true hitbox at
// time t to the adjustments in turn, and returns the first hit one finds.
func (s *Server) adjusted(shot *lagcomp.Shot, ray geom.Ray, maxDist float64, t time.Duration, rec *ShotRecord) (lagcomp.Hit, bool) {
	// One query, rewritten for each ray: passed to an interface method
	// it would escape and allocate.
	q := &s.hitQuery
	*q = HitQuery{
		Ray: ray, Range: maxDist, Shooter: shot.Shooter, RTT: shot.ShooterRTT, Measured: shot.ShooterRTT != unmeasuredRTT,
		Time: t, Grid: s.cfg.Map.Grid, Params: s.cfg.Movement, Record: rec, s: s,
	}
	if !q.Measured {
		q.RTT = 0
	}
	for _, a := range s.adjust {
		if h, ok := a.Adjust(q); ok {
			return h, true
		}
	}
	return lagcomp.Hit{}, false
}
