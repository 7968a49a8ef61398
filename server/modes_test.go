package server

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/shooter/mode"
	"github.com/lagkit/lagkit/world"
)

// modeRules plays lagkit's shooter's modes through the rules seam in
// this package's tests, as package shooter does for programs (which the
// server's own tests cannot import: it imports the server). Its tests
// hold the two to the same results.
func modeRules(cfg mode.Config) func(RulesEnv) (Rules, error) {
	return func(env RulesEnv) (Rules, error) {
		m, err := mode.New(cfg, env.Map, env.MaxClients)
		if err != nil {
			return nil, err
		}
		return &testMode{m: m}, nil
	}
}

type testMode struct {
	m       *mode.Match
	players []mode.Player
}

// matchOf returns the round of a server playing modeRules.
func matchOf(s *Server) *mode.Match { return s.rules.(*testMode).m }

func (r *testMode) Name() string                                  { return string(r.m.Kind()) }
func (r *testMode) Teams() bool                                   { return r.m.Teams() }
func (r *testMode) Team(sizes [2]int) int                         { return r.m.Team(sizes) }
func (r *testMode) Enemies(a, ta, b, tb int) bool                 { return r.m.Enemies(a, ta, b, tb) }
func (r *testMode) Died(now time.Duration, id int, pos geom.Vec3) { r.m.Died(now, id, pos) }
func (r *testMode) Kill(_ time.Duration, k, kt, v, vt int)        { r.m.Kill(k, kt, v, vt) }
func (r *testMode) Spawn(_, _ int, sp []world.Spawn, en []geom.Vec3, rng *rand.Rand) (world.Spawn, bool) {
	return mode.ChooseSpawn(sp, en, rng)
}
func (r *testMode) Score(id int) int            { return r.m.PlayerScore[id] }
func (r *testMode) SetScore(id, n int)          { r.m.PlayerScore[id] = n }
func (r *testMode) TeamScore() [2]int           { return r.m.TeamScore }
func (r *testMode) Over(now time.Duration) bool { return r.m.Over(now) }
func (r *testMode) Restart(now time.Duration)   { r.m.Restart(now) }
func (r *testMode) TimeLeft(now time.Duration) (time.Duration, bool) {
	d := r.m.Config().Duration
	return d - now, d > 0
}
func (r *testMode) WarpCheck() error {
	if k := r.m.Kind(); k != mode.FFA && k != mode.TDM {
		return fmt.Errorf("time warp supports modes ffa and tdm, not %s", k)
	}
	return nil
}

func (r *testMode) Update(now, dt time.Duration, ref *Referee) {
	r.players = r.players[:0]
	for _, p := range ref.Players {
		r.players = append(r.players, mode.Player{ID: p.ID, Team: p.Team, Pos: p.Pos, Alive: p.Alive})
	}
	r.m.Update(now, dt, r.players)
	for _, ev := range r.m.Events() {
		pos := r.m.Flags[min(ev.Objective, len(r.m.Flags)-1)].Pos
		if ev.Kind == mode.PointCaptured || ev.Kind == mode.PointNeutral {
			pos = r.m.Points[ev.Objective].Pos
		}
		ref.Objective(Objective{Kind: ev.Kind.String(), What: uint8(ev.Kind), Objective: ev.Objective, Player: ev.Player, Team: ev.Team, Pos: pos, Scorers: ev.Scorers})
	}
	for _, p := range ref.Players {
		carries := false
		for _, f := range r.m.Flags {
			carries = carries || f.Carrier == p.ID
		}
		switch {
		case carries && p.Flags&mode.FlagCarrier == 0:
			ref.Edit(p.ID, func(st *game.PlayerState) { st.Flags |= mode.FlagCarrier })
		case !carries && p.Flags&mode.FlagCarrier != 0:
			ref.Edit(p.ID, func(st *game.PlayerState) { st.Flags &^= mode.FlagCarrier })
		}
	}
}

// metro returns the shipped map metro, which has team flags.
func metro(t testing.TB) *world.Map {
	t.Helper()
	m, err := world.Load("metro")
	if err != nil {
		t.Fatal(err)
	}
	return m
}
