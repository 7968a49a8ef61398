package mode

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/world"
)

const tick = time.Second / 64

func load(t *testing.T, name string) *world.Map {
	t.Helper()
	m, err := world.Load(name)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestCaptureTheFlag(t *testing.T) {
	m, err := New(Config{Mode: CTF}, load(t, "metro"), 4)
	if err != nil {
		t.Fatal(err)
	}
	red, blue := m.Flags[0], m.Flags[1]
	if red.Team != 0 || blue.Team != 1 {
		t.Fatalf("flags %+v", m.Flags)
	}
	now := time.Second
	step := func(ps ...Player) []Event {
		now += tick
		m.Update(now, tick, ps)
		return m.Events()
	}
	// Player 1 of team 1 takes team 0's flag.
	if ev := step(Player{ID: 1, Team: 1, Pos: red.Home, Alive: true}); len(ev) != 1 || ev[0].Kind != FlagTaken || m.Flags[0].Carrier != 1 {
		t.Fatalf("take: %+v %+v", ev, m.Flags[0])
	}
	// It dies half way: the flag drops there.
	mid := red.Home.Lerp(blue.Home, 0.5)
	m.Died(now, 1, mid)
	if ev := m.Events(); len(ev) != 1 || ev[0].Kind != FlagDropped {
		t.Fatalf("drop events: %+v", ev)
	}
	if f := m.Flags[0]; !f.Dropped || f.Pos != mid || f.Carrier != -1 {
		t.Fatalf("drop: %+v", f)
	}
	// A defender touches it: it returns home.
	if ev := step(Player{ID: 0, Team: 0, Pos: mid, Alive: true}); len(ev) != 1 || ev[0].Kind != FlagReturned || ev[0].Player != 0 {
		t.Fatalf("return: %+v", ev)
	}
	if f := m.Flags[0]; f.Dropped || f.Pos != red.Home {
		t.Fatalf("after return: %+v", f)
	}
	// Taken again and carried home to its own flag: a capture.
	step(Player{ID: 1, Team: 1, Pos: red.Home, Alive: true})
	ev := step(Player{ID: 1, Team: 1, Pos: blue.Home, Alive: true})
	if len(ev) != 1 || ev[0].Kind != FlagCaptured || m.TeamScore[1] != 1 || m.Captures != 1 || m.Flags[0].Pos != red.Home {
		t.Fatalf("capture: %+v score %v flags %+v", ev, m.TeamScore, m.Flags)
	}
	// A dropped flag nobody touches returns after FlagReturn.
	step(Player{ID: 1, Team: 1, Pos: red.Home, Alive: true})
	m.Died(now, 1, mid)
	m.Events()
	now += m.Config().FlagReturn
	if ev := step(); len(ev) != 1 || ev[0].Kind != FlagReturned || ev[0].Player != -1 {
		t.Fatalf("timed return: %+v", ev)
	}
}

func TestDomination(t *testing.T) {
	m, err := New(Config{Mode: DOM}, load(t, "arena"), 4)
	if err != nil {
		t.Fatal(err)
	}
	pt := m.Points[1].Pos
	now := time.Duration(0)
	var captures []Event
	run := func(d time.Duration, ps ...Player) {
		for end := now + d; now < end; now += tick {
			m.Update(now, tick, ps)
			for _, e := range m.Events() {
				if e.Kind == PointCaptured {
					captures = append(captures, e)
				}
			}
		}
	}
	far := pt.Add(geom.V(0, 0, 100)) // on no point
	run(4*time.Second+tick, Player{ID: 0, Team: 0, Pos: pt, Alive: true}, Player{ID: 2, Team: 0, Pos: far, Alive: true})
	if m.Points[1].Owner != 0 {
		t.Fatalf("not captured after the capture time: %+v", m.Points[1])
	}
	// The capture names whom it scored for: the team-mate on the point,
	// not the one away from it.
	if len(captures) != 1 || len(captures[0].Scorers) != 1 || captures[0].Scorers[0] != 0 || m.PlayerScore[0] != PointCaptureScore {
		t.Fatalf("captures %+v, score %d", captures, m.PlayerScore[0])
	}
	// Contested: nothing changes.
	run(10*time.Second, Player{ID: 0, Team: 0, Pos: pt, Alive: true}, Player{ID: 1, Team: 1, Pos: pt, Alive: true})
	if m.Points[1].Owner != 0 {
		t.Fatalf("contested point changed hands: %+v", m.Points[1])
	}
	// Held points score a point a second.
	if m.TeamScore[0] < 10 || m.TeamScore[1] != 0 {
		t.Fatalf("scores %v", m.TeamScore)
	}
	// The enemy alone neutralises, then captures.
	run(4*time.Second+tick, Player{ID: 1, Team: 1, Pos: pt, Alive: true})
	if m.Points[1].Owner != -1 {
		t.Fatalf("not neutralised: %+v", m.Points[1])
	}
	run(4*time.Second+tick, Player{ID: 1, Team: 1, Pos: pt, Alive: true})
	if m.Points[1].Owner != 1 {
		t.Fatalf("not captured by team 1: %+v", m.Points[1])
	}
}

func TestDeathmatchScoring(t *testing.T) {
	m, _ := New(Config{Mode: TDM, ScoreLimit: 2}, load(t, "arena"), 4)
	m.Kill(0, 0, 1, 1)
	m.Kill(2, 0, 0, 0) // team kill: no team point, minus one for the killer
	if m.TeamScore != [2]int{1, 0} || m.PlayerScore[0] != 1 || m.PlayerScore[2] != -1 {
		t.Fatalf("tdm: teams %v players %v", m.TeamScore, m.PlayerScore)
	}
	m.Kill(0, 0, 3, 1)
	if !m.Over(0) {
		t.Fatal("score limit reached but not over")
	}
	f, _ := New(Config{Mode: FFA}, load(t, "arena"), 4)
	if !f.Enemies(0, 0, 2, 0) {
		t.Fatal("ffa: same team number but not enemies")
	}
	f.Kill(2, 0, 0, 0)
	if f.PlayerScore[2] != 1 {
		t.Fatalf("ffa kill not scored: %v", f.PlayerScore)
	}
}

func TestConfigErrors(t *testing.T) {
	for _, c := range []Config{{Mode: "golf"}, {Mode: CTF, ScoreLimit: -1}, {TouchRadius: -1}} {
		if _, err := New(c, load(t, "metro"), 2); err == nil {
			t.Errorf("%+v accepted", c)
		}
	}
	m := &world.Map{Name: "empty"}
	if _, err := New(Config{Mode: CTF}, m, 2); err == nil {
		t.Error("ctf without flags accepted")
	}
}

func TestChooseSpawnAvoidsEnemies(t *testing.T) {
	spawns := []world.Spawn{{Pos: geom.V(0, 0, 0)}, {Pos: geom.V(50, 0, 0)}, {Pos: geom.V(100, 0, 0)}}
	enemies := []geom.Vec3{geom.V(5, 0, 0)}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 100 {
		s, _ := ChooseSpawn(spawns, enemies, rng)
		if s.Pos.X != 100 {
			t.Fatalf("spawned at %v next to an enemy at %v", s.Pos, enemies[0])
		}
	}
	seen := map[float64]bool{}
	for range 100 {
		s, _ := ChooseSpawn(spawns, nil, rng)
		seen[s.Pos.X] = true
	}
	if len(seen) != 3 {
		t.Fatalf("without enemies only spawns %v were used", seen)
	}
}
