package server

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lagkit/lagkit/delay"
	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/internal/rtt"
	"github.com/lagkit/lagkit/lagcomp"
	"github.com/lagkit/lagkit/shooter/mode"
	"github.com/lagkit/lagkit/shooter/weapon"
	"github.com/lagkit/lagkit/timewarp"
	"github.com/lagkit/lagkit/wire"
	"github.com/lagkit/lagkit/world/worldtest"
)

// warpConfig is a time warp server's config: policy none, team
// deathmatch, a rifle and a pistol.
func warpConfig() Config {
	w := weapon.Defaults()
	return armed(Config{
		TimeWarp: 500 * time.Millisecond, Policy: lagcomp.Config{Name: "none"},
		Rules: modeRules(mode.Config{Mode: mode.TDM}),
	}, w[0], w[2])
}

// warpActor is a scripted player: where it starts, and its command for
// each of its ticks (open loop, so that every run gets the same inputs).
type warpActor struct {
	pos    geom.Vec3
	yaw    float64
	script func(n uint32) game.UserCmd
	// late is how many ticks after issue its commands reach the server,
	// which measures that latency.
	late uint32
}

// warpScene runs actors, joined in order, for ticks 1 to last of their
// scripts, then idles until tick end.
type warpScene struct {
	t     *testing.T
	s     *Server
	ids   []int
	log   []LogEntry   // what the server logged over the scene
	shots []ShotRecord // and the records of its shots
}

// warpExhaustive, set, makes newWarpScene's server judge every shot and
// projectile one by one (timewarp.Warp.Exhaustive).
var warpExhaustive bool

func newWarpScene(t *testing.T, cfg Config, actors []warpActor, last, end uint32) *warpScene {
	t.Helper()
	cfg.Map = worldtest.Open(t)
	s, err := New(armed(cfg))
	if err != nil {
		t.Fatal(err)
	}
	if s.warp != nil {
		s.warp.d.Exhaustive = warpExhaustive
	}
	sc := &warpScene{t: t, s: s}
	for i, a := range actors {
		id := join(t, s, 0, Peer(i))
		s.Place(id, a.pos, a.yaw)
		setLatency(s, id, a.late)
		sc.ids = append(sc.ids, id)
	}
	s.Ready()
	for n := uint32(1); n <= end; n++ {
		now := s.NextTick()
		for i, a := range actors {
			if m := n - min(n, a.late); m >= 1 && m <= last {
				cmd := a.script(m)
				cmd.Tick, cmd.Duration = m, s.TickDuration()
				sendCmds(t, s, now-time.Microsecond, Peer(i), []game.UserCmd{cmd})
			}
		}
		rd := s.Advance(now)
		sc.log = append(sc.log, rd.Log...)
		sc.shots = append(sc.shots, rd.Shots...)
	}
	return sc
}

// setLatency makes the server measure a round trip of twice ticks.
func setLatency(s *Server, id int, ticks uint32) {
	s.clients[id].rtt = rtt.Estimator{}
	s.clients[id].rtt.Add(2 * time.Duration(ticks) * s.TickDuration())
}

// aim returns the view angles from a standing eye at from to the point at
// height z above to.
func aim(from, to geom.Vec3, z float64) (uint16, int16) {
	d := to.Sub(from)
	eye := game.DefaultParams().EyeHeight
	return game.YawUnits(math.Atan2(d.Y, d.X)), game.PitchUnits(math.Atan2(z-eye, math.Hypot(d.X, d.Y)))
}

// duelActors is the exactness scene: victim V walks to and fro on the X
// axis and jumps; O shoots at it once with the rifle from -X, but W steps
// into the line of fire just before and takes the shot; L1 walks and
// shoots V once with the rifle from +X; L2 draws the pistol, walks, and
// fires two projectiles at V through L1 (a team mate); D stands far off.
// L1, L2 and W are the players whose commands may be late. Every hit
// lands on the torso or legs, so nobody dies.
func duelActors(late, stepIn uint32) []warpActor {
	v := geom.V(0, 0, 0)
	o, l1, l2 := geom.V(-10, 0, 0), geom.V(10, 0, 0), geom.V(14, 0, 0)
	oYaw, oPitch := aim(o, v, 0.9)
	l1Yaw, l1Pitch := aim(l1, v, 0.9)
	l2Yaw, l2Pitch := aim(l2, v, 1.0)
	to := func(n uint32, period uint32) int8 {
		if (n/period)%2 == 0 {
			return 127
		}
		return -127
	}
	return []warpActor{
		{pos: o, script: func(n uint32) game.UserCmd { // O, team 0
			c := game.UserCmd{Yaw: oYaw, Pitch: oPitch}
			if n == 100 {
				c.Buttons = game.BtnFire
			}
			return c
		}},
		{pos: v, script: func(n uint32) game.UserCmd { // V, team 1
			c := game.UserCmd{Forward: to(n, 16)}
			if n == 60 {
				c.Buttons = game.BtnJump
			}
			return c
		}},
		{pos: l1, yaw: math.Pi, late: late, script: func(n uint32) game.UserCmd { // L1, team 0
			c := game.UserCmd{Yaw: l1Yaw, Pitch: l1Pitch, Forward: to(n, 24) / 2}
			if n == 104 {
				c.Buttons = game.BtnFire
			}
			return c
		}},
		{pos: geom.V(0, 40, 0), script: func(uint32) game.UserCmd { return game.UserCmd{} }}, // D, team 1
		{pos: l2, yaw: math.Pi, late: late, script: func(n uint32) game.UserCmd { // L2, team 0
			c := game.UserCmd{Yaw: l2Yaw, Pitch: l2Pitch, Weapon: 1, Forward: -to(n, 20) / 2}
			if n == 110 || n == 148 {
				c.Buttons = game.BtnFire
			}
			return c
		}},
		{pos: geom.V(-5, 3, 0), late: late, script: func(n uint32) game.UserCmd { // W, team 1
			c := game.UserCmd{Yaw: game.YawUnits(-math.Pi / 2)}
			if n >= 50 && n < stepIn {
				c.Forward = 127
			}
			return c
		}},
	}
}

// snapshotOf is what exactness compares: every player's state and
// counters, and the projectiles in flight (by everything but their ids,
// which label launches in the order the server met them).
type snapshotOf struct {
	players     []ClientInfo
	projectiles []Projectile
}

func snap(s *Server) snapshotOf {
	var out snapshotOf
	for id := range s.MaxClients() {
		if info, ok := s.Client(id); ok {
			info.RTT = 0
			out.players = append(out.players, info)
		}
	}
	for _, p := range s.Projectiles(nil) {
		p.ID = 0
		out.projectiles = append(out.projectiles, p)
	}
	return out
}

func compare(t *testing.T, what string, got, want snapshotOf) {
	t.Helper()
	if len(got.players) != len(want.players) || len(got.projectiles) != len(want.projectiles) {
		t.Fatalf("%s: %d players, %d projectiles; want %d, %d", what, len(got.players), len(got.projectiles), len(want.players), len(want.projectiles))
	}
	for i := range got.players {
		g, w := got.players[i], want.players[i]
		g.BytesSent, g.PacketsSent, g.Snapshots, g.SnapshotBytes = w.BytesSent, w.PacketsSent, w.Snapshots, w.SnapshotBytes
		if g.State != w.State {
			t.Errorf("%s: player %d state\n got %+v\nwant %+v", what, g.ID, g.State, w.State)
		}
		if g.Shots != w.Shots || g.Hits != w.Hits || g.HitsTaken != w.HitsTaken || g.Kills != w.Kills || g.Deaths != w.Deaths || g.LastCmd != w.LastCmd {
			t.Errorf("%s: player %d counters\n got %+v\nwant %+v", what, g.ID, g, w)
		}
	}
	for i := range got.projectiles {
		if got.projectiles[i] != want.projectiles[i] {
			t.Errorf("%s: projectile %d\n got %+v\nwant %+v", what, i, got.projectiles[i], want.projectiles[i])
		}
	}
}

// wStops is the tick W stops on O's line of fire.
const wStops = 96

// TestResimulateReproducesTheRecord: re-running the window with the
// inputs it ran with changes nothing, for any player and depth.
func TestResimulateReproducesTheRecord(t *testing.T) {
	sc := newWarpScene(t, warpConfig(), duelActors(8, wStops), 150, 158)
	want := snap(sc.s)
	hash := sc.s.StateHash()
	for _, id := range sc.ids {
		for _, depth := range []int{1, 5, 32, 100} {
			n, err := sc.s.Resimulate(id, depth)
			if err != nil || n != min(depth, 32) {
				t.Fatalf("Resimulate(%d, %d) = %d, %v", id, depth, n, err)
			}
			compare(t, "resimulated", snap(sc.s), want)
		}
	}
	if recs := sc.s.Ready().Shots; len(recs) != 0 || sc.s.StateHash() != hash {
		t.Fatalf("re-simulating the record made %d records or changed the state", len(recs))
	}
	if _, err := sc.s.Resimulate(63, 5); err == nil {
		t.Fatal("Resimulate of an empty slot: no error")
	}
}

// TestAnnouncedDeathStays: a death already announced is a committed fact.
// O kills V with four shots in 20 ticks; V's commands reach the server 30
// ticks late, and had walked it out of O's line of fire after the first
// shot, but the
// re-simulation does not revive it: V stays dead, died once, and O keeps
// the kill and its hits.
func TestAnnouncedDeathStays(t *testing.T) {
	o, v := geom.V(-10, 0, 0), geom.V(0, 0, 0)
	yaw, pitch := aim(o, v, 1.0)
	actors := []warpActor{
		{pos: o, script: func(n uint32) game.UserCmd {
			return game.UserCmd{Yaw: yaw, Pitch: pitch, Buttons: game.BtnFire}
		}},
		{pos: v, late: 30, script: func(n uint32) game.UserCmd {
			if n < 2 {
				return game.UserCmd{}
			}
			return game.UserCmd{Side: 127} // out of the line of fire at once
		}},
	}
	sc := newWarpScene(t, warpConfig(), actors, 60, 80)
	killer, _ := sc.s.Client(sc.ids[0])
	victim, _ := sc.s.Client(sc.ids[1])
	kills := 0
	for _, e := range sc.log {
		if e.Kind == "kill" {
			kills++
		}
	}
	if !victim.State.Has(game.FlagDead) || victim.Deaths != 1 || killer.Kills != 1 || kills != 1 {
		t.Fatalf("victim dead %v, deaths %d; killer kills %d; %d kills logged: want dead, 1, 1, 1",
			victim.State.Has(game.FlagDead), victim.Deaths, killer.Kills, kills)
	}
	if killer.Hits < 4 {
		t.Fatalf("killer's hits %d: the hits that killed were taken back", killer.Hits)
	}
	if d := math.Abs(victim.State.Pos.Y); d < 1 {
		t.Fatalf("victim at %v: its late commands were not re-simulated", victim.State.Pos)
	}
}

// TestStaleCommandFlood: commands beyond the window run at the next tick,
// as without time warp (the documented rule), and a flood of them moves
// the player no further than the movement rules allow, grows no memory
// and panics nowhere.
func TestStaleCommandFlood(t *testing.T) {
	cfg := warpConfig()
	cfg.Map = worldtest.Open(t)
	cfg.Limits.OutOfWindow = 1 << 20 // the flood must be harmless without it
	s, err := New(armed(cfg))
	if err != nil {
		t.Fatal(err)
	}
	id := join(t, s, 0, 1)
	start, _ := s.Client(id)
	s.clients[id].rtt.Add(10 * time.Second) // far beyond the window
	ring, pend := s.warp.d.Ring.Len(), s.cfg.CmdQueue
	next := uint32(1)
	const ticks = 640
	for range ticks {
		now := s.NextTick()
		cmds := make([]game.UserCmd, wire.MaxCmdsPerPacket)
		for i := range cmds {
			cmds[i] = game.UserCmd{Tick: next, Duration: 250 * time.Millisecond, Forward: 127}
			next++
		}
		sendCmds(t, s, now-time.Microsecond, 1, cmds)
		s.Advance(now)
	}
	end, _ := s.Client(id)
	st := s.TimeWarpStats()
	if st.TooOld == 0 || st.Warps != 0 || end.CmdsDropped == 0 {
		t.Fatalf("stats %+v, dropped %d: want stale commands applied now, none warped, the flood dropped", st, end.CmdsDropped)
	}
	limit := game.DefaultParams().WalkSpeed * (s.Time() + s.cfg.MoveSlack).Seconds()
	if d := end.State.Pos.Sub(start.State.Pos).Len(); d > limit {
		t.Fatalf("moved %.2f m in %v, limit %.2f m", d, s.Time(), limit)
	}
	if s.warp.d.Ring.Len() != ring || s.warp.d.Schedule(id, s.clients[id]).Size() != pend {
		t.Fatal("time warp storage grew")
	}
	for k := range uint32(ring) {
		if e, _ := s.warp.entry(s.tick - k); cap(e.Lists.shots) > 8 {
			t.Fatalf("tick %d's record holds room for %d shots", e.Tick, cap(e.Lists.shots))
		}
	}
}

// TestEffectiveTick: a command's effective tick is its arrival tick less
// the measured one-way latency in ticks, rounded; commands stay one a
// tick, in order; one still ahead waits for its tick.
func TestEffectiveTick(t *testing.T) {
	cfg := warpConfig()
	cfg.Map = worldtest.Open(t)
	s, err := New(armed(cfg))
	if err != nil {
		t.Fatal(err)
	}
	id := join(t, s, 0, 1)
	for range 40 {
		s.Advance(s.NextTick())
	}
	// 100 ms round trip at 64 Hz: 50 ms one way is 3.2 ticks, so 3.
	s.clients[id].rtt = rtt.Estimator{}
	s.clients[id].rtt.Add(100 * time.Millisecond)
	sendCmds(t, s, s.NextTick()-time.Microsecond, 1, []game.UserCmd{{Tick: 1, Duration: s.TickDuration()}})
	sl := s.warp.d.Schedule(id, s.clients[id])
	if got, want := sl.At(0).Tick, s.Tick()+1-3; got != want {
		t.Fatalf("effective tick %d, want %d (arrival %d less 3)", got, want, s.Tick()+1)
	}
	// A burst of commands arriving together: the first at the estimate,
	// the next sharing its tick while the client has catch-up credit,
	// never more than two a tick, never before the previous.
	burst := make([]game.UserCmd, 8)
	for i := range burst {
		burst[i] = game.UserCmd{Tick: uint32(i + 2), Duration: s.TickDuration()}
	}
	sendCmds(t, s, s.NextTick()-time.Microsecond, 1, burst)
	prev, count := uint32(0), map[uint32]int{}
	for k := range sl.Len() {
		e := sl.At(k).Tick
		if e < prev {
			t.Fatalf("command %d at tick %d before its predecessor's %d", k, e, prev)
		}
		prev = e
		if count[e]++; count[e] > timewarp.CmdsPerTick {
			t.Fatalf("%d commands at tick %d", count[e], e)
		}
	}
	if prev <= s.Tick()+1 {
		t.Fatalf("the burst's last command at tick %d: the burst used more catch-up than the credit", prev)
	}
	// Those ahead wait: after the next tick, only the due ones ran.
	s.Advance(s.NextTick())
	info, _ := s.Client(id)
	if info.LastCmd == 9 || sl.Len() == 0 {
		t.Fatalf("commands ahead of their tick ran early: last %d, %d waiting", info.LastCmd, sl.Len())
	}
}

func TestTimeWarpConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*Config)
		want string
	}{
		{"negative", func(c *Config) { c.TimeWarp = -time.Millisecond }, "outside"},
		{"too long", func(c *Config) { c.TimeWarp = 2 * time.Second; c.MaxUnlag = 3 * time.Second }, "outside"},
		{"beyond max unlag", func(c *Config) { c.MaxUnlag = 200 * time.Millisecond }, "max unlag"},
		{"respawn within the window", func(c *Config) { c.RespawnDelay = 400 * time.Millisecond }, "respawn"},
		{"rewinding policy", func(c *Config) { c.Policy.Name = "tlc" }, "never rewinds"},
		{"appealing policy", func(c *Config) { c.Policy.Name = "alc" }, "never rewinds"},
		{"default policy", func(c *Config) { c.Policy.Name = "" }, "never rewinds"},
		{"objective mode", func(c *Config) { c.Map, c.Rules = metro(t), modeRules(mode.Config{Mode: mode.CTF}) }, "ffa and tdm"},
		{"with time delay", func(c *Config) { c.Delay.Mode = delay.Regular }, "time warp"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := warpConfig()
			cfg.Map = worldtest.Open(t)
			tc.edit(&cfg)
			if _, err := New(armed(cfg)); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
	for _, m := range []mode.Kind{mode.FFA, mode.TDM, ""} {
		cfg := warpConfig()
		cfg.Map = worldtest.Open(t)
		cfg.Rules = modeRules(mode.Config{Mode: m})
		if _, err := New(armed(cfg)); err != nil {
			t.Fatalf("mode %q: %v", m, err)
		}
	}
}

// TestPlacementStandsThroughWarps: a state the server sets between ticks
// (a placement) is a fact: the warp of a late command that arrives with
// it does not put the player back where the past had it.
func TestPlacementStandsThroughWarps(t *testing.T) {
	walker := []warpActor{{pos: geom.V(0, 0, 0), late: 4, script: func(uint32) game.UserCmd {
		return game.UserCmd{Forward: 127}
	}}}
	sc := newWarpScene(t, warpConfig(), walker, 40, 20)
	s, id := sc.s, sc.ids[0]
	s.Place(id, geom.V(30, 30, 0), 0)
	now := s.NextTick()
	sendCmds(t, s, now-time.Microsecond, 0, []game.UserCmd{{Tick: 17, Duration: s.TickDuration(), Forward: 127}})
	s.Advance(now)
	info, _ := s.Client(id)
	if d := info.State.Pos.Dist(geom.V(30, 30, 0)); d > 0.1 || s.TimeWarpStats().Warps == 0 {
		t.Fatalf("placed at (30, 30), now at %v after %d warps", info.State.Pos, s.TimeWarpStats().Warps)
	}
}

// TestDeferredShotStaysWhenItsShooterIsStepped: under time warp of
// hitscan shots only, a shot inserted at its issue tick stays there, once,
// when a later warp steps its shooter again: A's rifle shot at T, fired
// at tick 40 and 8 ticks late, is inserted at 40; B's shot at A, fired at
// tick 36 and 14 ticks late, is inserted at 36 after it, so the warp
// re-runs A from 37, through A's shot at 40 and through tick 48, where
// A's command that fired it ran. A fires once and hits once; so does B;
// and judging every shot one by one gives the same.
func TestDeferredShotStaysWhenItsShooterIsStepped(t *testing.T) {
	a, tg, b := geom.V(-10, 0, 0), geom.V(0, 0, 0), geom.V(0, 10, 0)
	aYaw, aPitch := aim(a, tg, 1.0)
	bYaw, bPitch := aim(b, a, 1.0)
	fireAt := func(yaw uint16, pitch int16, n uint32) func(uint32) game.UserCmd {
		return func(m uint32) game.UserCmd {
			c := game.UserCmd{Yaw: yaw, Pitch: pitch}
			if m == n {
				c.Buttons = game.BtnFire
			}
			return c
		}
	}
	idle := func(uint32) game.UserCmd { return game.UserCmd{} }
	actors := []warpActor{
		{pos: a, late: 8, script: fireAt(aYaw, aPitch, 40)},  // A, team 0
		{pos: tg, script: idle},                              // T, team 1
		{pos: geom.V(0, 40, 0), script: idle},                // D, team 0
		{pos: b, late: 14, script: fireAt(bYaw, bPitch, 36)}, // B, team 1
	}
	var hashes []string
	for _, exhaustive := range []bool{true, false} {
		cfg := warpConfig()
		cfg.TimeWarpHitscanOnly = true
		warpExhaustive = exhaustive
		sc := newWarpScene(t, cfg, actors, 60, 80)
		warpExhaustive = false
		s := sc.s
		if st := s.TimeWarpStats(); st.Late != 2 || st.Warps != 2 || st.MaxDepth < 14 {
			t.Fatalf("warps %+v: want A's and B's shots inserted by two warps, B's 14 deep", st)
		}
		ca, _ := s.Client(sc.ids[0])
		ct, _ := s.Client(sc.ids[1])
		cb, _ := s.Client(sc.ids[3])
		if ca.Shots != 1 || ca.Hits != 1 || ca.HitsTaken != 1 || ct.HitsTaken != 1 || cb.Shots != 1 || cb.Hits != 1 {
			t.Fatalf("A fired %d, hit %d, was hit %d times; T was hit %d times; B fired %d, hit %d: want one each",
				ca.Shots, ca.Hits, ca.HitsTaken, ct.HitsTaken, cb.Shots, cb.Hits)
		}
		hashes = append(hashes, s.StateHash())
	}
	if hashes[0] != hashes[1] {
		t.Errorf("state digest %s judging every shot, %s pruned", hashes[0], hashes[1])
	}
}

// TestKeepDeferred: a stepped player's deferred shots join the shots its
// commands fired again in command order.
func TestKeepDeferred(t *testing.T) {
	shot := func(shooter int, tick uint32, deferred bool) warpShot {
		return warpShot{pendingShot: pendingShot{shooter: shooter, cmd: game.UserCmd{Tick: tick}}, deferred: deferred}
	}
	r := &warpRun{out: &warpLists{shots: []warpShot{shot(0, 9, false), shot(1, 3, false), shot(1, 7, false)}}}
	r.keepDeferred([]warpShot{shot(1, 2, true), shot(1, 4, false), shot(1, 5, true)})
	var got []uint32
	for _, sh := range r.out.shots {
		got = append(got, uint32(sh.shooter)*100+sh.cmd.Tick)
	}
	if want := []uint32{9, 102, 103, 105, 107}; !slices.Equal(got, want) {
		t.Fatalf("shots %v, want %v (shooter x 100 + command)", got, want)
	}
}
