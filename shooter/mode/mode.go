// Package mode is the rules of lagkit's game modes: free-for-all and team
// deathmatch, capture the flag and domination. A Match keeps the scores
// and the objectives (flags, control points); the server tells it of
// kills, deaths and where the players are each tick, and it reports what
// happened as events. It also picks spawns away from enemies.
package mode

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/internal/registry"
	"github.com/lagkit/lagkit/world"
)

// FlagCarrier is the player state flag that marks a flag's carrier in
// capture the flag: the game's first (game.FlagGame), which every client
// sees and the netcode leaves alone. The server's rules set and clear it
// (shooter.ModeRules).
const FlagCarrier = game.FlagGame

// Kind names a game mode.
type Kind string

// The game modes.
const (
	FFA Kind = "ffa" // free-for-all deathmatch: every player for itself
	TDM Kind = "tdm" // team deathmatch: a kill scores for the team
	CTF Kind = "ctf" // capture the flag
	DOM Kind = "dom" // domination: held control points score over time
)

// Kinds is the registry of game modes, by name, in the order help lists
// them.
var Kinds = registry.New("mode",
	registry.Entry[Kind]{Name: string(FFA), Item: FFA},
	registry.Entry[Kind]{Name: string(TDM), Item: TDM},
	registry.Entry[Kind]{Name: string(CTF), Item: CTF},
	registry.Entry[Kind]{Name: string(DOM), Item: DOM},
)

// Config sets a match's rules. Zero values take the defaults.
type Config struct {
	Mode Kind `toml:"mode" json:"mode"`
	// Duration is the round's length (0: unlimited).
	Duration time.Duration `toml:"-" json:"-"`
	// ScoreLimit ends the round when a team (or, in FFA, a player)
	// reaches it (0: none).
	ScoreLimit int `toml:"score_limit" json:"score_limit"`
	// FlagReturn is how long a dropped flag lies before it returns home
	// (default 15 s); TouchRadius how near a player must come to take,
	// return or capture a flag (default 1.2 m).
	FlagReturn  time.Duration `toml:"-" json:"-"`
	TouchRadius float64       `toml:"touch_radius_m" json:"touch_radius_m"`
	// PointRadius is a control point's area (default 3 m) and CaptureTime
	// how long one team alone in it takes to capture a neutral point
	// (default 4 s; taking an enemy point takes twice as long: first
	// neutralise, then capture).
	PointRadius float64       `toml:"point_radius_m" json:"point_radius_m"`
	CaptureTime time.Duration `toml:"-" json:"-"`
}

func (c *Config) withDefaults() (Config, error) {
	out := *c
	if out.Mode == "" {
		out.Mode = TDM
	}
	if _, err := Kinds.Lookup(string(out.Mode)); err != nil {
		return out, fmt.Errorf("mode: %w", err)
	}
	if out.FlagReturn == 0 {
		out.FlagReturn = 15 * time.Second
	}
	if out.TouchRadius == 0 {
		out.TouchRadius = 1.2
	}
	if out.PointRadius == 0 {
		out.PointRadius = 3
	}
	if out.CaptureTime == 0 {
		out.CaptureTime = 4 * time.Second
	}
	switch {
	case out.Duration < 0, out.FlagReturn < 0, out.CaptureTime < 0:
		return out, fmt.Errorf("mode: durations must not be negative")
	case out.ScoreLimit < 0:
		return out, fmt.Errorf("mode: score limit %d is negative", out.ScoreLimit)
	case !(out.TouchRadius > 0 && out.TouchRadius < 20), !(out.PointRadius > 0 && out.PointRadius < 50):
		return out, fmt.Errorf("mode: touch radius %v or point radius %v out of range", out.TouchRadius, out.PointRadius)
	}
	return out, nil
}

// Player is what the rules see of a player each tick.
type Player struct {
	ID, Team int
	Pos      geom.Vec3
	Alive    bool
}

// EventKind says what happened to an objective.
type EventKind uint8

// Objective events.
const (
	FlagTaken EventKind = iota + 1
	FlagDropped
	FlagReturned // back home: touched by its team, or timed out
	FlagCaptured
	PointCaptured
	PointNeutral // an owned point lost to the enemy's presence
)

// The points a player scores for an objective: returning the team's
// dropped flag, capturing the enemy's, and being on a control point as
// the team captures it.
const (
	ReturnScore       = 1
	CaptureScore      = 5
	PointCaptureScore = 2
)

var eventNames = [...]string{"", "flag_taken", "flag_dropped", "flag_returned", "flag_captured", "point_captured", "point_neutral"}

func (k EventKind) String() string {
	if int(k) < len(eventNames) && k > 0 {
		return eventNames[k]
	}
	return fmt.Sprintf("EventKind(%d)", k)
}

// Event is one change of an objective.
type Event struct {
	Time      time.Duration
	Kind      EventKind
	Objective int // index into Flags or Points
	Player    int // -1 when nobody did it (a timed-out flag)
	Team      int
	// Scorers are the players a point's capture scored for (its team's
	// living players on it), for PointCaptured.
	Scorers []int
}

// Flag is a team's flag (capture the flag).
type Flag struct {
	Team      int
	Home, Pos geom.Vec3
	Carrier   int // -1: not carried
	Dropped   bool
	DroppedAt time.Duration
}

// Point is a control point (domination).
type Point struct {
	Name  string
	Pos   geom.Vec3
	Owner int // -1: neutral
	// Progress runs from 0 to 1 as Capturer takes the point.
	Progress float64
	Capturer int
}

// Match is the state of one round under a mode's rules.
type Match struct {
	cfg Config
	// TeamScore and PlayerScore are the scores so far.
	TeamScore   [2]int
	PlayerScore []int
	Captures    int // flags captured, both teams
	Flags       []Flag
	Points      []Point
	events      []Event
	scoreClock  time.Duration // domination: time towards the next point award
	ended       bool
}

// New starts a round on map m for up to maxPlayers players.
func New(cfg Config, m *world.Map, maxPlayers int) (*Match, error) {
	c, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	mt := &Match{cfg: c, PlayerScore: make([]int, maxPlayers)}
	for _, o := range m.Objectives {
		switch {
		case c.Mode == CTF && o.Kind == world.Flag && (o.Team == 0 || o.Team == 1):
			mt.Flags = append(mt.Flags, Flag{Team: o.Team, Home: o.Pos, Pos: o.Pos, Carrier: -1})
		case c.Mode == DOM && o.Kind == world.Point:
			mt.Points = append(mt.Points, Point{Name: o.Name, Pos: o.Pos, Owner: -1, Capturer: -1})
		}
	}
	switch {
	case c.Mode == CTF && len(mt.Flags) != 2:
		return nil, fmt.Errorf("mode: ctf on %s: map has %d team flags, want one each for teams 0 and 1", m.Name, len(mt.Flags))
	case c.Mode == DOM && len(mt.Points) == 0:
		return nil, fmt.Errorf("mode: dom on %s: map has no control points", m.Name)
	}
	return mt, nil
}

// Config returns the match's rules with defaults filled in.
func (m *Match) Config() Config { return m.cfg }

// Kind returns the mode.
func (m *Match) Kind() Kind { return m.cfg.Mode }

// Teams reports whether players play in teams.
func (m *Match) Teams() bool { return m.cfg.Mode != FFA }

// Enemies reports whether players a and b of teams ta and tb are enemies.
func (m *Match) Enemies(a, ta, b, tb int) bool {
	if a == b {
		return false
	}
	return !m.Teams() || ta != tb
}

// Team chooses the team for a joining player given how many players each
// team has: the smaller team, team 0 on a tie. In FFA everyone is team 0
// for spawning purposes and enemies to all.
func (m *Match) Team(sizes [2]int) int {
	if m.Teams() && sizes[1] < sizes[0] {
		return 1
	}
	return 0
}

// Events returns what happened since the last call and forgets it.
func (m *Match) Events() []Event {
	out := m.events
	m.events = m.events[:0]
	return out
}

// Over reports whether the round has ended by time or score.
func (m *Match) Over(now time.Duration) bool {
	if m.cfg.Duration > 0 && now >= m.cfg.Duration {
		m.ended = true
	}
	return m.ended
}

// Kill scores a kill of victim by killer (killer == victim for a
// suicide).
func (m *Match) Kill(killer, killerTeam, victim, victimTeam int) {
	if killer == victim || !m.Enemies(killer, killerTeam, victim, victimTeam) {
		m.addPlayer(killer, -1)
		return
	}
	m.addPlayer(killer, 1)
	if m.cfg.Mode == TDM {
		m.addTeam(killerTeam, 1)
	}
}

// Died drops whatever player id carried where it died.
func (m *Match) Died(now time.Duration, id int, at geom.Vec3) {
	for i := range m.Flags {
		if f := &m.Flags[i]; f.Carrier == id {
			f.Carrier, f.Dropped, f.DroppedAt, f.Pos = -1, true, now, at
			m.emit(now, FlagDropped, i, id, f.Team)
		}
	}
}

// Update applies a tick of the objective rules to the players' positions.
func (m *Match) Update(now, dt time.Duration, players []Player) {
	switch m.cfg.Mode {
	case CTF:
		m.updateFlags(now, players)
	case DOM:
		m.updatePoints(now, dt, players)
	}
}

func (m *Match) updateFlags(now time.Duration, players []Player) {
	r2 := m.cfg.TouchRadius * m.cfg.TouchRadius
	for i := range m.Flags {
		f := &m.Flags[i]
		if f.Carrier >= 0 {
			for _, p := range players {
				if p.ID == f.Carrier {
					f.Pos = p.Pos
				}
			}
			continue
		}
		if f.Dropped && now-f.DroppedAt >= m.cfg.FlagReturn {
			f.Dropped, f.Pos = false, f.Home
			m.emit(now, FlagReturned, i, -1, f.Team)
			continue
		}
		for _, p := range players {
			if !p.Alive || p.Pos.Sub(f.Pos).Len2() > r2 {
				continue
			}
			if p.Team != f.Team {
				f.Carrier, f.Dropped = p.ID, false
				m.emit(now, FlagTaken, i, p.ID, f.Team)
				break
			}
			if f.Dropped {
				f.Dropped, f.Pos = false, f.Home
				m.addPlayer(p.ID, ReturnScore)
				m.emit(now, FlagReturned, i, p.ID, f.Team)
				break
			}
		}
	}
	// A carrier touching its own flag at home captures the enemy flag.
	for i := range m.Flags {
		f := &m.Flags[i]
		if f.Carrier < 0 {
			continue
		}
		for _, p := range players {
			if p.ID != f.Carrier || !p.Alive {
				continue
			}
			for j := range m.Flags {
				own := &m.Flags[j]
				if own.Team == p.Team && own.Carrier < 0 && !own.Dropped && p.Pos.Sub(own.Home).Len2() <= r2 {
					f.Carrier, f.Pos = -1, f.Home
					m.Captures++
					m.addTeam(p.Team, 1)
					m.addPlayer(p.ID, CaptureScore)
					m.emit(now, FlagCaptured, i, p.ID, p.Team)
				}
			}
		}
	}
}

func (m *Match) updatePoints(now, dt time.Duration, players []Player) {
	r2 := m.cfg.PointRadius * m.cfg.PointRadius
	step := dt.Seconds() / m.cfg.CaptureTime.Seconds()
	for i := range m.Points {
		pt := &m.Points[i]
		var present [2]bool
		for _, p := range players {
			if p.Alive && p.Team >= 0 && p.Team < 2 && p.Pos.Sub(pt.Pos).Len2() <= r2 {
				present[p.Team] = true
			}
		}
		if present[0] == present[1] {
			continue // empty or contested: nothing moves
		}
		team := 0
		if present[1] {
			team = 1
		}
		switch {
		case pt.Owner == team:
			pt.Progress = 1
		case pt.Owner >= 0:
			// Neutralise the enemy's point first.
			pt.Progress -= step
			if pt.Progress <= 0 {
				pt.Owner, pt.Progress, pt.Capturer = -1, 0, team
				m.emit(now, PointNeutral, i, -1, team)
			}
		default:
			if pt.Capturer != team {
				pt.Capturer, pt.Progress = team, 0
			}
			pt.Progress += step
			if pt.Progress >= 1 {
				pt.Owner, pt.Progress = team, 1
				var scorers []int
				for _, p := range players {
					if p.Alive && p.Team == team && p.Pos.Sub(pt.Pos).Len2() <= r2 {
						m.addPlayer(p.ID, PointCaptureScore)
						scorers = append(scorers, p.ID)
					}
				}
				m.emit(now, PointCaptured, i, -1, team)
				m.events[len(m.events)-1].Scorers = scorers
			}
		}
	}
	// Each held point scores one for its team every second.
	m.scoreClock += dt
	for m.scoreClock >= time.Second {
		m.scoreClock -= time.Second
		for _, pt := range m.Points {
			if pt.Owner >= 0 {
				m.addTeam(pt.Owner, 1)
			}
		}
	}
}

func (m *Match) addPlayer(id, n int) {
	if id >= 0 && id < len(m.PlayerScore) {
		m.PlayerScore[id] += n
		if !m.Teams() && m.cfg.ScoreLimit > 0 && m.PlayerScore[id] >= m.cfg.ScoreLimit {
			m.ended = true
		}
	}
}

func (m *Match) addTeam(team, n int) {
	if team >= 0 && team < 2 {
		m.TeamScore[team] += n
		if m.cfg.ScoreLimit > 0 && m.TeamScore[team] >= m.cfg.ScoreLimit {
			m.ended = true
		}
	}
}

// Restart puts the round back to its start, as a study round's measured
// part does after its warm-up: scores and captures to zero, every flag
// home (FlagReturned for each that was away), every point neutral
// (PointNeutral for each that was owned), and the round no longer over.
func (m *Match) Restart(now time.Duration) {
	m.TeamScore = [2]int{}
	clear(m.PlayerScore)
	m.Captures, m.scoreClock, m.ended = 0, 0, false
	for i := range m.Flags {
		f := &m.Flags[i]
		if f.Carrier >= 0 || f.Dropped || f.Pos != f.Home {
			f.Carrier, f.Dropped, f.Pos = -1, false, f.Home
			m.emit(now, FlagReturned, i, -1, f.Team)
		}
	}
	for i := range m.Points {
		pt := &m.Points[i]
		if pt.Owner >= 0 {
			m.emit(now, PointNeutral, i, -1, pt.Owner)
		}
		pt.Owner, pt.Progress, pt.Capturer = -1, 0, -1
	}
}

func (m *Match) emit(now time.Duration, k EventKind, obj, player, team int) {
	m.events = append(m.events, Event{Time: now, Kind: k, Objective: obj, Player: player, Team: team})
}

// ChooseSpawn picks a spawn away from enemies: among spawns whose nearest
// living enemy is at least 80% as far as the best spawn's, a random one,
// so that spawning is safe but not predictable.
func ChooseSpawn(spawns []world.Spawn, enemies []geom.Vec3, rng *rand.Rand) (world.Spawn, bool) {
	if len(spawns) == 0 {
		return world.Spawn{}, false
	}
	safety := func(s world.Spawn) float64 {
		d := math.Inf(1)
		for _, e := range enemies {
			d = math.Min(d, s.Pos.Dist(e))
		}
		return d
	}
	best := 0.0
	for _, s := range spawns {
		best = math.Max(best, safety(s))
	}
	var n int
	for _, s := range spawns {
		if safety(s) >= 0.8*best {
			n++
		}
	}
	k := rng.IntN(n)
	for _, s := range spawns {
		if safety(s) >= 0.8*best {
			if k == 0 {
				return s, true
			}
			k--
		}
	}
	return spawns[0], true
}
