package lagcomp_test

// This file holds the tests of server-side hit registration under the
// lag compensation policies ([alc], [source], [taxonomy]), in the manner of etcd raft's raft_paper_test.go: each
// test quotes the statement it checks. Most drive a whole server through
// its public API (see rig_test.go); the rest query the lag compensation
// history and SBC detection directly.
//
// Layout on the cover test map (worldtest.Cover): shooters stand near the
// origin and look along +X. Open-field shots travel along y = -20, far
// from the two boxes, which lie between x = 10 and 10.5: a 3 m wall over
// y 0..4 and a 1.25 m cover over y -8..-4.

import (
	"math"
	"testing"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/lagcomp"
	"github.com/lagkit/lagkit/server"
	"github.com/lagkit/lagkit/shooter"
	"github.com/lagkit/lagkit/shooter/mode"
	"github.com/lagkit/lagkit/wire"
	"github.com/lagkit/lagkit/world/worldtest"
)

const ms = time.Millisecond

// near reports whether a and b differ by at most tol.
func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// TestRewindIsAQuery checks that lag compensation reads the past and
// leaves the present alone:
//
//	"Rewinding is a query, not a mutation: hit tests run against the
//	historical poses [...]; live state is never moved and restored."
//
// A victim that teleports 5 m away is hit where the shooter saw it, and
// afterwards its live state is where the teleport put it and every
// recorded pose is unchanged.
//
// Reference: [source], rewinding the other players (docs/references.md).
func TestRewindIsAQuery(t *testing.T) {
	m := newRig(t, server.Config{})
	a, b := m.join(0, 100*ms), m.join(0, 100*ms)
	m.place(a, geom.V(0, -20, 0), 0)
	m.place(b, geom.V(20, -20, 0), math.Pi)
	m.run(500 * ms)
	seen := m.part(m.state(b), game.PartTorso)
	m.place(b, geom.V(20, -15, 0), math.Pi)
	m.tick()

	h := m.s.History()
	oldest, _ := h.Oldest()
	newest, _ := h.Newest()
	poses := func() []game.PlayerState {
		var out []game.PlayerState
		// The shot's tick drops the oldest record; compare the rest, on
		// and between ticks.
		for n := oldest + 1; n <= newest; n++ {
			for _, at := range []time.Duration{h.TickTime(n) - m.dt/3, h.TickTime(n)} {
				for _, p := range m.players {
					st, _ := h.At(p.id, at)
					out = append(out, st)
				}
			}
		}
		return out
	}
	before := poses()

	rec := only(t, m.fire(a, seen))
	if rec.Victim != b.id || !rec.Rewound || !near(rec.RewindMS, 100, 1e-9) || !near(rec.RollbackM, 5, 1e-9) {
		t.Fatalf("shot at the victim's seen pose: %+v, want a hit rewound 100 ms and rolled back 5 m", rec)
	}
	if got := m.state(b); got.Pos != geom.V(20, -15, 0) || got.Health != game.MaxHealth-25 {
		t.Fatalf("victim's live state after the shot: at %v with health %d, want at (20, -15, 0) with health 75", got.Pos, got.Health)
	}
	after := poses()
	for i := range before {
		if before[i] != after[i] {
			t.Fatalf("recorded pose %d changed by the shot: %+v -> %+v", i, before[i], after[i])
		}
	}
}

// TestRewindInterpolatesStraddlingRecords checks which pose a rewound
// test meets between ticks:
//
//	"hit tests run against the historical poses, interpolated between the
//	two records that straddle the target time"
//
// A player crossing the line of fire at 1 m a tick is hit at a time
// between two ticks only by a ray through its interpolated position, and
// the hit reports that pose.
//
// Reference: [source], interpolated history (docs/references.md).
func TestRewindInterpolatesStraddlingRecords(t *testing.T) {
	const dt = time.Second / 64
	p := game.DefaultParams()
	h := lagcomp.NewHistory(dt, time.Second, 1)
	for n := uint32(1); n <= 100; n++ {
		h.Begin(n)
		h.Set(0, game.PlayerState{Pos: geom.V(float64(n), 0, 0), Flags: game.FlagOnGround})
	}
	tr := lagcomp.Tracer{History: h, Grid: worldtest.Open(t).Grid, Params: &p}
	cases := []struct {
		at    time.Duration
		rayX  float64 // the ray crosses the player's path here, along +Y
		wantX float64 // -1: a miss
	}{
		{80*dt + dt/2, 80.5, 80.5},
		{80*dt + dt/4, 80.25, 80.25},
		{80*dt + dt/2, 80, -1}, // where the earlier record has it
		{80*dt + dt/2, 81, -1}, // where the later record has it
		{80 * dt, 80, 80},
	}
	for _, tc := range cases {
		r := geom.Ray{Origin: geom.V(tc.rayX, -10, 1.1), Dir: geom.V(0, 1, 0)}
		hit, ok := tr.Trace(r, 100, tc.at, -1)
		switch {
		case tc.wantX < 0 && ok:
			t.Errorf("ray at x=%v at %v: hit the pose at x=%v, want a miss", tc.rayX, tc.at, hit.Pose.Pos.X)
		case tc.wantX >= 0 && (!ok || hit.Pose.Pos.X != tc.wantX):
			t.Errorf("ray at x=%v at %v: hit %v (pose x=%v), want the pose at x=%v", tc.rayX, tc.at, ok, hit.Pose.Pos.X, tc.wantX)
		}
	}
}

// TestRewindNeverExceedsMaxUnlag checks the limit on how far a shot is
// rewound:
//
//	"Never rewind more than max_unlag."
//
// Reference: [source], sv_maxunlag (docs/references.md).
func TestRewindNeverExceedsMaxUnlag(t *testing.T) {
	cases := []struct {
		name        string
		maxUnlag    time.Duration
		rtt, interp time.Duration
		wantMS      float64
	}{
		{"within the default 1 s", 0, 100 * ms, 100 * ms, 200},
		{"beyond a 150 ms max_unlag", 150 * ms, 100 * ms, 100 * ms, 150},
		{"beyond the default 1 s", 0, 600 * ms, 500 * ms, 1000},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := newRig(t, server.Config{MaxUnlag: tc.maxUnlag})
			a := m.join(tc.rtt, tc.interp)
			m.place(a, geom.V(0, -20, 0), 0)
			m.run(time.Second)
			rec := only(t, m.fire(a, geom.V(20, -20, 1)))
			if !rec.Rewound || !near(rec.RewindMS, tc.wantMS, 1e-9) {
				t.Fatalf("rewound %v by %v ms, want %v ms", rec.Rewound, rec.RewindMS, tc.wantMS)
			}
		})
	}
}

// TestServerEstimateWinsBeyondTolerance checks which time a shot is
// tested at:
//
//	"Target time for a shot = the command's view time [...]. The server
//	checks it against its own estimate, now - (measured round-trip time +
//	the client's interpolation delay [...]): if the two differ by more
//	than a tolerance (default 200 ms, as Source uses), the server's
//	estimate wins."
//
// The shooter's round trip is 50 ms and its interpolation delay 100 ms,
// so the estimate is 150 ms back. A view time in the future or at zero is
// not plausible either; a negative one cannot even be sent.
//
// Reference: [source], the command's view time (docs/references.md).
func TestServerEstimateWinsBeyondTolerance(t *testing.T) {
	cases := []struct {
		name   string
		view   func(now time.Duration) time.Duration
		wantMS float64
	}{
		{"honest", func(now time.Duration) time.Duration { return now - 150*ms }, 150},
		{"150 ms older than the estimate", func(now time.Duration) time.Duration { return now - 300*ms }, 300},
		{"100 ms newer than the estimate", func(now time.Duration) time.Duration { return now - 50*ms }, 50},
		{"the present itself", func(now time.Duration) time.Duration { return now }, 0},
		{"210 ms older than the estimate", func(now time.Duration) time.Duration { return now - 360*ms }, 150},
		{"seconds in the past", func(now time.Duration) time.Duration { return now - 3*time.Second }, 150},
		{"1 ms in the future", func(now time.Duration) time.Duration { return now + ms }, 150},
		{"a second in the future", func(now time.Duration) time.Duration { return now + time.Second }, 150},
		{"zero", func(time.Duration) time.Duration { return 0 }, 150},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := newRig(t, server.Config{})
			a := m.join(50*ms, 100*ms)
			m.place(a, geom.V(0, -20, 0), 0)
			m.run(3500 * ms)
			a.view = tc.view
			rec := only(t, m.fire(a, geom.V(20, -20, 1)))
			if !rec.Rewound || !near(rec.RewindMS, tc.wantMS, 1e-9) {
				t.Fatalf("rewound %v by %v ms, want %v ms", rec.Rewound, rec.RewindMS, tc.wantMS)
			}
		})
	}
	cmds := wire.Commands{Cmds: []game.UserCmd{{Tick: 1, ViewTime: -time.Second}}}
	if _, err := wire.AppendCommands(nil, &cmds); err == nil {
		t.Fatal("a negative view time was encoded")
	}
}

// crossing sets up a victim walking across the line of fire at 4 m/s,
// 20 m from a shooter whose shots are rewound 200 ms, and returns the
// shooter and the victim.
func crossing(t *testing.T, cfg server.Config) (m *rig, shooter, victim *player) {
	m = newRig(t, cfg)
	shooter, victim = m.join(100*ms, 100*ms), m.join(0, 100*ms)
	m.place(shooter, geom.V(0, -20, 0), 0)
	m.place(victim, geom.V(20, -24, 0), math.Pi/2)
	m.walk(victim, math.Pi/2, 0)
	m.run(time.Second)
	return m, shooter, victim
}

// TestNoneTestsThePresent checks the policy without compensation against
// the one that rewinds:
//
//	"none: test against the current server state."
//	"tlc (traditional): rewind everyone except the shooter to the target
//	time"
//
// Aimed where the shooter saw a crossing victim 200 ms ago, a shot hits
// under tlc and misses under none; aimed where the victim is now, the
// reverse. Only rewound hits have a rollback distance.
//
// Reference: [alc], no compensation (docs/references.md).
func TestNoneTestsThePresent(t *testing.T) {
	for _, tc := range []struct {
		policy      string
		atPast, hit bool
	}{
		{"none", false, true},
		{"none", true, false},
		{"tlc", true, true},
		{"tlc", false, false},
	} {
		m, a, b := crossing(t, server.Config{Policy: lagcomp.Config{Name: tc.policy}})
		aim := m.part(m.next(b), game.PartTorso)
		if tc.atPast {
			aim = m.part(m.past(b, m.s.NextTick()-200*ms), game.PartTorso)
		}
		rec := only(t, m.fire(a, aim))
		rewound := tc.policy == "tlc"
		if rec.Rewound != rewound || (rec.Victim == b.id) != tc.hit {
			t.Errorf("%s, aimed at the past %v: rewound %v, victim %d; want rewound %v, hit %v", tc.policy, tc.atPast, rec.Rewound, rec.Victim, rewound, tc.hit)
		}
		switch {
		case rec.Hit && rewound && !near(rec.RollbackM, 0.8, 0.01):
			t.Errorf("%s: rollback %.3f m, want 0.8 m (200 ms at 4 m/s)", tc.policy, rec.RollbackM)
		case !rewound && rec.RollbackM != 0:
			t.Errorf("%s: rollback %.3f m without a rewind", tc.policy, rec.RollbackM)
		}
	}
}

// TestTLCRewindsAllButTheShooter checks what tlc moves and what it
// lets stop a shot:
//
//	"tlc (traditional): rewind everyone except the shooter to the target
//	time, trace from the shooter's eye along the aim, first hit wins
//	(world geometry blocks)."
//
// Reference: [alc], traditional lag compensation (docs/references.md).
func TestTLCRewindsAllButTheShooter(t *testing.T) {
	t.Run("the shooter fires from where it is", func(t *testing.T) {
		// Strafing at 4 m/s with 250 ms of lag, the shooter stood 1 m
		// away when the world it saw was current: from there the head
		// shot would miss by a metre.
		m := newRig(t, server.Config{})
		a, b := m.join(150*ms, 100*ms), m.join(0, 100*ms)
		m.place(a, geom.V(0, -20, 0), 0)
		a.cmd.Side = 127
		m.place(b, geom.V(20, -22, 0), math.Pi)
		m.run(time.Second)
		rec := only(t, m.fire(a, m.part(m.state(b), game.PartHead)))
		if rec.Victim != b.id || rec.Part != game.PartHead || !rec.Rewound {
			t.Fatalf("head shot from a strafing shooter: %+v, want a rewound head hit", rec)
		}
	})
	t.Run("the shooter's own body does not stop its shot", func(t *testing.T) {
		p := game.DefaultParams()
		h := lagcomp.NewHistory(time.Second/64, time.Second, 2)
		h.Begin(1)
		shooter := game.PlayerState{Pos: geom.V(0, -20, 0), Flags: game.FlagOnGround}
		h.Set(0, game.PlayerState{Pos: geom.V(20, -20, 0), Flags: game.FlagOnGround})
		h.Set(1, shooter)
		tr := lagcomp.Tracer{History: h, Grid: worldtest.Cover(t).Grid, Params: &p}
		r := geom.Ray{Origin: game.EyePos(shooter, &p), Dir: geom.V(1, 0, 0)}
		if hit, ok := tr.Trace(r, 100, h.TickTime(1), 1); !ok || hit.Victim != 0 {
			t.Fatalf("shot from inside the shooter's head hit %d (%v), want player 0", hit.Victim, ok)
		}
	})
	t.Run("the first hit wins", func(t *testing.T) {
		// The nearer player has the lower slot, so it is tested first and
		// the further one must not replace it.
		m := newRig(t, server.Config{})
		a := m.join(0, 100*ms)
		close, far := m.join(0, 100*ms), m.join(0, 100*ms)
		m.place(a, geom.V(0, -20, 0), 0)
		m.place(far, geom.V(30, -20, 0), math.Pi)
		m.place(close, geom.V(20, -20, 0), math.Pi)
		m.run(500 * ms)
		rec := only(t, m.fire(a, m.part(m.state(far), game.PartTorso)))
		if rec.Victim != close.id {
			t.Fatalf("shot through two players hit %d, want the nearer, %d", rec.Victim, close.id)
		}
	})
	t.Run("team mates do not stop a shot", func(t *testing.T) {
		// Team deathmatch: slots alternate between the teams, so the
		// nearer player is the shooter's team mate.
		m := newRig(t, server.Config{Rules: shooter.Rules(mode.Config{Mode: mode.TDM})})
		a := m.join(0, 100*ms)
		far, close := m.join(0, 100*ms), m.join(0, 100*ms)
		m.place(a, geom.V(0, -20, 0), 0)
		m.place(far, geom.V(30, -20, 0), math.Pi)
		m.place(close, geom.V(20, -20, 0), math.Pi)
		m.run(500 * ms)
		rec := only(t, m.fire(a, m.part(m.state(far), game.PartTorso)))
		if rec.Victim != far.id {
			t.Fatalf("shot past a team mate hit %d, want the enemy behind it, %d", rec.Victim, far.id)
		}
	})
	t.Run("world geometry blocks", func(t *testing.T) {
		m := newRig(t, server.Config{})
		a, b := m.join(0, 100*ms), m.join(0, 100*ms)
		m.place(a, geom.V(0, 1, 0), 0)
		m.place(b, geom.V(20, 1, 0), math.Pi)
		m.run(500 * ms)
		if rec := only(t, m.fire(a, m.part(m.state(b), game.PartHead))); rec.Hit {
			t.Fatalf("shot through the wall hit: %+v", rec)
		}
	})
}

// TestCLCRoundTripCap checks clc's first limit:
//
//	"clc (conditional): like tlc, but only when the shooter is within
//	limits; otherwise test without rewind. Limits: a round-trip cap
//	(e.g. 250 ms, as Battlefield 4 and Overwatch use [...])"
//
// Each shot is aimed where the shooter saw a crossing victim, so it hits
// only if it is rewound.
//
// Reference: [taxonomy], conditional lag compensation (docs/references.md).
func TestCLCRoundTripCap(t *testing.T) {
	cases := []struct {
		name    string
		maxRTT  float64
		rtt     time.Duration
		rewound bool
	}{
		{"below the default cap", 0, 200 * ms, true},
		{"at the default cap", 0, 250 * ms, true},
		{"above the default cap", 0, 300 * ms, false},
		{"above a 100 ms cap", 100, 150 * ms, false},
		{"no cap", -1, 300 * ms, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := newRig(t, server.Config{Policy: lagcomp.Config{Name: "clc", MaxRTTms: tc.maxRTT}})
			a, b := m.join(tc.rtt, 0), m.join(0, 100*ms)
			m.place(a, geom.V(0, -20, 0), 0)
			m.place(b, geom.V(20, -24, 0), math.Pi/2)
			m.walk(b, math.Pi/2, 0)
			m.run(time.Second)
			rec := only(t, m.fire(a, m.part(m.past(b, m.s.NextTick()-tc.rtt), game.PartTorso)))
			if rec.Rewound != tc.rewound || (rec.Victim == b.id) != tc.rewound {
				t.Fatalf("shooter at %v: rewound %v, victim %d; want rewound and hit %v", tc.rtt, rec.Rewound, rec.Victim, tc.rewound)
			}
		})
	}
}

// TestCLCRollbackCap checks clc's second limit:
//
//	"and/or a rollback-distance cap (how far the target would be moved
//	back, as Battlefield's FrameHistoryTime does, with a separate, larger
//	cap for vehicles/fast classes)."
//
// With a 0.5 m cap (0.75 m for victims above 5 m/s), a walker (4 m/s) and
// a sprinter (6.5 m/s) are shot where the shooter saw them 100 or 200 ms
// ago. Beyond the cap the shot is tested against the present instead, in
// which the victim has walked out of the line of fire and a bystander
// further along it, if there is one, stands in the way.
//
// Reference: [taxonomy], conditional lag compensation (docs/references.md).
func TestCLCRollbackCap(t *testing.T) {
	cases := []struct {
		name      string
		sprint    bool
		rewind    time.Duration
		bystander bool
		rewound   bool
	}{
		{"walker rolled back 0.4 m", false, 100 * ms, true, true},
		{"walker rolled back 0.8 m", false, 200 * ms, true, false},
		{"walker rolled back 0.8 m, nobody behind", false, 200 * ms, false, false},
		{"sprinter rolled back 0.65 m", true, 100 * ms, true, true},
		{"sprinter rolled back 1.3 m", true, 200 * ms, true, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := game.DefaultParams()
			p.Sprint = true
			m := newRig(t, server.Config{Movement: &p, Policy: lagcomp.Config{Name: "clc", MaxRollbackM: 0.5}})
			a, b, c := m.join(0, tc.rewind), m.join(0, 100*ms), m.join(0, 100*ms)
			m.place(a, geom.V(0, -20, 0), 0)
			m.place(b, geom.V(20, -26, 0), math.Pi/2)
			var buttons game.Buttons
			if tc.sprint {
				buttons = game.BtnSprint
			}
			m.walk(b, math.Pi/2, buttons)
			m.run(time.Second)
			// The bystander stands on the line of fire 10 m beyond the
			// victim's rewound torso, which hides it from the rewound test.
			eye := game.EyePos(m.state(a), m.cfg.Movement)
			torso := m.part(m.past(b, m.s.NextTick()-tc.rewind), game.PartTorso)
			beyond := torso.Add(torso.Sub(eye).Scale(0.5))
			if tc.bystander {
				m.place(c, geom.V(beyond.X, beyond.Y, 0), math.Pi)
			}
			rec := only(t, m.fire(a, torso))
			want := -1
			switch {
			case tc.rewound:
				want = b.id
			case tc.bystander:
				want = c.id
			}
			if rec.Rewound != tc.rewound || rec.Victim != want || rec.Hit != (want >= 0) {
				t.Fatalf("rewound %v, hit %v %d, rollback %.2f m; want rewound %v, hit %d", rec.Rewound, rec.Hit, rec.Victim, rec.RollbackM, tc.rewound, want)
			}
			if tc.rewound && !near(rec.RollbackM, tc.rewind.Seconds()*m.state(b).Vel.Len(), 0.01) {
				t.Fatalf("rollback %.3f m, want %.3f m", rec.RollbackM, tc.rewind.Seconds()*m.state(b).Vel.Len())
			}
		})
	}
}

// provisional sets up alc's case: a victim with a 20 ms round trip stands
// behind the low cover, head above it, and a shooter with 200 ms of lag
// shoots its head. It returns the victim's provisional hit.
func provisional(t *testing.T, cfg server.Config) (m *rig, shooter, victim *player, hit wire.HitEvent) {
	t.Helper()
	if cfg.Policy.Name == "" {
		cfg.Policy.Name = "alc"
	}
	m = newRig(t, cfg)
	shooter, victim = m.join(100*ms, 100*ms), m.join(20*ms, 100*ms)
	m.place(shooter, geom.V(0, -6, 0), 0)
	m.place(victim, geom.V(11.5, -6, 0), math.Pi)
	m.run(500 * ms)
	if recs := m.fire(shooter, m.part(m.state(victim), game.PartHead)); len(recs) != 0 {
		t.Fatalf("provisional hit settled at once: %+v", recs)
	}
	if len(victim.hits) != 1 || victim.hits[0].Appeal == 0 || victim.hits[0].Part != game.PartHead {
		t.Fatalf("victim received %+v, want one provisional head hit", victim.hits)
	}
	return m, shooter, victim, victim.hits[0]
}

// TestALCLowPingVictimsMayAppeal checks who is asked:
//
//	"alc (advanced): tlc decides a provisional hit. If the victim's RTT is
//	within low_ping (default 50 ms) the victim may appeal [...] Victims
//	above low_ping cannot appeal (their SBC is mostly due to their own
//	lag)."
//
// Reference: [alc], the low-ping threshold (docs/references.md).
func TestALCLowPingVictimsMayAppeal(t *testing.T) {
	for _, tc := range []struct {
		rtt   time.Duration
		asked bool
	}{
		{0, true},
		{50 * ms, true},
		{51 * ms, false},
		{200 * ms, false},
	} {
		m := newRig(t, server.Config{Policy: lagcomp.Config{Name: "alc"}})
		a, b := m.join(100*ms, 100*ms), m.join(tc.rtt, 100*ms)
		m.place(a, geom.V(0, -20, 0), 0)
		m.place(b, geom.V(20, -20, 0), math.Pi)
		m.run(time.Second)
		shotAt := m.s.NextTick()
		recs := m.fire(a, m.part(m.state(b), game.PartTorso))
		if len(b.hits) != 1 {
			t.Fatalf("victim at %v: %d hit events, want 1", tc.rtt, len(b.hits))
		}
		h := b.hits[0]
		if asked := h.Appeal != 0; asked != tc.asked {
			t.Errorf("victim at %v: asked %v, want %v", tc.rtt, asked, tc.asked)
			continue
		}
		if !tc.asked {
			if rec := only(t, recs); rec.Appealed || !rec.Registered || rec.Outcome != wire.OutcomeRegistered {
				t.Errorf("victim at %v: %+v, want registered without appeal", tc.rtt, rec)
			}
			continue
		}
		eye := game.SnapPos(game.EyePos(m.state(a), m.cfg.Movement))
		if len(recs) != 0 || h.Shooter != uint8(a.id) || h.ShooterEye != eye || h.Deadline != shotAt+100*ms {
			t.Errorf("victim at %v: provisional hit %+v (records %+v), want shooter %d, eye %v, deadline %v", tc.rtt, h, recs, a.id, eye, shotAt+100*ms)
		}
	}
}

// TestALCSilenceCountsAsConfirmation checks the appeal's deadline:
//
//	"No answer within 2 x low_ping of dispatch counts as confirm."
//
// Reference: [alc], the appeal timeout (docs/references.md).
func TestALCSilenceCountsAsConfirmation(t *testing.T) {
	for _, lowPing := range []float64{50, 80} {
		m := newRig(t, server.Config{Policy: lagcomp.Config{Name: "alc", LowPingMS: lowPing}})
		a, b := m.join(100*ms, 100*ms), m.join(20*ms, 100*ms)
		m.place(a, geom.V(0, -20, 0), 0)
		m.place(b, geom.V(20, -20, 0), math.Pi)
		m.run(time.Second)
		shotAt := m.s.NextTick()
		m.fire(a, m.part(m.state(b), game.PartTorso))
		timeout := 2 * time.Duration(lowPing) * ms
		for m.s.Time() <= shotAt+timeout {
			if recs := m.take(); len(recs) != 0 {
				t.Fatalf("low_ping %v ms: settled %v after dispatch, before the deadline: %+v", lowPing, m.s.Time()-shotAt, recs)
			}
			m.tick()
		}
		rec := only(t, m.take())
		if rec.Outcome != wire.OutcomeTimeout || !rec.Registered || rec.Time-shotAt > timeout+m.dt {
			t.Fatalf("low_ping %v ms: %+v settled %v after dispatch, want registered on timeout within %v", lowPing, rec, rec.Time-shotAt, timeout+m.dt)
		}
		if h := m.state(b).Health; h != game.MaxHealth-25 {
			t.Errorf("low_ping %v ms: victim's health %d, want 75", lowPing, h)
		}
		if len(a.confirms) != 1 || a.confirms[0].Outcome != wire.OutcomeTimeout || len(b.verdicts) != 1 || b.verdicts[0].Outcome != wire.OutcomeTimeout {
			t.Errorf("low_ping %v ms: shooter told %+v, victim told %+v; want both told of the timeout", lowPing, a.confirms, b.verdicts)
		}
	}
}

// TestALCDenialUpheld checks a denial the server agrees with:
//
//	"Deny: the server re-runs the same detection with the victim's state
//	from that message; if it agrees the hit is discarded [...] and both
//	are told."
//
// The victim ducked behind the low cover before the hit reached it.
//
// Reference: [alc], denial (docs/references.md).
func TestALCDenialUpheld(t *testing.T) {
	m, a, b, hit := provisional(t, server.Config{})
	b.cmd.Buttons |= game.BtnCrouch
	m.tick()
	ducked := m.state(b)
	if !lagcomp.BehindCover(ducked, hit.Part, hit.Local, hit.ShooterEye, m.cfg.Map.Grid, m.cfg.Movement) {
		t.Fatal("the ducked head is not behind the cover: the test proves nothing")
	}
	m.answer(b, wire.Appeal{ID: hit.Appeal, Deny: true, State: ducked})
	m.tick()
	rec := only(t, m.take())
	if rec.Outcome != wire.OutcomeDeniedUpheld || rec.Registered || rec.Damage != 0 || !rec.Appealed {
		t.Fatalf("upheld denial recorded as %+v", rec)
	}
	if h := m.state(b).Health; h != game.MaxHealth {
		t.Errorf("victim's health %d after an upheld denial, want %d", h, game.MaxHealth)
	}
	if len(a.confirms) != 1 || a.confirms[0].Outcome != wire.OutcomeDeniedUpheld || a.confirms[0].Damage != 0 {
		t.Errorf("shooter told %+v, want the upheld denial without damage", a.confirms)
	}
	if len(b.verdicts) != 1 || b.verdicts[0] != (wire.VerdictEvent{Appeal: hit.Appeal, Outcome: wire.OutcomeDeniedUpheld}) {
		t.Errorf("victim told %+v, want the upheld denial", b.verdicts)
	}
}

// TestALCDenialRefuted checks a denial the server disagrees with:
//
//	"if not the hit becomes irrefutable and both are told."
//
// The victim denies while standing in the open, or claims a pose behind
// the cover further away than it can have moved; the hit stands, and a
// second answer changes nothing.
//
// Reference: [alc], denial (docs/references.md).
func TestALCDenialRefuted(t *testing.T) {
	for _, tc := range []struct {
		name  string
		state func(game.PlayerState) game.PlayerState
	}{
		{"standing in the open", func(s game.PlayerState) game.PlayerState { return s }},
		{"ducked 1.5 m from where it is", func(s game.PlayerState) game.PlayerState {
			s.Pos.X += 1.5
			s.Flags |= game.FlagCrouched
			return s
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, a, b, hit := provisional(t, server.Config{})
			m.answer(b, wire.Appeal{ID: hit.Appeal, Deny: true, State: tc.state(m.state(b))})
			m.answer(b, wire.Appeal{ID: hit.Appeal, Deny: false, State: m.state(b)})
			m.tick()
			rec := only(t, m.take())
			if rec.Outcome != wire.OutcomeDeniedRefuted || !rec.Registered || rec.Damage != 50 {
				t.Fatalf("refuted denial recorded as %+v", rec)
			}
			info, _ := m.s.Client(b.id)
			if info.State.Health != game.MaxHealth-50 || info.Refuted != 1 || info.AppealsIgnored != 1 {
				t.Errorf("victim: health %d, refuted %d, ignored %d; want 50, 1, 1 (the second answer)", info.State.Health, info.Refuted, info.AppealsIgnored)
			}
			if len(a.confirms) != 1 || a.confirms[0].Outcome != wire.OutcomeDeniedRefuted || a.confirms[0].Damage != 50 {
				t.Errorf("shooter told %+v, want the refuted denial with 50 damage", a.confirms)
			}
			if len(b.verdicts) != 1 || b.verdicts[0].Outcome != wire.OutcomeDeniedRefuted {
				t.Errorf("victim told %+v, want the refuted denial", b.verdicts)
			}
		})
	}
}

// TestSBCDetectionUsesTheBodyPart checks SBC detection on poses whose
// origin has not moved:
//
//	"take the hit body part's pose now [...], transform the stored impact
//	offset by the part's current rotation and add it to the part's
//	current position; trace from that point to the shooter's eye [...].
//	Using the part (not the actor origin) matters: turning a turret or
//	ducking a head behind cover must be caught even when the actor did
//	not move."
//
// Reference: [alc], SBC detection (docs/references.md).
func TestSBCDetectionUsesTheBodyPart(t *testing.T) {
	g := worldtest.Cover(t).Grid
	p := game.DefaultParams()
	// hit returns the hit of a shot from eye at part k of a player in st.
	hit := func(st game.PlayerState, k game.PartKind, eye geom.Vec3) lagcomp.Hit {
		r := geom.Ray{Origin: eye, Dir: game.Hitboxes(st, &p)[k].Origin.Sub(eye).Norm()}
		h, ok := lagcomp.TraceParts(r, 100, st, &p)
		if !ok || h.Part != k {
			t.Fatalf("shot at the %v hit %v (%v)", k, h.Part, ok)
		}
		return h
	}
	t.Run("a head ducked behind low cover", func(t *testing.T) {
		eye := geom.V(0, -6, 1.65)
		standing := game.PlayerState{Pos: geom.V(11.5, -6, 0), Yaw: game.YawUnits(math.Pi), Flags: game.FlagOnGround}
		h := hit(standing, game.PartHead, eye)
		ducked := standing
		ducked.Flags |= game.FlagCrouched
		if lagcomp.BehindCover(standing, h.Part, h.Local, eye, g, &p) {
			t.Error("the standing head is behind cover")
		}
		if !lagcomp.BehindCover(ducked, h.Part, h.Local, eye, g, &p) {
			t.Error("the ducked head is not behind cover")
		}
		if g.SegmentBlocked(h.Point, eye) {
			t.Error("the impact point itself is blocked: a test by the actor's origin would catch this too")
		}
	})
	t.Run("a body turned behind a wall's edge", func(t *testing.T) {
		// The wall's edge hides y above about 0.28 m at x = 12 from this
		// eye; the victim's axis stands at 0.2 m, and a quarter turn
		// swings the impact point on its torso 0.2 m towards the wall.
		eye := geom.V(0, -2, 1.65)
		facing := game.PlayerState{Pos: geom.V(12, 0.2, 0), Yaw: game.YawUnits(math.Pi + math.Atan2(2.2, 12)), Flags: game.FlagOnGround}
		h := hit(facing, game.PartTorso, eye)
		turned := facing
		turned.Yaw -= game.AngleUnits / 4
		if lagcomp.BehindCover(facing, h.Part, h.Local, eye, g, &p) {
			t.Error("the torso facing the shooter is behind cover")
		}
		if !lagcomp.BehindCover(turned, h.Part, h.Local, eye, g, &p) {
			t.Error("the turned torso is not behind cover")
		}
		if g.SegmentBlocked(game.Hitboxes(turned, &p)[game.PartTorso].Origin, eye) {
			t.Error("the torso's centre is blocked: a test without the impact offset would catch this too")
		}
	})
}

// TestSBCOnlyWorldGeometryBlocks checks what counts as cover:
//
//	"If anything other than the two players blocks the segment, the hit
//	is SBC."
//
// The victim turned its back after the hit, so the segment from the
// impact point to the shooter's eye crosses its own torso, and a
// bystander stands in between: neither is cover.
//
// Reference: [alc], SBC detection (docs/references.md).
func TestSBCOnlyWorldGeometryBlocks(t *testing.T) {
	g := worldtest.Cover(t).Grid
	p := game.DefaultParams()
	eye := geom.V(0, -20, 1.65)
	victim := game.PlayerState{Pos: geom.V(20, -20, 0), Yaw: game.YawUnits(math.Pi), Flags: game.FlagOnGround}
	r := geom.Ray{Origin: eye, Dir: game.Hitboxes(victim, &p)[game.PartTorso].Origin.Sub(eye).Norm()}
	h, ok := lagcomp.TraceParts(r, 100, victim, &p)
	if !ok {
		t.Fatal("the shot missed")
	}
	turned := victim
	turned.Yaw = 0
	point := game.Hitboxes(turned, &p)[h.Part].ToWorld(h.Local)
	seg := geom.Ray{Origin: point, Dir: eye.Sub(point).Norm()}
	bystander := game.PlayerState{Pos: geom.V(10, -20, 0), Flags: game.FlagOnGround}
	for _, st := range []game.PlayerState{turned, bystander} {
		if _, ok := lagcomp.TraceParts(seg, eye.Dist(point), st, &p); !ok {
			t.Fatalf("the segment misses the player at %v: the test proves nothing", st.Pos)
		}
	}
	if lagcomp.BehindCover(turned, h.Part, h.Local, eye, g, &p) {
		t.Fatal("players count as cover")
	}
}

// TestALCPredictDiscardsHitsSoonBehindCover checks the policy without an
// appeal round trip:
//
//	"alc-predict (no appeal round trip): on a provisional hit the server
//	extrapolates where the victim will be when the hit reaches them
//	(victim's one-way latency ahead) and runs SBC detection on that; its
//	decision is final."
//
// A victim with a 50 ms round trip walks along x = 12 past the wall's
// edge, and is shot where the shooter saw it 100 ms ago. Just before
// reaching cover its current pose is still exposed, but where it will
// be is not: the hit is discarded. Walking out of cover, or too laggy to
// be judged, it is hit.
//
// Reference: [alc], advanced lag compensation without the appeal round trip (docs/references.md).
func TestALCPredictDiscardsHitsSoonBehindCover(t *testing.T) {
	cases := []struct {
		name    string
		rtt     time.Duration
		towards bool
		outcome wire.Outcome
	}{
		{"walking into cover", 50 * ms, true, wire.OutcomeDiscarded},
		{"walking out of cover", 50 * ms, false, wire.OutcomeRegistered},
		{"walking into cover at 80 ms", 80 * ms, true, wire.OutcomeRegistered},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := newRig(t, server.Config{Policy: lagcomp.Config{Name: "alc-predict"}})
			a, b := m.join(0, 100*ms), m.join(tc.rtt, 100*ms)
			m.place(a, geom.V(0, -2, 0), 0)
			yaw, from := math.Pi/2, -3.0
			if !tc.towards {
				yaw, from = -math.Pi/2, 2
			}
			m.place(b, geom.V(12, from, 0), yaw)
			m.walk(b, yaw, 0)
			m.run(500 * ms)
			// Fire as the victim's torso is 0.15 to 0.21 m from the edge's
			// shadow (about 0.28 m), going in; or 0.48 to 0.54 m out of
			// it, going out.
			for y := m.next(b).Pos.Y; tc.towards && y < 0.15 || !tc.towards && y > -0.2; y = m.next(b).Pos.Y {
				m.tick()
			}
			torso := m.part(m.past(b, m.s.NextTick()-100*ms), game.PartTorso)
			rec := only(t, m.fire(a, torso))
			if rec.Victim != b.id || rec.Outcome != tc.outcome {
				t.Fatalf("victim %d, outcome %v; want %d, %v", rec.Victim, rec.Outcome, b.id, tc.outcome)
			}
			if tc.outcome == wire.OutcomeDiscarded {
				eye := game.EyePos(m.state(a), m.cfg.Movement)
				shot := geom.Ray{Origin: eye, Dir: torso.Sub(eye).Norm()}
				h, _ := lagcomp.TraceParts(shot, 100, m.past(b, rec.Time-100*ms), m.cfg.Movement)
				if lagcomp.BehindCover(m.state(b), h.Part, h.Local, eye, m.cfg.Map.Grid, m.cfg.Movement) {
					t.Fatal("the victim's current pose is already behind cover: the prediction was not needed")
				}
				if rec.Registered || m.state(b).Health != game.MaxHealth || len(a.confirms) != 1 || a.confirms[0].Outcome != wire.OutcomeDiscarded {
					t.Fatalf("discarded hit: registered %v, victim's health %d, shooter told %+v", rec.Registered, m.state(b).Health, a.confirms)
				}
			}
		})
	}
}

// TestDeadAndProtectedPlayers checks who may shoot and who may be hit:
//
//	"The shooter must be alive at the time of the shot on the server (no
//	kill trading through lag), and a dead target cannot be hit."
//	"spawn protection (invulnerable for 5 s, visible to all)" (section 2)
//
// Reference: [source], hit registration (docs/references.md).
func TestDeadAndProtectedPlayers(t *testing.T) {
	m := newRig(t, server.Config{})
	a, b := m.join(0, 100*ms), m.join(0, 100*ms)
	c := m.join(100*ms, 100*ms)
	m.place(a, geom.V(0, -20, 0), 0)
	m.place(b, geom.V(20, -20, 0), math.Pi)
	m.place(c, geom.V(0, -30, 0), 0)
	m.run(500 * ms)
	// Each takes a head shot (50 of 100 health).
	m.fire(a, m.part(m.state(b), game.PartHead))
	m.run(100 * ms)
	m.fire(b, m.part(m.state(a), game.PartHead))
	m.run(100 * ms)
	shotsB := func() int { info, _ := m.s.Client(b.id); return info.Shots }
	before := shotsB()

	// Both fire in the same tick; a's shot resolves first and kills b.
	m.aim(a, m.part(m.state(b), game.PartHead))
	m.aim(b, m.part(m.state(a), game.PartHead))
	a.cmd.Buttons, b.cmd.Buttons = game.BtnFire, game.BtnFire
	m.tick()
	a.cmd.Buttons, b.cmd.Buttons = 0, 0
	rec := only(t, m.take())
	if rec.Shooter != a.id || !rec.Kill || m.state(a).Health != game.MaxHealth-50 || shotsB() != before {
		t.Fatalf("simultaneous kill shots: %+v, a's health %d, b's shots %d -> %d; want only a's shot, a kill", rec, m.state(a).Health, before, shotsB())
	}
	t.Run("a dead shooter cannot fire", func(t *testing.T) {
		m.run(100 * ms)
		if recs := m.fire(b, m.part(m.state(a), game.PartHead)); len(recs) != 0 || shotsB() != before {
			t.Fatalf("dead shooter fired: %+v", recs)
		}
	})
	t.Run("a dead target cannot be hit, even where it was alive", func(t *testing.T) {
		alive := m.part(m.past(b, m.s.NextTick()-200*ms-100*ms), game.PartTorso)
		if rec := only(t, m.fire(c, alive)); rec.Victim == b.id {
			t.Fatalf("dead target hit: %+v", rec)
		}
	})
	t.Run("a spawn-protected target cannot be hit", func(t *testing.T) {
		for m.state(b).Has(game.FlagDead) {
			m.tick()
		}
		m.run(100 * ms)
		if rec := only(t, m.fire(c, m.part(m.state(b), game.PartTorso))); rec.Hit {
			t.Fatalf("protected target hit: %+v", rec)
		}
		for m.state(b).Has(game.FlagProtected) {
			m.tick()
		}
		m.run(200 * ms)
		if rec := only(t, m.fire(c, m.part(m.state(b), game.PartTorso))); rec.Victim != b.id {
			t.Fatalf("target out of protection missed: %+v", rec)
		}
	})
}

// TestRollbackIsRecordedAndBounded checks the rollback distance:
//
//	"Rollback distance (distance between the victim's rewound and current
//	positions) is recorded for every rewound hit."
//	"Maximum possible rollback = RTT x speed (250 ms at 4 m/s is 1.0 m)"
//
// Shooters with round trips from 50 to 250 ms and no interpolation delay
// hit a victim walking at 4 m/s; one more has a 100 ms interpolation
// delay, which the rewind (and so the bound) includes.
//
// Reference: [alc], rollback distance (docs/references.md).
func TestRollbackIsRecordedAndBounded(t *testing.T) {
	w := laser()
	w.Damage = [game.NumParts]int16{1, 1, 1, 1}
	m := newRig(t, server.Config{}, *w)
	v := m.join(0, 100*ms)
	m.place(v, geom.V(20, -34, 0), math.Pi/2)
	m.walk(v, math.Pi/2, 0)
	var shooters []*player
	for i, rtt := range []time.Duration{50 * ms, 100 * ms, 150 * ms, 200 * ms, 250 * ms, 150 * ms} {
		interp := time.Duration(0)
		if i == 5 {
			interp = 100 * ms
		}
		s := m.join(rtt, interp)
		m.place(s, geom.V(0, -36-2*float64(i), 0), 0)
		shooters = append(shooters, s)
	}
	m.run(time.Second)
	speed := m.cfg.Movement.WalkSpeed
	for _, s := range shooters {
		rewind := s.rtt + s.interp
		rec := only(t, m.fire(s, m.part(m.past(v, m.s.NextTick()-rewind), game.PartTorso)))
		bound := rewind.Seconds() * speed
		if rec.Victim != v.id || !rec.Rewound || !near(rec.RewindMS, float64(rewind/ms), 1e-9) {
			t.Fatalf("shooter at %v+%v: %+v, want a hit rewound %v", s.rtt, s.interp, rec, rewind)
		}
		if rec.RollbackM > bound+0.01 || rec.RollbackM < bound-0.05 {
			t.Errorf("shooter at %v+%v: rollback %.3f m, want just under %.3f m", s.rtt, s.interp, rec.RollbackM, bound)
		}
	}
}
