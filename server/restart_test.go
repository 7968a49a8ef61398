package server

import (
	"testing"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/lagcomp"
	"github.com/lagkit/lagkit/shooter/mode"
	"github.com/lagkit/lagkit/world"
)

// TestRestart: a round restarted after its warm-up keeps nothing of it:
// scores, captures and statistics are zero, the flag a player carried is
// home again (announced) and the living are healed; nobody moves, and
// the dead respawn when they were due.
func TestRestart(t *testing.T) {
	m, err := world.Load("metro")
	if err != nil {
		t.Fatal(err)
	}
	s := testServer(t, Config{Map: m, MaxClients: 4, Rules: modeRules(mode.Config{Mode: mode.CTF})})
	a, b := join(t, s, 0, Peer(0)), join(t, s, 0, Peer(1))
	for range 10 {
		s.Advance(s.NextTick())
	}
	s.Ready()
	mt := matchOf(s)
	ca, cb := s.clients[a], s.clients[b]
	ca.kills, ca.shotsFired, ca.hitsLanded, cb.deaths, cb.hitsTaken = 1, 7, 2, 1, 2
	mt.TeamScore[ca.team], mt.PlayerScore[a], mt.Captures = 1, 105, 1
	enemyFlag := 1 - ca.team
	for i := range mt.Flags {
		if f := &mt.Flags[i]; f.Team == enemyFlag {
			f.Carrier, f.Pos = a, ca.state.Pos
		}
	}
	ca.state.Flags |= mode.FlagCarrier
	ca.state.Health = 30
	cb.state.Flags |= game.FlagDead
	cb.state.Health = 0
	cb.respawnAt = s.Time() + 1e12
	at := ca.state.Pos

	s.Restart()
	ready := s.Advance(s.NextTick())

	if mt.TeamScore != [2]int{} || mt.PlayerScore[a] != 0 || mt.Captures != 0 {
		t.Errorf("scores after the restart: teams %v, player %d, captures %d", mt.TeamScore, mt.PlayerScore[a], mt.Captures)
	}
	for _, f := range mt.Flags {
		if f.Carrier != -1 || f.Dropped || f.Pos != f.Home {
			t.Errorf("flag %+v not home", f)
		}
	}
	for _, c := range []*client{ca, cb} {
		if tl := s.tallyOf(c); tl != (Tally{}) {
			t.Errorf("player %d's statistics after the restart: %+v", c.id, tl)
		}
	}
	if ca.state.Has(mode.FlagCarrier) || ca.state.Health != game.MaxHealth || ca.state.Pos.Dist(at) > 0.05 {
		t.Errorf("the carrier after the restart: %+v, was at %v", ca.state, at)
	}
	if !cb.state.Has(game.FlagDead) {
		t.Errorf("the dead player respawned before its time: %+v", cb.state)
	}
	returned, restarted := false, false
	for _, e := range ready.Log {
		returned = returned || (e.Kind == "flag_returned" && e.Team == enemyFlag)
		restarted = restarted || e.Kind == "restart"
	}
	if !returned || !restarted {
		t.Errorf("log: flag returned %v, restart %v", returned, restarted)
	}
}

// TestRestartVoidsAppeals: a warm-up hit awaiting its victim's appeal
// when the round restarts is void: no damage, no record, and the
// victim's late answer is ignored.
func TestRestartVoidsAppeals(t *testing.T) {
	d := newDuel(t, Config{Policy: lagcomp.Config{Name: "alc"}})
	d.shoot(nil)
	if len(d.hits[2]) != 1 || d.hits[2][0].Appeal == 0 {
		t.Fatalf("victim received %+v, want one provisional hit", d.hits[2])
	}
	d.records = nil
	d.s.Restart()
	if err := d.appeal(d.s.Time(), 2, d.hits[2][0].Appeal, false); err != nil {
		t.Fatal(err)
	}
	d.run(time.Second)
	slot, _ := d.s.ClientByPeer(2)
	v, _ := d.s.Client(slot)
	if len(d.records) != 0 || v.State.Health != game.MaxHealth || v.HitsTaken != 0 {
		t.Fatalf("after the restart: records %+v, victim health %d, hits taken %d", d.records, v.State.Health, v.HitsTaken)
	}
}
