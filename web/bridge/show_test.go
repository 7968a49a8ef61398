package bridge

import (
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/lagcomp"
	"github.com/lagkit/lagkit/server"
)

// TestRewindViewAndReport plays a duel over a 60 ms one-way link under
// tlc with the server showing its rewinds: a shooter aiming where its
// page draws a strafing victim hits it. The shooter's page gets the
// rewind view of its hits (the tested hitboxes beside where it drew the
// victim, which lie within centimetres of each other, and where the
// victim was when judged, a rollback away), the victim's page the
// shooter's view of it, both the tracers, and the victim the killer for
// its death camera. The victim's report key then makes a server record
// tied to the newest hit, with its client's SBC verdict.
func TestRewindViewAndReport(t *testing.T) {
	l := newLoopWith(t, 2, 60*time.Millisecond, server.Config{Policy: lagcomp.Config{Name: "tlc"}, ShowRewind: true})
	l.run(time.Second, func(int) Input { return Input{} })
	shooter, victim := l.sessions[0].State(l.now), l.sessions[1].State(l.now)
	if shooter.Team == victim.Team {
		t.Fatalf("both players on team %d", shooter.Team)
	}
	l.s.Place(shooter.ID, geom.Vec3{X: -3, Y: 7.5}, 0)
	l.s.Place(victim.ID, geom.Vec3{X: 3, Y: 7.5}, math.Pi)
	l.run(400*time.Millisecond, func(int) Input { return Input{} })
	l.sessions[0].State(l.now)
	l.sessions[1].State(l.now)
	// The victim strafes back and forth; the shooter aims at its drawn
	// torso.
	aim := func(now time.Duration) Input {
		c := l.sessions[0].Client()
		p, ok := c.Remote(victim.ID, c.ViewTime(now))
		if !ok {
			return Input{}
		}
		eye := game.EyePos(c.Predicted(), nil)
		d := p.Pos.Add(geom.Vec3{Z: 1.1}).Sub(eye)
		return Input{Fire: true, Yaw: math.Atan2(d.Y, d.X), Pitch: math.Atan2(d.Z, math.Hypot(d.X, d.Y))}
	}
	var s0, s1 State
	keep := func() {
		a, b := l.sessions[0].State(l.now), l.sessions[1].State(l.now)
		s0.Rewinds, s0.Tracers = append(s0.Rewinds, a.Rewinds...), append(s0.Tracers, a.Tracers...)
		s1.Rewinds, s1.Tracers, s1.Killer = append(s1.Rewinds, b.Rewinds...), append(s1.Tracers, b.Tracers...), b.Killer
	}
	for i := range 20 {
		side := 1.0
		if i%4 >= 2 {
			side = -1
		}
		l.run(100*time.Millisecond, func(i int) Input {
			if i == 0 {
				return aim(l.now)
			}
			return Input{Yaw: math.Pi, Side: side}
		})
		keep()
	}
	mine, misses := 0, 0
	for _, r := range s0.Rewinds {
		if r.Outcome == "miss" {
			// A shot no hit came back for: its line, and no account of
			// the server's.
			misses++
			if !r.Mine || len(r.Tested) != 0 || r.Eye == r.Impact {
				t.Errorf("miss %+v, want the shooter's own, with its line and nothing tested", r)
			}
			continue
		}
		if !r.Mine || r.Victim != victim.ID || r.Shooter != shooter.ID {
			t.Errorf("shooter's rewind %+v, want its own hit on %d", r, victim.ID)
			continue
		}
		mine++
		if len(r.Tested) != game.NumParts || len(r.Now) != game.NumParts || len(r.Seen) != game.NumParts {
			t.Errorf("rewind hitboxes: %d tested, %d now, %d seen", len(r.Tested), len(r.Now), len(r.Seen))
		}
		// Rewound to the view time: the round trip and the interpolation
		// delay, within a few ticks.
		if r.RewindMs < 180 || r.RewindMs > 280 {
			t.Errorf("rewound %.1f ms, want about 120 ms round trip + 100 ms interpolation", r.RewindMs)
		}
		if r.SeenOffM < 0 || r.SeenOffM > 0.05 {
			t.Errorf("the page drew the victim %.3f m from where the server tested it", r.SeenOffM)
		}
	}
	if mine == 0 {
		t.Fatal("the shooter's page got no rewind view of its hits")
	}
	moved := 0
	for _, r := range s0.Rewinds {
		if r.RollbackM > 0.3 {
			moved++
		}
	}
	if moved == 0 {
		t.Error("no hit on the strafing victim rolled it back more than 0.3 m")
	}
	theirs := 0
	for _, r := range s1.Rewinds {
		if !r.Mine && r.Shooter == shooter.ID && r.Victim == victim.ID && len(r.Tested) == game.NumParts && len(r.Seen) == 0 {
			theirs++
		}
	}
	if theirs != mine {
		t.Errorf("the victim's page got %d views of the shooter's hits, the shooter's %d", theirs, mine)
	}
	kinds := map[string]int{}
	for _, tr := range s0.Tracers {
		kinds[tr.Kind]++
	}
	t.Logf("%d hits and %d misses shown, %d rolled back over 0.3 m, tracers %v; first %+v", mine, misses, moved, kinds, s0.Rewinds[0])
	if mine+misses > kinds["own"] {
		t.Errorf("%d hits and %d misses shown of %d shots", mine, misses, kinds["own"])
	}
	if kinds["own"] == 0 || kinds["hit"] != mine {
		t.Errorf("shooter's tracers %v: want its shots and one per hit (%d)", kinds, mine)
	}
	if s1.Killer != shooter.ID {
		t.Errorf("victim's killer %d, want %d", s1.Killer, shooter.ID)
	}

	l.reports = nil
	if err := l.sessions[1].ReportSBC(); err != nil {
		t.Fatal(err)
	}
	l.run(200*time.Millisecond, func(int) Input { return Input{} })
	reps := l.reports
	if len(reps) != 1 {
		t.Fatalf("%d server reports, want 1", len(reps))
	}
	r := reps[0]
	last := s1.Rewinds[len(s1.Rewinds)-1]
	if r.Reporter != victim.ID || !r.Hit || r.Shooter != shooter.ID || r.ShotTick != last.ShotTick || !r.SBCKnown || !r.Rewound {
		t.Errorf("server report %+v, want the hit of shot %d by %d, with the client's verdict", r, last.ShotTick, shooter.ID)
	}
	if st := l.sessions[1].State(l.now); st.Reports != 1 {
		t.Errorf("page counts %d reports, want 1", st.Reports)
	}
}

// BenchmarkState64 is one page's state at 64 players (what the page asks
// for every frame): interpolation of 63 remote players, their hitboxes,
// and the JSON the WebAssembly entry point hands the page.
func BenchmarkState64(b *testing.B) {
	l := newLoop(b, 64, 10*time.Millisecond)
	l.run(1500*time.Millisecond, func(int) Input { return Input{} })
	s := l.sessions[0]
	if st := s.State(l.now); len(st.Players) != 63 {
		b.Fatalf("%d players drawn, want 63", len(st.Players))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		st := s.State(l.now + time.Duration(i%16)*time.Millisecond)
		if _, err := json.Marshal(st); err != nil {
			b.Fatal(err)
		}
	}
}

// TestPlacementsAndReportRefusal: the first snapshot places the player
// at its spawn, facing the spawn's yaw whatever the page's commands
// said; a teleport counts as the next placement; and a report with no
// hit on the player is refused.
func TestPlacementsAndReportRefusal(t *testing.T) {
	l := newLoop(t, 1, 20*time.Millisecond)
	// The page holds yaw 2 from the start: the spawn's yaw still wins.
	l.run(500*time.Millisecond, func(int) Input { return Input{Yaw: 2} })
	st := l.sessions[0].State(l.now)
	best, yaw := math.Inf(1), 0.0
	for _, sp := range l.sessions[0].m.Spawns {
		if d := math.Hypot(sp.Pos.X-st.Self.Pos[0], sp.Pos.Y-st.Self.Pos[1]); d < best {
			best, yaw = d, sp.Yaw
		}
	}
	if st.Place.Count != 1 || best > 0.1 || math.Abs(st.Place.Yaw-yaw) > 1e-6 {
		t.Errorf("after the spawn at %v (%.2f m from a spawn facing %.3f): placement %+v", st.Self.Pos, best, yaw, st.Place)
	}
	if err := l.sessions[0].ReportSBC(); err != ErrNoHit {
		t.Errorf("report with no hit on the player: %v, want %v", err, ErrNoHit)
	}
	if st := l.sessions[0].State(l.now); st.Reports != 0 {
		t.Errorf("%d reports sent, want none", st.Reports)
	}
	l.s.Place(st.ID, geom.Vec3{X: 3, Y: 7.5}, 1)
	l.run(300*time.Millisecond, func(int) Input { return Input{Yaw: 2} })
	if st := l.sessions[0].State(l.now); st.Place.Count != 2 {
		t.Errorf("after a teleport: placement %+v, want the second", st.Place)
	}
}
