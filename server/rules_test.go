package server

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/lagcomp"
	"github.com/lagkit/lagkit/wire"
	"github.com/lagkit/lagkit/world"
)

// tagRules are a game's own rules, written against the seam alone: two
// teams, a kill worth 3, every respawn at the map's last spawn, a
// "bell" objective rung at the fifth tick, and the round over at the
// first kill.
type tagRules struct {
	NoRules
	score   [2]int
	ticks   int
	bellAt  int
	killed  bool
	updates []time.Duration
}

func (r *tagRules) Name() string { return "tag" }
func (r *tagRules) Teams() bool  { return true }
func (r *tagRules) Team(sizes [2]int) int {
	if sizes[1] < sizes[0] {
		return 1
	}
	return 0
}
func (r *tagRules) Enemies(a, ta, b, tb int) bool { return ta != tb }
func (r *tagRules) Spawn(_, _ int, spawns []world.Spawn, _ []geom.Vec3, _ *rand.Rand) (world.Spawn, bool) {
	return spawns[len(spawns)-1], len(spawns) > 0
}
func (r *tagRules) Kill(_ time.Duration, killer, _, _, _ int) {
	if killer < 2 {
		r.score[killer] += 3
	}
	r.killed = true
}
func (r *tagRules) Score(id int) int {
	if id < 2 {
		return r.score[id]
	}
	return 0
}
func (r *tagRules) Over(time.Duration) bool { return r.killed }
func (r *tagRules) Update(now, _ time.Duration, ref *Referee) {
	r.updates = append(r.updates, now)
	if r.ticks++; r.ticks == r.bellAt {
		ref.Objective(Objective{Kind: "bell", What: 9, Objective: 0, Player: ref.Players[0].ID, Team: 0, Pos: geom.V(1, 2, 0)})
	}
}

// TestGameRules: the core plays a game's rules through the seam: teams
// by its choice, its objective logged and sent to every client, a kill
// scored and the respawn placed its way, and the round over when it
// says.
func TestGameRules(t *testing.T) {
	rules := &tagRules{}
	d := newDuel(t, Config{Rules: func(env RulesEnv) (Rules, error) {
		if env.MaxClients != 64 || env.Map == nil || env.TickDuration != time.Second/64 {
			t.Errorf("rules made for %+v", env)
		}
		return rules, nil
	}, RespawnDelay: 500 * time.Millisecond})
	if d.s.Rules() != Rules(rules) {
		t.Fatal("the server plays other rules")
	}
	a, _ := d.s.Client(0)
	b, _ := d.s.Client(1)
	if a.Team != 0 || b.Team != 1 {
		t.Fatalf("teams %d and %d, want 0 and 1", a.Team, b.Team)
	}
	if len(rules.updates) != int(d.s.Tick()) {
		t.Fatalf("%d updates in %d ticks", len(rules.updates), d.s.Tick())
	}
	bells := map[int]bool{}
	d.s.SetEventNotes(func(n *EventNote) {
		var ev wire.ObjectiveEvent
		if n.Kind == wire.EventObjective && !n.Acked && wire.DecodeObjectiveEvent(n.Data, &ev) == nil && ev.What == 9 && ev.Pos == geom.V(1, 2, 0) {
			bells[n.Seat] = true
		}
	})
	rules.bellAt = rules.ticks + 1
	d.tick(nil)
	if !bells[0] || !bells[1] {
		t.Fatalf("the bell reached seats %v, want both", bells)
	}
	for range 40 {
		d.shoot(nil)
		d.run(120 * time.Millisecond)
		if c, _ := d.s.Client(1); c.Deaths > 0 {
			break
		}
	}
	if c, _ := d.s.Client(0); c.Kills != 1 || c.Score != 3 || !d.s.Rules().Over(d.s.PlayTime()) {
		t.Fatalf("the killer: %d kills, score %d; round over %v", c.Kills, c.Score, d.s.Rules().Over(d.s.PlayTime()))
	}
	d.run(time.Second)
	spawns := d.s.cfg.Map.SpawnsFor(1)
	if c, _ := d.s.Client(1); c.State.Has(game.FlagDead) || c.State.Pos.Dist(game.SnapPos(spawns[len(spawns)-1].Pos)) > 0.5 {
		t.Fatalf("the victim respawned at %v, want the last spawn of its team %v", c.State.Pos, spawns[len(spawns)-1].Pos)
	}
}

// nearMiss is a game's world adjustment: a ray that missed every true
// hitbox hits a target whose chest lies within 2 m of its line, and
// says so in the record (Assisted).
type nearMiss struct{ queries []HitQuery }

func (a *nearMiss) Adjust(q *HitQuery) (lagcomp.Hit, bool) {
	targets := q.Targets()
	a.queries = append(a.queries, *q)
	for _, tg := range targets {
		to := tg.Pose.Pos.Add(geom.V(0, 0, 1.2)).Sub(q.Ray.Origin)
		along := to.Dot(q.Ray.Dir)
		if along > 0 && along < q.Range && to.Sub(q.Ray.Dir.Scale(along)).Len() < 2 {
			q.Record.Assisted = true
			return lagcomp.Hit{Victim: tg.ID, Part: game.PartTorso, Dist: along, Point: tg.Pose.Pos, Pose: tg.Pose}, true
		}
	}
	return lagcomp.Hit{}, false
}

// TestAdjustmentSeam: a shot on target never reaches the adjustments; a
// shot that misses the true hitboxes is offered to them at the time it
// was tested, with the shooter's enemies as targets, and the hit one
// finds is registered.
func TestAdjustmentSeam(t *testing.T) {
	adj := &nearMiss{}
	d := newDuel(t, Config{Adjust: func(RulesEnv) ([]Adjustment, error) { return []Adjustment{adj}, nil }})
	d.shoot(nil)
	d.run(200 * time.Millisecond)
	if len(d.records) != 1 || !d.records[0].Hit || d.records[0].Assisted || len(adj.queries) != 0 {
		t.Fatalf("a shot on target: records %+v, %d adjustment queries", d.records, len(adj.queries))
	}
	// A metre high over the victim's head: no true hitbox.
	cmd := d.cmd[1]
	cmd.Pitch = game.PitchUnits(math.Atan2(1, 20))
	d.cmd[1] = cmd
	d.shoot(nil)
	d.run(200 * time.Millisecond)
	if len(d.records) != 2 || len(adj.queries) != 1 {
		t.Fatalf("the shot over the head: %d records, %d adjustment queries", len(d.records), len(adj.queries))
	}
	rec, q := d.records[1], adj.queries[0]
	if !rec.Hit || rec.Victim != 1 || !rec.Assisted || q.Time != rec.Tested || q.Shooter != 0 || len(q.targets) != 1 || q.targets[0].ID != 1 {
		t.Fatalf("the adjusted shot: record %+v, query at %v by %d of targets %+v", rec, q.Time, q.Shooter, q.targets)
	}
}

// TestNoRules: a game that brings no rules plays everyone against
// everyone, unscored, with no end.
func TestNoRules(t *testing.T) {
	d := newDuel(t, Config{})
	a, _ := d.s.Client(0)
	b, _ := d.s.Client(1)
	if d.s.Rules().Name() != "none" || a.Team != 0 || b.Team != 0 {
		t.Fatalf("rules %q, teams %d and %d", d.s.Rules().Name(), a.Team, b.Team)
	}
	d.shoot(nil)
	d.run(200 * time.Millisecond)
	if len(d.records) != 1 || !d.records[0].Registered {
		t.Fatalf("records %+v, want a registered hit between players of team 0", d.records)
	}
	if d.s.Rules().Over(time.Hour) {
		t.Fatal("the round ended")
	}
}
