package server

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/lagcomp"
	"github.com/lagkit/lagkit/wire"
	"github.com/lagkit/lagkit/world/worldtest"
)

// Time warp with a game's own shot resolution (Config.Shots): a
// re-simulation fires a re-run tick's shots through the game's resolver,
// as the live tick does, and registers their hits through the one hit
// path.

// lineShots is a game's resolver: one ray from the shooter's eye along
// its aim, 100 m, through the players' bodies, for damage a hit; as an
// Absorber its shield takes shield of each hit. It counts the hits Hit
// reported registered and the shots it was handed again (Rejudged), and
// with tracers shows each ray (ShowTracer).
type lineShots struct {
	damage, shield int16
	registered     *int
	rejudged       *int
	tracers        bool
}

func (l lineShots) Fire(w *ShotWorld) {
	if w.Rejudged() {
		*l.rejudged++
	}
	f := &w.Shot
	yaw, pitch := game.AngleToRad(int32(f.State.Yaw)), game.AngleToRad(int32(f.State.Pitch))
	ray := geom.Ray{Origin: f.Eye, Dir: geom.V(math.Cos(yaw)*math.Cos(pitch), math.Sin(yaw)*math.Cos(pitch), math.Sin(pitch))}
	_, ok := w.Trace(ray, 100)
	if l.tracers {
		w.ShowTracer()
	}
	if ok {
		if registered, _ := w.Hit(l.damage); registered {
			*l.registered++
		}
	}
}

func (l lineShots) Absorb(_ int, _ *game.PlayerState, damage int16) int16 {
	return damage - l.shield
}

// crossing is the scene of a late game's shot: shooter S, 10 m off on
// -X, fires along +X every time its rifle lets it; victim V walks along
// Y across S's line of fire. S's commands reach the server late ticks
// after S issued them.
func crossing(late uint32) []warpActor {
	s := geom.V(-10, 0, 0)
	yaw, pitch := aim(s, geom.V(0, 0, 0), 1.0)
	return []warpActor{
		{pos: s, late: late, script: func(uint32) game.UserCmd {
			return game.UserCmd{Yaw: yaw, Pitch: pitch, Buttons: game.BtnFire}
		}},
		{pos: geom.V(0, -4, 0), yaw: math.Pi / 2, script: func(uint32) game.UserCmd {
			return game.UserCmd{Yaw: game.YawUnits(math.Pi / 2), Forward: 127}
		}},
	}
}

// crossingRun plays crossing with a game's resolver and Body, under time
// warp or (timeWarp 0) on an ordinary server with policy none, and
// returns the scene, the command ticks of S's shots that hit V, and
// what the resolver counted.
func crossingRun(t *testing.T, late uint32, timeWarp time.Duration) (sc *warpScene, hit []uint32, registered, rejudged int) {
	t.Helper()
	cfg := warpConfig()
	cfg.TimeWarp = timeWarp
	cfg.Body = lagcomp.Parts{{Shape: lagcomp.Circle{R: 0.3}, Damage: 10}}
	cfg.Shots = lineShots{damage: 12, shield: 2, registered: &registered, rejudged: &rejudged}
	sc = newWarpScene(t, cfg, crossing(late), 100, 100+late+2)
	// A shot's newest record is its outcome.
	out := map[uint32]bool{}
	for _, r := range sc.shots {
		if r.Shooter == sc.ids[0] {
			out[r.ShotTick] = r.Registered && r.Victim == sc.ids[1]
		}
	}
	for tick, ok := range out {
		if ok {
			hit = append(hit, tick)
		}
	}
	slices.Sort(hit)
	return sc, hit, registered, rejudged
}

// TestTimeWarpLateGameShot: "a late command runs at its issue tick; the
// world is re-simulated from there" holds for a game's resolver: S's
// shots, 6 ticks late, hit V at the ticks S fired them, as the same
// shots on time do, each hit once (warped: recorded at its tick),
// through the game's Absorber; an
// ordinary server runs them 6 ticks later, where V has walked on.
func TestTimeWarpLateGameShot(t *testing.T) {
	const late = 6
	onTime, want, wantReg, _ := crossingRun(t, 0, 500*time.Millisecond)
	if len(want) == 0 {
		t.Fatal("no shot of S on time hit V: the scene tests nothing")
	}
	warped, got, reg, _ := crossingRun(t, late, 500*time.Millisecond)
	if !slices.Equal(got, want) {
		t.Fatalf("late shots under time warp hit at command ticks %v; on time %v", got, want)
	}
	if reg != wantReg || reg != len(want) {
		t.Errorf("Hit reported %d hits registered late, %d on time; want %d: each hit once", reg, wantReg, len(want))
	}
	v, _ := warped.s.Client(warped.ids[1])
	w, _ := onTime.s.Client(onTime.ids[1])
	if v.State.Health != w.State.Health || v.State.Health != game.MaxHealth-int16(10*len(want)) || v.HitsTaken != len(want) {
		t.Errorf("V's health %d (on time %d), hits taken %d; want %d and %d: 12 damage a hit, 2 absorbed",
			v.State.Health, w.State.Health, v.HitsTaken, game.MaxHealth-int16(10*len(want)), len(want))
	}
	for _, r := range warped.shots {
		if r.Registered && !r.Warped {
			t.Errorf("a late shot's hit recorded unwarped: %+v", r)
		}
		if r.Registered && r.Time != time.Duration(r.ShotTick)*warped.s.TickDuration() {
			t.Errorf("a late shot of command %d recorded at %v, not at its tick", r.ShotTick, r.Time)
		}
	}
	_, ordinary, _, _ := crossingRun(t, late, 0)
	if slices.Equal(ordinary, want) {
		t.Fatalf("an ordinary server hit at the same command ticks %v: the scene does not tell time warp", ordinary)
	}
}

// TestTimeWarpGameShotsResimulate: re-running the window with a game's
// resolver and the inputs it ran with changes nothing: no record, no
// hit reported registered again (the shots handed to the resolver again
// are Rejudged), no tracer shown again, the same state.
func TestTimeWarpGameShotsResimulate(t *testing.T) {
	registered, rejudged := 0, 0
	cfg := warpConfig()
	cfg.Body = lagcomp.Parts{{Shape: lagcomp.Circle{R: 0.3}, Damage: 10}}
	cfg.Shots = lineShots{damage: 12, shield: 2, registered: &registered, rejudged: &rejudged, tracers: true}
	cfg.ShowTracers = true
	sc := newWarpScene(t, cfg, crossing(3), 100, 103)
	if registered == 0 {
		t.Fatal("no hit: the scene tests nothing")
	}
	want, hash, reg := snap(sc.s), sc.s.StateHash(), registered
	sc.s.Ready()
	v := sc.s.clients[sc.ids[1]] // near S's line of fire
	// tracersQueued empties V's queue of events and refills its tracer
	// budget, and returns the tracers it held.
	tracersQueued := func() int {
		n := 0
		for _, ev := range v.events {
			if ev.kind == wire.EventTracer {
				n++
			}
		}
		v.events, v.tracers, v.tracerBytes = v.events[:0], 0, 1<<20
		return n
	}
	tracersQueued()
	sc.s.sendTracer(sc.ids[0], 0, geom.V(-10, 0, 1.6), geom.V(10, 0, 1.6), -1)
	if tracersQueued() != 1 {
		t.Fatal("V has no room for a tracer: the test proves nothing")
	}
	for _, id := range sc.ids {
		for _, depth := range []int{1, 5, 32} {
			before := rejudged
			if n, err := sc.s.Resimulate(id, depth); err != nil || n != depth {
				t.Fatalf("Resimulate(%d, %d) = %d, %v", id, depth, n, err)
			}
			// The shooter's shots are fired again; re-running V alone
			// lets S's shots that V's body no longer comes near stand.
			if depth == 32 && id == sc.ids[0] && rejudged == before {
				t.Fatalf("Resimulate(%d, %d) handed the resolver no shot", id, depth)
			}
			compare(t, "resimulated", snap(sc.s), want)
			if n := tracersQueued(); n != 0 {
				t.Fatalf("Resimulate(%d, %d) showed %d tracers again", id, depth, n)
			}
		}
	}
	if recs := sc.s.Ready().Shots; len(recs) != 0 || sc.s.StateHash() != hash || registered != reg {
		t.Fatalf("re-simulating the record made %d records, %d hits registered, or changed the state", len(recs), registered-reg)
	}
}

// BenchmarkTimeWarpGameShots measures a warp 300 ms deep with a game's
// resolver (lineShots, through the players' bodies) among 16 players
// turning and firing: the late player's shots, and those of the others
// its body could have come into, are handed to the resolver again; the
// rest stand as recorded. It allocates nothing.
func BenchmarkTimeWarpGameShots(b *testing.B) {
	registered, rejudged := 0, 0
	cfg := warpConfig()
	cfg.Map = worldtest.Open(b)
	cfg.MaxClients = 16
	cfg.Body = lagcomp.Parts{{Shape: lagcomp.Circle{R: 0.3}, Damage: 10}}
	cfg.Shots = lineShots{damage: 1, registered: &registered, rejudged: &rejudged}
	s, err := New(armed(cfg))
	if err != nil {
		b.Fatal(err)
	}
	n := cfg.MaxClients
	for i := range n {
		id := join(b, s, 0, Peer(i))
		s.Place(id, geom.V(float64(i%4)*4-6, float64(i/4)*4-6, 0), 0)
	}
	for tick := uint32(1); tick <= 64; tick++ {
		now := s.NextTick()
		for i := range n {
			cmd := game.UserCmd{Tick: tick, Duration: s.TickDuration(), Side: 64, Yaw: uint16(int(tick)*900 + i*4000)}
			if (int(tick)/8+i)%2 == 0 {
				cmd.Buttons = game.BtnFire
			}
			sendCmds(b, s, now-time.Microsecond, Peer(i), []game.UserCmd{cmd})
		}
		s.Advance(now)
	}
	if registered == 0 {
		b.Fatal("no hit in the scene")
	}
	ticks := int(300 * time.Millisecond / s.TickDuration())
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := s.Resimulate(i%n, ticks); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// watchedRun plays crossing with a game's resolver (lineShots), S on
// time, V's commands lateV ticks late, and a third player U, 30 m off S's
// line of fire and strafing, lateU ticks late; exhaustive makes the
// warps hand every recorded shot to the resolver again. It returns the
// scene and what the resolver counted: hits registered, and shots it was
// handed again (Rejudged).
func watchedRun(t *testing.T, lateV, lateU uint32, exhaustive bool) (sc *warpScene, registered, rejudged int) {
	t.Helper()
	defer func(was bool) { warpExhaustive = was }(warpExhaustive)
	warpExhaustive = exhaustive
	cfg := warpConfig()
	cfg.Body = lagcomp.Parts{{Shape: lagcomp.Circle{R: 0.3}, Damage: 10}}
	cfg.Shots = lineShots{damage: 12, shield: 2, registered: &registered, rejudged: &rejudged}
	actors := crossing(0)
	actors[1].late = lateV
	actors = append(actors, warpActor{pos: geom.V(0, 30, 0), late: lateU, script: func(uint32) game.UserCmd {
		return game.UserCmd{Side: 127}
	}})
	sc = newWarpScene(t, cfg, actors, 100, 108)
	return sc, registered, rejudged
}

// sameRun fails t unless scenes got and want ended alike: states,
// counters and projectiles, the state hash and the shot records.
func sameRun(t *testing.T, what string, got, want *warpScene) {
	t.Helper()
	compare(t, what, snap(got.s), snap(want.s))
	if got.s.StateHash() != want.s.StateHash() {
		t.Errorf("%s: state hash %x, want %x", what, got.s.StateHash(), want.s.StateHash())
	}
	if !slices.Equal(got.shots, want.shots) {
		i := firstDiff(len(got.shots), len(want.shots), func(i int) bool { return got.shots[i] == want.shots[i] })
		t.Errorf("%s: records differ: %d, want %d; first at %d:\n got %s\nwant %s", what, len(got.shots), len(want.shots), i, at(got.shots, i), at(want.shots, i))
	}
}

// TestTimeWarpGameShotsStand: a game's recorded shot whose shooter was
// not stepped again, and whose rays no changed player's body could
// reach, stands as recorded: a warp in which only U, far off S's line of
// fire, is late hands none of S's recorded shots to the resolver again
// (Fire is not called for them), and ends exactly as warps that hand
// every one of them over again do. When V, whom S's shots hit, is late,
// the shots V's body could reach are fired again, and only they.
func TestTimeWarpGameShotsStand(t *testing.T) {
	sc, reg, handed := watchedRun(t, 0, 6, false)
	st := sc.s.TimeWarpStats()
	if st.Warps == 0 || reg == 0 {
		t.Fatalf("%d warps, %d hits: the scene tests nothing", st.Warps, reg)
	}
	if handed != 0 || st.Stood == 0 {
		t.Errorf("warps over U alone handed the resolver %d recorded shots again (%d stood); want none", handed, st.Stood)
	}
	all, allReg, allHanded := watchedRun(t, 0, 6, true)
	if allHanded == 0 || all.s.TimeWarpStats().Stood != 0 {
		t.Fatalf("exhaustive warps handed %d shots again, %d stood: they do not fire again", allHanded, all.s.TimeWarpStats().Stood)
	}
	if reg != allReg {
		t.Errorf("Hit reported %d hits registered, %d firing again", reg, allReg)
	}
	sameRun(t, "U late, S's shots standing", sc, all)

	sc, reg, handed = watchedRun(t, 6, 0, false)
	all, allReg, allHanded = watchedRun(t, 6, 0, true)
	st = sc.s.TimeWarpStats()
	if handed == 0 || handed >= allHanded || st.Stood == 0 {
		t.Errorf("V late: %d shots handed again, %d stood; firing every one again hands %d: want some, fewer", handed, st.Stood, allHanded)
	}
	if reg != allReg || reg == 0 {
		t.Errorf("V late: Hit reported %d hits registered, %d firing again", reg, allReg)
	}
	sameRun(t, "V late", sc, all)

	// The exactness scene, its late players walking into the others'
	// lines of fire (every shot there is fired again), with the game's
	// resolver.
	duel := func(exhaustive bool) (*warpScene, int) {
		defer func(was bool) { warpExhaustive = was }(warpExhaustive)
		warpExhaustive = exhaustive
		registered, handed := 0, 0
		cfg := warpConfig()
		cfg.Body = lagcomp.Parts{{Shape: lagcomp.Circle{R: 0.4}, Damage: 10}}
		cfg.Shots = lineShots{damage: 12, registered: &registered, rejudged: &handed}
		return newWarpScene(t, cfg, duelActors(8, wStops), 150, 158), handed
	}
	sc, handed = duel(false)
	all, allHanded = duel(true)
	if allHanded == 0 {
		t.Fatal("duel: no shot handed again: the scene tests nothing")
	}
	sameRun(t, "duel", sc, all)
}

// crateShots is a game's resolver whose shots hit its crates: one ray
// from the shooter's eye along its aim, 100 m, through the bodies; a hit
// on an entity registered takes the body's damage from the crate's
// health (hp, by slot), and as an Unhitter a hit taken back gives it
// back. It counts the hits taken back.
type crateShots struct {
	hp     map[int]int
	unhits *int
}

func (c crateShots) Fire(w *ShotWorld) {
	f := &w.Shot
	yaw, pitch := game.AngleToRad(int32(f.State.Yaw)), game.AngleToRad(int32(f.State.Pitch))
	ray := geom.Ray{Origin: f.Eye, Dir: geom.V(math.Cos(yaw)*math.Cos(pitch), math.Sin(yaw)*math.Cos(pitch), math.Sin(pitch))}
	h, ok := w.Trace(ray, 100)
	if !ok {
		return
	}
	if registered, _ := w.Hit(int16(h.Damage)); registered && h.ID >= w.Server().MaxClients() {
		c.hp[h.ID] -= h.Damage
	}
}

func (c crateShots) Unhit(_ *FiredShot, entity int, damage int16) {
	c.hp[entity] += int(damage)
	*c.unhits++
}

// TestTimeWarpEntityHitTakenBack: a hit on a game's entity that a
// re-simulation no longer finds is taken back, as a player's is. S
// shoots a crate at tick 20, a hit the live tick registers and the game
// takes from the crate's health. S's commands then turn out to have
// strafed (a late command inserted at their ticks, re-run by a warp):
// the re-simulated shot misses the crate, the game is handed the hit
// back (Unhitter) and restores the crate's health, and the shot's newest
// record is a warped miss. Once the commands are the recorded ones
// again, a warp finds the hit again: registered anew, once; and a warp
// in which S no longer fires takes it back again.
func TestTimeWarpEntityHitTakenBack(t *testing.T) {
	unhits := 0
	shots := crateShots{hp: map[int]int{}, unhits: &unhits}
	cfg := warpConfig()
	cfg.Map = worldtest.Open(t)
	cfg.Shots = shots
	s, err := New(armed(cfg))
	if err != nil {
		t.Fatal(err)
	}
	crate := s.MaxClients()
	shots.hp[crate] = 100
	body := lagcomp.Body(lagcomp.Parts{{Shape: lagcomp.Circle{R: 0.5}, Damage: 30}})
	if err := s.SetEntity(crate, game.PlayerState{}, body); err != nil {
		t.Fatal(err)
	}
	id := join(t, s, 0, Peer(0))
	s.Place(id, geom.V(-10, 0, 0), 0)
	setLatency(s, id, 0)
	yaw, pitch := aim(geom.V(-10, 0, 0), geom.V(0, 0, 0), 1.0)
	var recs []ShotRecord
	for n := uint32(1); n <= 24; n++ {
		now := s.NextTick()
		cmd := game.UserCmd{Tick: n, Duration: s.TickDuration(), Yaw: yaw, Pitch: pitch}
		if n == 20 {
			cmd.Buttons = game.BtnFire
		}
		sendCmds(t, s, now-time.Microsecond, Peer(0), []game.UserCmd{cmd})
		recs = append(recs, s.Advance(now).Shots...)
	}
	if len(recs) != 1 || recs[0].Entity != crate || !recs[0].Registered || recs[0].Warped || shots.hp[crate] != 70 {
		t.Fatalf("live: records %+v, crate health %d; want one registered hit on the crate, 70 left", recs, shots.hp[crate])
	}
	// strafe makes S's recorded commands of the last 20 ticks strafe
	// (or, again, stand), as late commands inserted there would.
	strafe := func(side int8) {
		for tk := s.tick - 19; tk <= s.tick; tk++ {
			e, _ := s.warp.entry(tk)
			for k, cmd := range e.Cmds(id) {
				cmd.Side = side
				e.Cmds(id)[k] = cmd
			}
		}
	}
	strafe(127)
	before := s.TimeWarpStats()
	if n, err := s.Resimulate(id, 20); n != 20 || err != nil {
		t.Fatalf("resimulate: %d, %v", n, err)
	}
	if st, _, _ := s.PlayerState(id); math.Abs(st.Pos.Y) < 1 {
		t.Fatalf("S at %v after the warp: it did not strafe off the line of fire", st.Pos)
	}
	recs = s.Ready().Shots
	if unhits != 1 || shots.hp[crate] != 100 {
		t.Errorf("after the warp: %d hits taken back, crate health %d; want 1 and 100", unhits, shots.hp[crate])
	}
	if len(recs) != 1 || recs[0].ShotTick != 20 || !recs[0].Warped || recs[0].Hit || recs[0].Registered || recs[0].Entity != 0 || recs[0].Victim != -1 {
		t.Errorf("after the warp: records %+v; want the shot of tick 20 recorded again, a warped miss", recs)
	}
	if st := s.TimeWarpStats(); st.Rejudged != before.Rejudged+1 {
		t.Errorf("rejudged %d pellets, want 1", st.Rejudged-before.Rejudged)
	}

	strafe(0)
	if _, err := s.Resimulate(id, 20); err != nil {
		t.Fatal(err)
	}
	recs = s.Ready().Shots
	if unhits != 1 || shots.hp[crate] != 70 || len(recs) != 1 || recs[0].Entity != crate || !recs[0].Registered || !recs[0].Warped {
		t.Errorf("the hit found again: %d taken back, crate health %d, records %+v; want 1, 70 and a warped registered hit", unhits, shots.hp[crate], recs)
	}
	if _, err := s.Resimulate(id, 20); err != nil || len(s.Ready().Shots) != 0 || shots.hp[crate] != 70 {
		t.Errorf("a warp changing nothing: %v, crate health %d", err, shots.hp[crate])
	}

	// A shot no longer fired takes its hit back too.
	e, _ := s.warp.entry(20)
	for k := range e.Cmds(id) {
		e.Cmds(id)[k].Buttons = 0
	}
	if _, err := s.Resimulate(id, 20); err != nil || unhits != 2 || shots.hp[crate] != 100 {
		t.Errorf("the shot no longer fired: %v, %d taken back, crate health %d; want 2 and 100", err, unhits, shots.hp[crate])
	}
}
