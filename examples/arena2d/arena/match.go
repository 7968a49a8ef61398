package arena

import (
	"math"
	"math/rand/v2"
	"time"

	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/server"
	"github.com/lagkit/lagkit/world"
)

// ScoreLimit is the kills that win a team the match.
const ScoreLimit = 10

// Rules are the arena's match rules (server.Config.Rules, through the
// server's seam): two teams kept even, a kill of an enemy a point for
// the killer and its team, a respawn at the spawn of the player's team
// farthest from the living enemies, and the match over when a team
// reaches ScoreLimit.
type Rules struct {
	server.NoRules
	team  [2]int
	score []int
}

// NewRules makes the arena's rules for a server (server.Config.Rules).
func NewRules(env server.RulesEnv) (server.Rules, error) {
	return &Rules{score: make([]int, env.MaxClients)}, nil
}

// Name returns "arena".
func (r *Rules) Name() string { return "arena" }

// Teams reports true: two teams.
func (r *Rules) Teams() bool { return true }

// Team puts a joining player in the smaller team.
func (r *Rules) Team(sizes [2]int) int {
	if sizes[1] < sizes[0] {
		return 1
	}
	return 0
}

// Enemies reports whether a and b play in different teams.
func (r *Rules) Enemies(_, ta, _, tb int) bool { return ta != tb }

// Spawn picks the spawn farthest from the living enemies.
func (r *Rules) Spawn(_, _ int, spawns []world.Spawn, enemies []geom.Vec3, _ *rand.Rand) (world.Spawn, bool) {
	best, far := -1, -1.0
	for i, sp := range spawns {
		near := math.Inf(1)
		for _, e := range enemies {
			near = math.Min(near, sp.Pos.Dist(e))
		}
		if near > far {
			best, far = i, near
		}
	}
	if best < 0 {
		return world.Spawn{}, false
	}
	return spawns[best], true
}

// Kill scores a kill of an enemy for the killer and its team.
func (r *Rules) Kill(_ time.Duration, killer, killerTeam, victim, victimTeam int) {
	if killer == victim || killerTeam == victimTeam || killer < 0 || killer >= len(r.score) {
		return
	}
	r.score[killer]++
	if killerTeam >= 0 && killerTeam < 2 {
		r.team[killerTeam]++
	}
}

// Score returns player id's kills of enemies.
func (r *Rules) Score(id int) int {
	if id >= 0 && id < len(r.score) {
		return r.score[id]
	}
	return 0
}

// SetScore sets player id's score.
func (r *Rules) SetScore(id, n int) {
	if id >= 0 && id < len(r.score) {
		r.score[id] = n
	}
}

// TeamScore returns the teams' kills.
func (r *Rules) TeamScore() [2]int { return r.team }

// Over reports whether a team reached ScoreLimit.
func (r *Rules) Over(time.Duration) bool { return max(r.team[0], r.team[1]) >= ScoreLimit }

// Restart puts the scores to zero.
func (r *Rules) Restart(time.Duration) {
	r.team = [2]int{}
	clear(r.score)
}
