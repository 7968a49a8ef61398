// Package shooter is lagkit's own shooter on the server core's seams,
// in a folder of its own: its game modes (shooter/mode: free-for-all,
// team deathmatch, capture the flag, domination) as the server's match
// rules (server.Rules), and attribute scaling (shooter/scaling) and aim
// assistance (shooter/aimassist) as its world adjustments at hit
// registration (server.Adjustment). The server core imports none of
// them; a program that serves lagkit's shooter sets
//
//	server.Config{…, Rules: shooter.Rules(mode.Config{Mode: mode.CTF}), Adjust: shooter.Adjust(sc, aa)}
//
// as another game sets its own.
package shooter

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/lagcomp"
	"github.com/lagkit/lagkit/server"
	"github.com/lagkit/lagkit/shooter/aimassist"
	"github.com/lagkit/lagkit/shooter/mode"
	"github.com/lagkit/lagkit/shooter/scaling"
	"github.com/lagkit/lagkit/world"
)

// Rules returns the maker of a mode's rules for server.Config.Rules:
// each server it is given to plays its own round (a mode.Match) of cfg.
func Rules(cfg mode.Config) func(server.RulesEnv) (server.Rules, error) {
	return func(env server.RulesEnv) (server.Rules, error) {
		m, err := mode.New(cfg, env.Map, env.MaxClients)
		if err != nil {
			return nil, err
		}
		return &ModeRules{Match: m}, nil
	}
}

// ModeRules are a mode's rules on the server's seam: its round, the
// server's calls handed on to it, and what its objectives did told to
// the clients.
type ModeRules struct {
	Match   *mode.Match
	players []mode.Player // scratch for the mode's view of the players
}

// Match returns the round of the mode rules s plays by (shooter.Rules),
// nil when it plays by other rules.
func Match(s *server.Server) *mode.Match {
	if r, ok := s.Rules().(*ModeRules); ok {
		return r.Match
	}
	return nil
}

// Name returns the mode's name.
func (r *ModeRules) Name() string { return string(r.Match.Kind()) }

// Teams reports whether the mode plays in teams.
func (r *ModeRules) Teams() bool { return r.Match.Teams() }

// Team chooses a joining player's team (mode.Match.Team).
func (r *ModeRules) Team(sizes [2]int) int { return r.Match.Team(sizes) }

// Enemies reports whether two players are enemies (mode.Match.Enemies).
func (r *ModeRules) Enemies(a, ta, b, tb int) bool { return r.Match.Enemies(a, ta, b, tb) }

// Spawn chooses a spawn away from the enemies (mode.ChooseSpawn).
func (r *ModeRules) Spawn(_, _ int, spawns []world.Spawn, enemies []geom.Vec3, rng *rand.Rand) (world.Spawn, bool) {
	return mode.ChooseSpawn(spawns, enemies, rng)
}

// Kill scores a kill (mode.Match.Kill).
func (r *ModeRules) Kill(_ time.Duration, killer, killerTeam, victim, victimTeam int) {
	r.Match.Kill(killer, killerTeam, victim, victimTeam)
}

// Died drops what the player carried (mode.Match.Died).
func (r *ModeRules) Died(now time.Duration, id int, pos geom.Vec3) { r.Match.Died(now, id, pos) }

// Update applies a tick of the mode's objective rules to the players'
// positions, tells every client what changed, and marks the flag
// carriers (mode.FlagCarrier).
func (r *ModeRules) Update(now, dt time.Duration, ref *server.Referee) {
	m := r.Match
	r.players = r.players[:0]
	for _, p := range ref.Players {
		r.players = append(r.players, mode.Player{ID: p.ID, Team: p.Team, Pos: p.Pos, Alive: p.Alive})
	}
	m.Update(now, dt, r.players)
	for _, ev := range m.Events() {
		ref.Objective(server.Objective{
			Kind: ev.Kind.String(), What: uint8(ev.Kind), Objective: ev.Objective, Player: ev.Player, Team: ev.Team,
			Pos: r.objectivePos(ev), Scorers: ev.Scorers,
		})
	}
	// The carrier's mark goes through the path a game's edits take: a
	// player's state written between its commands.
	for _, p := range ref.Players {
		if p.Flags&mode.FlagCarrier != 0 && !r.carries(p.ID) {
			ref.Edit(p.ID, dropCarrier)
		}
	}
	for _, f := range m.Flags {
		if f.Carrier < 0 {
			continue
		}
		for _, p := range ref.Players {
			if p.ID == f.Carrier && p.Flags&mode.FlagCarrier == 0 {
				ref.Edit(p.ID, markCarrier)
			}
		}
	}
}

// carries reports whether player id carries a flag.
func (r *ModeRules) carries(id int) bool {
	for _, f := range r.Match.Flags {
		if f.Carrier == id {
			return true
		}
	}
	return false
}

// markCarrier and dropCarrier set and clear a player's carrier mark;
// functions of their own, so that marking allocates no closure.
func markCarrier(st *game.PlayerState) { st.Flags |= mode.FlagCarrier }
func dropCarrier(st *game.PlayerState) { st.Flags &^= mode.FlagCarrier }

// objectivePos returns where the objective of event ev now is.
func (r *ModeRules) objectivePos(ev mode.Event) geom.Vec3 {
	switch ev.Kind {
	case mode.PointCaptured, mode.PointNeutral:
		return r.Match.Points[ev.Objective].Pos
	}
	return r.Match.Flags[ev.Objective].Pos
}

// Score returns player id's score.
func (r *ModeRules) Score(id int) int {
	if id >= 0 && id < len(r.Match.PlayerScore) {
		return r.Match.PlayerScore[id]
	}
	return 0
}

// SetScore sets player id's score.
func (r *ModeRules) SetScore(id, score int) {
	if id >= 0 && id < len(r.Match.PlayerScore) {
		r.Match.PlayerScore[id] = score
	}
}

// TeamScore returns the teams' scores.
func (r *ModeRules) TeamScore() [2]int { return r.Match.TeamScore }

// TimeLeft returns the time left in a round of limited duration.
func (r *ModeRules) TimeLeft(now time.Duration) (time.Duration, bool) {
	if d := r.Match.Config().Duration; d > 0 {
		return d - now, true
	}
	return 0, false
}

// Over reports whether the round has ended by time or score.
func (r *ModeRules) Over(now time.Duration) bool { return r.Match.Over(now) }

// Restart puts the round back to its start (mode.Match.Restart).
func (r *ModeRules) Restart(now time.Duration) { r.Match.Restart(now) }

// WarpCheck refuses time warp in the objective modes: a re-simulation
// re-runs kills, not flags and points.
func (r *ModeRules) WarpCheck() error {
	if k := r.Match.Kind(); k != mode.FFA && k != mode.TDM {
		return fmt.Errorf("time warp supports modes ffa and tdm, not %s: objectives (flags, points) are not re-simulated", k)
	}
	return nil
}

// Adjust returns the maker of the world adjustments for
// server.Config.Adjust: attribute scaling sc, then aim assistance aa,
// each left out when it is none. A ray that missed every true hitbox is
// tested against the hitboxes scaled by the factor sc's mode sets from
// the shooter's round trip, and if it misses those too, bent onto the
// nearest part within aa's cone.
func Adjust(sc scaling.Config, aa aimassist.Config) func(server.RulesEnv) ([]server.Adjustment, error) {
	return func(server.RulesEnv) ([]server.Adjustment, error) {
		var out []server.Adjustment
		sm, err := scaling.New(sc)
		if err != nil {
			return nil, err
		}
		if sm.Name() != scaling.None {
			out = append(out, Scaled{sm})
		}
		am, err := aimassist.New(aa)
		if err != nil {
			return nil, err
		}
		if am.Name() != aimassist.None {
			out = append(out, Assisted{am})
		}
		return out, nil
	}
}

// Scaled is attribute scaling as a world adjustment: the targets'
// hitboxes scaled by its mode's factor for the shooter's round trip
// (none while the round trip is unmeasured).
type Scaled struct{ Mode scaling.Mode }

// Adjust tests q's ray against the scaled hitboxes, noting the factor
// and whether they were hit in q's record.
func (a Scaled) Adjust(q *server.HitQuery) (lagcomp.Hit, bool) {
	if !q.Measured {
		return lagcomp.Hit{}, false
	}
	f := a.Mode.Scale(q.RTT)
	if !(f > 1) {
		return lagcomp.Hit{}, false
	}
	q.Record.Scale = f
	h, ok := scaling.Trace(q.Ray, q.Range, q.Targets(), f, q.Grid, q.Params)
	q.Record.Scaled = ok
	return h, ok
}

// Assisted is aim assistance as a world adjustment: a ray bent onto the
// nearest part of a target within its mode's cone, when the line of
// fire to it is clear.
type Assisted struct{ Mode aimassist.Mode }

// Adjust finds the assisted hit of q's ray, noting it in q's record.
func (a Assisted) Adjust(q *server.HitQuery) (lagcomp.Hit, bool) {
	cone, centre := a.Mode.Cone(q.RTT)
	if !(cone > 0) {
		return lagcomp.Hit{}, false
	}
	h, ok := aimassist.Trace(q.Ray, q.Range, q.Targets(), cone, centre, q.Grid, q.Params)
	q.Record.Assisted = ok
	return h, ok
}
