package server

import (
	"math"
	"testing"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/lagcomp"
	"github.com/lagkit/lagkit/wire"
	"github.com/lagkit/lagkit/world/worldtest"
)

// disc is the body of every player and entity in the tests of a game's
// shot resolution: a vertical cylinder of 25 cm, 30 damage a hit.
var disc lagcomp.Body = lagcomp.Parts{{Shape: lagcomp.Circle{R: 0.25}, Damage: 30}}

// bodyShots is a game's shot resolution for the tests: each shot is one
// ray from the shooter's eye at the middle of the body in slot at as it
// was at the time the policy tests the shot (as a shooter that saw it
// there aims), for damage; with absorb, a shield takes that much of
// each hit.
type bodyShots struct {
	at       int
	damage   int16
	absorb   int16
	absorbed int
	// times are the times each shot was tested at, and hits what Hit
	// reported of each shot that hit.
	times []time.Duration
	hits  [][2]bool
}

func (b *bodyShots) Fire(w *ShotWorld) {
	b.times = append(b.times, w.Time())
	pose, ok := w.BodyAt(b.at)
	if !ok {
		return
	}
	ray := geom.Ray{Origin: w.Shot.Eye, Dir: pose.Pos.Add(geom.V(0, 0, 1)).Sub(w.Shot.Eye).Norm()}
	if _, ok := w.Trace(ray, 100); ok {
		registered, kill := w.Hit(b.damage)
		b.hits = append(b.hits, [2]bool{registered, kill})
	}
}

// shielded is bodyShots with a shield (Absorber).
type shielded struct{ *bodyShots }

func (s shielded) Absorb(_ int, _ *game.PlayerState, damage int16) int16 {
	s.absorbed++
	return damage - s.absorb
}

// scoreRules scores a point a kill.
type scoreRules struct {
	NoRules
	score [4]int
}

func (r *scoreRules) Kill(_ time.Duration, killer, _, victim, _ int) {
	if killer != victim {
		r.score[killer]++
	}
}
func (r *scoreRules) Score(id int) int { return r.score[id] }

// gameDuel is a duel whose players have the disc's body and whose shots
// the game's resolution shots resolves, under policy.
func gameDuel(t *testing.T, policy lagcomp.Config, shots Shots) *duel {
	t.Helper()
	return newDuel(t, Config{Body: disc, Shots: shots, Policy: policy, Rules: func(RulesEnv) (Rules, error) { return &scoreRules{}, nil }})
}

// only returns the one record d has, and forgets it.
func (d *duel) only() ShotRecord {
	d.t.Helper()
	if len(d.records) != 1 {
		d.t.Fatalf("%d shot records, want 1: %+v", len(d.records), d.records)
	}
	rec := d.records[0]
	d.records = nil
	return rec
}

// TestGameShotRegistered: a game's shot at the victim as its shooter saw
// it, 100 ms ago, is traced then under tlc and at the present under
// none, and its hit goes lagkit's one way: recorded (rewound, the
// victim, the outcome, the damage), the health taken, the victim told
// (wire.HitEvent) and the tallies counted.
func TestGameShotRegistered(t *testing.T) {
	for _, policy := range []string{"tlc", "none"} {
		t.Run(policy, func(t *testing.T) {
			b := &bodyShots{at: 1, damage: 30}
			d := gameDuel(t, lagcomp.Config{Name: policy}, b)
			d.shoot(nil)
			rec := d.only()
			now := d.s.Time()
			rewound := policy == "tlc"
			wantAt := now
			if rewound {
				wantAt = now - 100*time.Millisecond
			}
			if len(b.times) != 1 || b.times[0] != wantAt || rec.Tested != wantAt || rec.Rewound != rewound {
				t.Fatalf("tested at %v (record: %v, rewound %v), want %v", b.times, rec.Tested, rec.Rewound, wantAt)
			}
			if rec.Shooter != 0 || rec.Victim != 1 || rec.Entity != 0 || !rec.Hit || !rec.Registered || rec.Outcome != wire.OutcomeRegistered ||
				rec.Damage != 30 || rec.Kill || rec.Policy != policy || rec.Time != now {
				t.Fatalf("record %+v", rec)
			}
			if want := 100.0; rewound && math.Abs(rec.RewindMS-want) > 1e-9 {
				t.Fatalf("rewound %v ms, want %v", rec.RewindMS, want)
			}
			if len(b.hits) != 1 || b.hits[0] != [2]bool{true, false} {
				t.Fatalf("Hit reported %v", b.hits)
			}
			d.run(100 * time.Millisecond)
			if len(d.hits[2]) != 1 || d.hits[2][0].Damage != 30 || d.hits[2][0].Shooter != 0 || d.hits[2][0].Appeal != 0 {
				t.Fatalf("the victim heard %+v", d.hits[2])
			}
			shooter, _ := d.s.Client(0)
			victim, _ := d.s.Client(1)
			if victim.State.Health != game.MaxHealth-30 || shooter.Shots != 1 || shooter.Hits != 1 || victim.HitsTaken != 1 {
				t.Fatalf("victim's health %d, shooter %d shots %d hits, victim %d hits taken", victim.State.Health, shooter.Shots, shooter.Hits, victim.HitsTaken)
			}
		})
	}
}

// TestGameShotPolicies: a game's hit is judged by the policy as lagkit's
// are. Beyond clc's rollback cap (the victim walked 40 cm since the
// shooter saw it) the shot is traced again at the present, where it
// misses the 25 cm disc; under its default, uncapped, it registers. alc
// makes a hit on a low-ping victim provisional: nothing applied nor
// recorded until the victim confirms it.
func TestGameShotPolicies(t *testing.T) {
	walking := func(d *duel) {
		d.cmd[2] = game.UserCmd{Yaw: game.YawUnits(math.Pi), Side: 127}
		d.run(500 * time.Millisecond)
	}
	b := &bodyShots{at: 1, damage: 30}
	d := gameDuel(t, lagcomp.Config{Name: "clc", MaxRollbackM: 0.1}, b)
	walking(d)
	d.shoot(nil)
	if rec := d.only(); rec.Hit || rec.Registered || rec.Rewound || rec.Victim != -1 || rec.Tested != d.s.Time() {
		t.Fatalf("beyond the cap: %+v, want a miss tested at the present", rec)
	}
	if v, _ := d.s.Client(1); v.State.Health != game.MaxHealth || len(b.hits) != 1 || b.hits[0][0] {
		t.Fatalf("health %d, Hit reported %v", v.State.Health, b.hits)
	}

	b = &bodyShots{at: 1, damage: 30}
	d = gameDuel(t, lagcomp.Config{Name: "clc"}, b)
	walking(d)
	d.shoot(nil)
	if rec := d.only(); !rec.Registered || !rec.Rewound || rec.RollbackM < 0.3 {
		t.Fatalf("uncapped: %+v, want a rewound hit, rolled back about 40 cm", rec)
	}

	b = &bodyShots{at: 1, damage: 30}
	d = gameDuel(t, lagcomp.Config{Name: "alc"}, b)
	d.shoot(nil)
	if len(d.records) != 0 || len(b.hits) != 1 || b.hits[0][0] {
		t.Fatalf("provisional: records %+v, Hit reported %v", d.records, b.hits)
	}
	d.run(50 * time.Millisecond)
	if len(d.hits[2]) != 1 || d.hits[2][0].Appeal == 0 {
		t.Fatalf("the victim heard %+v, want a provisional hit", d.hits[2])
	}
	if err := d.appeal(d.s.Time(), 2, d.hits[2][0].Appeal, false); err != nil {
		t.Fatal(err)
	}
	d.run(50 * time.Millisecond)
	if rec := d.only(); !rec.Appealed || !rec.Registered || rec.Outcome != wire.OutcomeConfirmed || rec.Damage != 30 {
		t.Fatalf("confirmed: %+v", rec)
	}
	if v, _ := d.s.Client(1); v.State.Health != game.MaxHealth-30 {
		t.Fatalf("health %d after the confirmed hit", v.State.Health)
	}
}

// TestGameShotKills: a game's hits through its shield (Absorber: 10 of
// each 30 taken elsewhere) take 20 health each; the fifth kills, on
// lagkit's path: the shot's record marks the kill, the victim is dead
// and the kill is scored by the rules and tallied.
func TestGameShotKills(t *testing.T) {
	b := &bodyShots{at: 1, damage: 30, absorb: 10}
	d := gameDuel(t, lagcomp.Config{}, shielded{b})
	for i := range 5 {
		d.shoot(nil)
		if v, _ := d.s.Client(1); i < 4 && v.State.Health != game.MaxHealth-20*int16(i+1) {
			t.Fatalf("after hit %d: health %d", i+1, v.State.Health)
		}
		d.run(200 * time.Millisecond) // the rifle's fire interval
	}
	if b.absorbed != 5 || len(b.hits) != 5 || b.hits[4] != [2]bool{true, true} {
		t.Fatalf("absorbed %d times, Hit reported %v", b.absorbed, b.hits)
	}
	var fatal []ShotRecord
	for _, r := range d.records {
		if r.Kill {
			fatal = append(fatal, r)
		}
	}
	if len(fatal) != 1 || fatal[0].Damage != 30 || fatal[0].Victim != 1 {
		t.Fatalf("killing records %+v", fatal)
	}
	shooter, _ := d.s.Client(0)
	victim, _ := d.s.Client(1)
	if shooter.Kills != 1 || shooter.Score != 1 || victim.Deaths != 1 || !victim.State.Has(game.FlagDead) {
		t.Fatalf("shooter %d kills, score %d; victim %d deaths, health %d", shooter.Kills, shooter.Score, victim.Deaths, victim.State.Health)
	}
}

// TestGameShotKillInReady: the kill of a game's shot is in the Ready of
// its tick, with the shooter's weapon slot.
func TestGameShotKillInReady(t *testing.T) {
	b := &bodyShots{at: 1, damage: 200}
	d := gameDuel(t, lagcomp.Config{}, b)
	cmd := d.cmd[1]
	cmd.Buttons = game.BtnFire
	d.cmd[1] = cmd
	now := d.s.NextTick()
	for _, peer := range d.peers {
		c := d.cmd[peer]
		c.Tick, c.Duration, c.ViewTime = d.next[peer], d.s.TickDuration(), now-100*time.Millisecond
		d.next[peer]++
		b, err := wire.AppendCommands(nil, &wire.Commands{ClientTime: now, Cmds: []game.UserCmd{c}})
		if err != nil {
			t.Fatal(err)
		}
		if err := d.s.Step(now, peer, b); err != nil {
			t.Fatal(err)
		}
	}
	r := d.s.Advance(now)
	if len(r.Kills) != 1 || r.Kills[0].Killer != 0 || r.Kills[0].Victim != 1 || r.Kills[0].Weapon != 0 {
		t.Fatalf("kills %+v", r.Kills)
	}
	if len(r.Shots) != 1 || !r.Shots[0].Kill || r.Shots[0].Damage != 200 {
		t.Fatalf("shots %+v", r.Shots)
	}
}

// TestGameShotEntity: a game's shot at an entity with a body, rewound
// like a player's, stands for the game to apply: recorded with the
// entity's slot, no player hit.
func TestGameShotEntity(t *testing.T) {
	b := &bodyShots{at: 100, damage: 30}
	d := gameDuel(t, lagcomp.Config{}, b)
	if err := d.s.SetEntity(100, game.PlayerState{Pos: geom.V(10, 5, 0)}, disc); err != nil {
		t.Fatal(err)
	}
	d.run(200 * time.Millisecond)
	d.shoot(nil)
	rec := d.only()
	if !rec.Hit || !rec.Registered || rec.Entity != 100 || rec.Victim != -1 || rec.Damage != 30 || !rec.Rewound {
		t.Fatalf("record %+v", rec)
	}
	if len(b.hits) != 1 || b.hits[0] != [2]bool{true, false} {
		t.Fatalf("Hit reported %v", b.hits)
	}
	if v, _ := d.s.Client(1); v.State.Health != game.MaxHealth {
		t.Fatalf("the player took %d", game.MaxHealth-v.State.Health)
	}
}

// TestGameShotUnregistered: a hit the game traced and did not register
// is recorded as discarded, and a miss as a miss.
func TestGameShotUnregistered(t *testing.T) {
	d := gameDuel(t, lagcomp.Config{}, traceOnly{})
	d.shoot(nil)
	rec := d.only()
	if !rec.Hit || rec.Registered || rec.Outcome != wire.OutcomeDiscarded || rec.Victim != 1 {
		t.Fatalf("record %+v", rec)
	}
	d.s.Place(1, geom.V(20, 10, 0), math.Pi)
	d.run(200 * time.Millisecond)
	d.shoot(nil)
	if rec := d.only(); rec.Hit || rec.Victim != -1 {
		t.Fatalf("record %+v, want a miss", rec)
	}
}

// traceOnly traces along the shooter's aim and registers nothing.
type traceOnly struct{}

func (traceOnly) Fire(w *ShotWorld) {
	w.Trace(geom.Ray{Origin: w.Shot.Eye.Sub(geom.V(0, 0, 0.5)), Dir: geom.V(1, 0, 0)}, 100)
}

// TestCoveredOnBody: a victim's appeal against a game's hit is checked
// on the game's body (the spot hit, in its frame, where the victim now
// stands), not on a humanoid part: a spot half a metre up is hidden by
// the low cover (1.25 m) where the humanoid's head would not be.
func TestCoveredOnBody(t *testing.T) {
	s := testServer(t, Config{Map: worldtest.Cover(t)})
	h := hitInfo{onBody: true, part: game.PartHead, local: geom.V(-0.25, 0, 0.5), eye: geom.V(0, 0, 1.6)}
	behind := game.PlayerState{Pos: geom.V(20, -12, 0)} // the low cover midway
	open := game.PlayerState{Pos: geom.V(20, -20, 0)}
	if !s.covered(&h, behind) || s.covered(&h, open) {
		t.Fatalf("covered behind the low cover %v, in the open %v", s.covered(&h, behind), s.covered(&h, open))
	}
	h.onBody = false // the same spot taken as the head's
	if s.covered(&h, behind) {
		t.Fatal("the head is covered by the low cover")
	}
}

// TestHumanoidsAndEntities: where the players are lagkit's humanoids (no
// Config.Body), a shot's Trace meets the entities' bodies too, whichever
// is nearer along the ray: lagkit's rifle, aimed at the victim's torso
// 20 m away, hits a crate standing in the way at 10 m, not the victim
// behind it; hits the victim when the crate stands behind the victim
// at 30 m; and hits the victim again once the crate is gone.
func TestHumanoidsAndEntities(t *testing.T) {
	d := newDuel(t, Config{Policy: lagcomp.Config{Name: "none"}})
	crate := lagcomp.Parts{{Shape: lagcomp.Box{Min: geom.V(-0.5, -0.5, 0), Max: geom.V(0.5, 0.5, 2)}, Damage: 10}}
	slot := d.s.Config().Shape.SlotCount() - 1
	for _, c := range []struct {
		name   string
		at     float64 // the crate's x; 0: none
		entity bool
	}{{"in the way", 10, true}, {"behind", 30, false}, {"gone", 0, false}} {
		if c.at == 0 {
			d.s.RemoveEntity(slot)
		} else if err := d.s.SetEntity(slot, game.PlayerState{Pos: geom.V(c.at, 0, 0)}, crate); err != nil {
			t.Fatal(err)
		}
		d.run(200 * time.Millisecond)
		d.records = nil
		d.shoot(nil)
		rec := d.only()
		switch {
		case !rec.Hit:
			t.Fatalf("crate %s: the shot missed: %+v", c.name, rec)
		case c.entity && (rec.Entity != slot || rec.Victim != -1):
			t.Fatalf("crate %s: hit entity %d, player %d; want the crate (%d)", c.name, rec.Entity, rec.Victim, slot)
		case !c.entity && (rec.Entity != 0 || rec.Victim != 1 || !rec.Registered):
			t.Fatalf("crate %s: hit entity %d, player %d (registered %v); want the victim", c.name, rec.Entity, rec.Victim, rec.Registered)
		}
	}
}
