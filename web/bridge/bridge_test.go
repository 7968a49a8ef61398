package bridge

import (
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/server"
	"github.com/lagkit/lagkit/shooter"
	"github.com/lagkit/lagkit/shooter/mode"
	"github.com/lagkit/lagkit/world"
)

func mapJSON(t testing.TB, name string) []byte {
	t.Helper()
	m, err := world.Load(name)
	if err != nil {
		t.Fatal(err)
	}
	return world.Encode(m)
}

// loop runs a server core and browser sessions on a virtual clock over a
// clean link with a one-way delay, as a page would drive them: datagrams
// in, one Tick per server tick, the outbox sent.
type loop struct {
	t        testing.TB
	s        *server.Server
	sessions []*Session
	delay    time.Duration
	burst    int // ticks issued at once, every burst ticks (0 or 1: each tick)
	dropEach int // when > 0, every dropEach-th datagram to the clients is lost
	sent     int
	now      time.Duration
	up, down []flight
	shots    []server.ShotRecord // the server's, as it handed them over
	reports  []server.SBCReport
}

type flight struct {
	at   time.Duration
	peer int
	data []byte
}

func newLoop(t testing.TB, players int, delay time.Duration) *loop {
	t.Helper()
	return newLoopWith(t, players, delay, server.Config{})
}

// newLoopWith is newLoop with a server of lagkit's shooter configured
// as cfg, on metro, by default in lagkit's team deathmatch.
func newLoopWith(t testing.TB, players int, delay time.Duration, cfg server.Config) *loop {
	t.Helper()
	if cfg.Rules == nil {
		cfg.Rules = shooter.Rules(mode.Config{Mode: mode.TDM})
	}
	m, err := world.Load("metro")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Map = m
	// lagkit's shooter, as the page plays it (the rifle alone).
	if err := shooter.Arm(&cfg, nil); err != nil {
		t.Fatal(err)
	}
	s, err := server.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	l := &loop{t: t, s: s, delay: delay}
	for i := range players {
		ss, err := New(Config{MapJSON: mapJSON(t, "metro"), Name: "p" + string(rune('0'+i))})
		if err != nil {
			t.Fatal(err)
		}
		l.sessions = append(l.sessions, ss)
	}
	return l
}

func (l *loop) run(d time.Duration, input func(i int) Input) {
	l.t.Helper()
	dt := l.s.TickDuration()
	step := dt / 4
	for end := l.now + d; l.now < end; l.now += step {
		now := l.now
		for len(l.up) > 0 && l.up[0].at <= now {
			_ = l.s.Step(now, server.Peer(l.up[0].peer+1), l.up[0].data)
			l.up = l.up[1:]
		}
		for len(l.down) > 0 && l.down[0].at <= now {
			if err := l.sessions[l.down[0].peer].Step(now, l.down[0].data); err != nil {
				l.t.Fatal(err)
			}
			l.down = l.down[1:]
		}
		r := l.s.Advance(now)
		l.shots = append(l.shots, r.Shots...)
		l.reports = append(l.reports, r.Reports...)
		for _, dg := range r.Messages {
			l.sent++
			if l.dropEach > 0 && l.sent%l.dropEach == 0 {
				continue
			}
			l.down = append(l.down, flight{now + l.delay, int(dg.To) - 1, append([]byte(nil), dg.Data...)})
		}
		if now%dt != step {
			continue
		}
		burst := max(l.burst, 1)
		if int(now/dt)%burst != 0 {
			continue
		}
		for i, ss := range l.sessions {
			if ss.Client().Phase() == 0 {
				ss.Connect(now)
			} else {
				for range burst {
					ss.Tick(now, input(i))
				}
			}
			for _, b := range ss.Outbox() {
				l.up = append(l.up, flight{now + l.delay, i, append([]byte(nil), b...)})
			}
		}
	}
}

// TestSessionPlays checks the bridge end to end against the server core:
// the player connects, its predicted position follows its input with no
// correction on a clean link, the other player is drawn with its team
// and hitboxes, and the state survives a JSON round trip as the page
// receives it.
func TestSessionPlays(t *testing.T) {
	l := newLoop(t, 2, 20*time.Millisecond)
	l.run(time.Second, func(int) Input { return Input{} })
	st := l.sessions[0].State(l.now)
	if st.Phase != "connected" || st.ID < 0 {
		t.Fatalf("after 1 s: phase %s id %d (%s)", st.Phase, st.ID, st.Reason)
	}
	start := st.Self.Pos
	l.run(2*time.Second, func(i int) Input {
		if i == 0 {
			return Input{Forward: 1, Yaw: 0.5}
		}
		return Input{}
	})
	st = l.sessions[0].State(l.now)
	moved := math.Hypot(st.Self.Pos[0]-start[0], st.Self.Pos[1]-start[1])
	if moved < 1 {
		t.Errorf("running forward 2 s moved the predicted player %.2f m, want more than 1 m", moved)
	}
	if st.Net.Corrections != 0 {
		t.Errorf("%d prediction corrections on a clean link, want 0", st.Net.Corrections)
	}
	if st.Net.SnapshotRate < 50 || st.Net.TickRate != 64 {
		t.Errorf("snapshot rate %d/s at tick rate %d, want about 64", st.Net.SnapshotRate, st.Net.TickRate)
	}
	if st.Net.RTTms < 35 || st.Net.RTTms > 80 {
		t.Errorf("RTT %.1f ms over a 20 ms one-way link, want about 40", st.Net.RTTms)
	}
	if len(st.Players) != 1 {
		t.Fatalf("%d remote players drawn, want 1", len(st.Players))
	}
	if len(st.Score.Rows) != 2 {
		t.Errorf("scoreboard rows %+v, want both players", st.Score.Rows)
	}
	other := l.sessions[1].State(l.now)
	p := st.Players[0]
	if p.ID != other.ID || p.Team != other.Team || p.Health != -1 || len(p.Parts) != game.NumParts {
		t.Errorf("remote player %+v, want id %d team %d, unknown health and %d parts", p, other.ID, other.Team, game.NumParts)
	}
	if d := math.Hypot(p.Pos[0]-other.Self.Pos[0], p.Pos[1]-other.Self.Pos[1]); d > 0.01 {
		t.Errorf("a player standing still is drawn %.3f m from where it stands", d)
	}
	if st.Self.Health <= 0 || st.Weapon == "" || st.Ammo == 0 {
		t.Errorf("self health %d weapon %q ammo %d", st.Self.Health, st.Weapon, st.Ammo)
	}
	b, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	var back State
	if err := json.Unmarshal(b, &back); err != nil || back.Self.Pos != st.Self.Pos {
		t.Errorf("JSON round trip: %v, %v != %v", err, back.Self.Pos, st.Self.Pos)
	}
}

// TestBurstsLoseNoCommand checks that a page drawing slower than the
// tick rate, issuing eight ticks at once, loses no command: the burst
// goes out as one packet that repeats them all, and prediction needs no
// correction.
func TestBurstsLoseNoCommand(t *testing.T) {
	l := newLoop(t, 1, 10*time.Millisecond)
	l.burst = 8 // the page's most ticks per pump (maxCatchUp in shell/main.ts)
	l.run(3*time.Second, func(int) Input { return Input{Forward: 1, Side: 0.3, Yaw: 2} })
	ss := l.sessions[0]
	st := ss.State(l.now)
	info, ok := l.s.Client(st.ID)
	if !ok || st.Phase != "connected" {
		t.Fatalf("phase %s", st.Phase)
	}
	if info.CmdsLost != 0 || info.CmdsDropped != 0 || st.Net.Corrections != 0 {
		t.Errorf("bursts of %d ticks: %d commands lost, %d dropped, %d corrections; want none", l.burst, info.CmdsLost, info.CmdsDropped, st.Net.Corrections)
	}
	if st.Net.Commands < 150 {
		t.Errorf("%d commands in 3 s of 64 Hz", st.Net.Commands)
	}
}

// TestHitAndKillEvents checks that the page hears of its shots and its
// deaths: a player firing at another five metres ahead gets hit events
// for its shots and a kill naming it, and the victim hurt events and the
// same kill.
func TestHitAndKillEvents(t *testing.T) {
	l := newLoop(t, 2, 10*time.Millisecond)
	l.run(time.Second, func(int) Input { return Input{} })
	shooter, victim := l.sessions[0].State(l.now), l.sessions[1].State(l.now)
	if shooter.Team == victim.Team {
		t.Fatalf("both players on team %d", shooter.Team)
	}
	l.s.Place(shooter.ID, geom.Vec3{X: -3, Y: 7.5}, 0)
	l.s.Place(victim.ID, geom.Vec3{X: 2, Y: 7.5}, math.Pi)
	l.run(300*time.Millisecond, func(int) Input { return Input{} })
	l.sessions[0].State(l.now) // forget the events so far
	l.sessions[1].State(l.now)
	l.run(2*time.Second, func(i int) Input {
		if i == 0 {
			return Input{Fire: true}
		}
		return Input{Yaw: math.Pi}
	})
	count := func(evs []Event, kind string, other, killer int) int {
		n := 0
		for _, e := range evs {
			if e.Kind == kind && e.Other == other && (kind != "kill" || e.Killer == killer) {
				n++
			}
		}
		return n
	}
	s0, s1 := l.sessions[0].State(l.now), l.sessions[1].State(l.now)
	if n := count(s0.Events, "hit", victim.ID, 0); n == 0 {
		t.Errorf("shooter: no hit event on player %d in %+v", victim.ID, s0.Events)
	}
	if n := count(s1.Events, "hurt", shooter.ID, 0); n == 0 {
		t.Errorf("victim: no hurt event from player %d in %+v", shooter.ID, s1.Events)
	}
	for i, st := range []State{s0, s1} {
		if n := count(st.Events, "kill", victim.ID, shooter.ID); n != 1 {
			t.Errorf("player %d saw %d kills of %d by %d, want 1: %+v", i, n, victim.ID, shooter.ID, st.Events)
		}
	}
	if s0.Score.Kills != 1 || s1.Score.Deaths != 1 {
		t.Errorf("scoreboard: shooter %d kills, victim %d deaths; want 1 and 1", s0.Score.Kills, s1.Score.Deaths)
	}
}

// TestCrouchLowersHitboxes checks that the crouch button reaches the
// drawn pose: the head comes down with the eyes.
func TestCrouchLowersHitboxes(t *testing.T) {
	l := newLoop(t, 1, 5*time.Millisecond)
	l.run(time.Second, func(int) Input { return Input{} })
	up := l.sessions[0].State(l.now)
	l.run(500*time.Millisecond, func(int) Input { return Input{Crouch: true} })
	down := l.sessions[0].State(l.now)
	if !down.Self.Crouched || up.Self.Crouched {
		t.Fatalf("crouched: before %v after %v", up.Self.Crouched, down.Self.Crouched)
	}
	headUp, headDown := up.Self.Parts[0].A[2]-up.Self.Pos[2], down.Self.Parts[0].A[2]-down.Self.Pos[2]
	if headDown > headUp-0.3 || down.Eye[2]-down.Self.Pos[2] > up.Eye[2]-up.Self.Pos[2]-0.3 {
		t.Errorf("head %.2f m and eye above the feet crouched, %.2f m standing: want at least 0.3 m lower", headDown, headUp)
	}
}

// TestWrongMapClosesWithTheServersMap checks that a page that loaded
// another map than the server's learns which map to load.
func TestWrongMapClosesWithTheServersMap(t *testing.T) {
	l := newLoop(t, 0, time.Millisecond)
	ss, err := New(Config{MapJSON: mapJSON(t, "arena")})
	if err != nil {
		t.Fatal(err)
	}
	l.sessions = append(l.sessions, ss)
	l.run(500*time.Millisecond, func(int) Input { return Input{} })
	st := ss.State(l.now)
	if st.Phase != "closed" || st.ServerMap != "metro" || !strings.Contains(st.Reason, "metro") {
		t.Errorf("phase %s server map %q reason %q, want closed, metro", st.Phase, st.ServerMap, st.Reason)
	}
}

func TestInputCmd(t *testing.T) {
	cmd := Input{Forward: 2, Side: -0.5, Yaw: math.Pi / 2, Pitch: 3, Fire: true, Crouch: true, Weapon: 2}.Cmd()
	if cmd.Forward != 127 || cmd.Side != -64 || cmd.Yaw != game.AngleUnits/4 || cmd.Pitch != game.MaxPitch {
		t.Errorf("cmd %+v: want forward 127, side -64, yaw a quarter turn, pitch clamped", cmd)
	}
	if cmd.Buttons != game.BtnFire|game.BtnCrouch || cmd.Weapon != 2 {
		t.Errorf("buttons %b weapon %d", cmd.Buttons, cmd.Weapon)
	}
	if c := (Input{Forward: math.NaN(), Yaw: math.Inf(1), Weapon: -1}).Cmd(); c.Forward != 0 || c.Yaw != 0 || c.Weapon != 255 {
		t.Errorf("non-finite input gave %+v", c)
	}
}

func TestNewRejectsBadConfig(t *testing.T) {
	good := mapJSON(t, "metro")
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{MapJSON: []byte("{")}, "map.json"},
		{Config{MapJSON: good, Display: "blur"}, "blur"},
		{Config{MapJSON: good, InterpDelay: -time.Millisecond}, "interpolation delay"},
		{Config{MapJSON: good, Name: strings.Repeat("x", 33)}, "name"},
	} {
		if _, err := New(c.cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("New(%+v): error %v, want one naming %q", c.cfg.Display, err, c.want)
		}
	}
}

func TestRateMeter(t *testing.T) {
	var r rateMeter
	for i := range 1000 {
		r.add(time.Duration(i)*10*time.Millisecond, 1)
	}
	if got := r.perSecond(10 * time.Second); got != 100 {
		t.Errorf("100 Hz arrivals: %d in the last second, want 100", got)
	}
	if got := r.perSecond(30 * time.Second); got != 0 {
		t.Errorf("after 20 s of silence: %d, want 0", got)
	}
}

// TestNetGraph checks the net graph against a link with a known latency
// and loss: the round trip is twice the one-way delay, every fourth
// datagram lost shows as about a quarter of snapshots missed, the view
// time trails the newest snapshot, and bytes flow both ways.
func TestNetGraph(t *testing.T) {
	l := newLoop(t, 1, 40*time.Millisecond)
	l.dropEach = 4
	l.run(4*time.Second, func(int) Input { return Input{Forward: 1} })
	n := l.sessions[0].State(l.now).Net
	t.Logf("rtt %.1f ms jitter %.2f loss %.3f buffer %.1f extrap %.1f rate %d in %d out %d", n.RTTms, n.JitterMs, n.Loss, n.BufferMs, n.ExtrapolatedMs, n.SnapshotRate, n.BytesIn, n.BytesOut)
	if n.RTTms < 70 || n.RTTms > 130 {
		t.Errorf("RTT %.1f ms over a 40 ms one-way link, want about 80", n.RTTms)
	}
	if n.Loss < 0.15 || n.Loss > 0.35 {
		t.Errorf("loss %.3f with every 4th datagram dropped, want about 0.25", n.Loss)
	}
	if n.SnapshotRate <= 0 || n.BytesIn <= 0 || n.BytesOut <= 0 {
		t.Errorf("snapshot rate %d, bytes in %d out %d: want all > 0", n.SnapshotRate, n.BytesIn, n.BytesOut)
	}
	if n.BufferMs <= 0 && n.ExtrapolatedMs <= 0 {
		t.Errorf("buffer %.1f ms, extrapolated %.1f ms: want one > 0", n.BufferMs, n.ExtrapolatedMs)
	}
	if len(n.RTTSamples) == 0 || n.JitterMs < 0 || n.JitterMs > n.RTTms {
		t.Errorf("%d RTT samples, jitter %.2f ms", len(n.RTTSamples), n.JitterMs)
	}
	clean := newLoop(t, 1, 40*time.Millisecond)
	clean.run(3*time.Second, func(int) Input { return Input{} })
	if c := clean.sessions[0].State(clean.now).Net; c.Loss != 0 {
		t.Errorf("clean link: loss %.3f, want 0", c.Loss)
	}
}

// TestCrossingKillsNameTheirKillers: two kills in one tick across two
// teams (the lower seat of each team kills the higher of the other) are
// told with the killers the server judged; pairing deaths with rises in
// the scoreboard's kills, both in seat order, named each victim's
// teammate.
func TestCrossingKillsNameTheirKillers(t *testing.T) {
	l := newLoopWith(t, 4, 10*time.Millisecond, server.Config{Rules: shooter.Rules(mode.Config{Mode: mode.TDM})})
	l.run(6*time.Second, func(int) Input { return Input{} }) // past spawn protection (5 s)
	var team [2][]int
	for id := range 4 {
		c, ok := l.s.Client(id)
		if !ok {
			t.Fatalf("seat %d empty", id)
		}
		team[c.Team] = append(team[c.Team], id)
	}
	if len(team[0]) != 2 || len(team[1]) != 2 {
		t.Fatalf("teams %v, want two of two", team)
	}
	a, b := team[0], team[1]
	if a[0] > b[0] {
		a, b = b, a
	}
	// k1 < k2 and v1 < v2: in seat order the first death pairs with the
	// first killer, a teammate, and so does the second.
	k1, v1, k2, v2 := a[0], a[1], b[0], b[1]
	if v1 > v2 {
		t.Skipf("teams %v do not cross in seat order", team)
	}
	for _, s := range l.sessions {
		s.State(l.now) // forget the events so far
	}
	for _, k := range [][2]int{{k1, v2}, {k2, v1}} {
		if killed, err := l.s.Damage(k[1], 1000, k[0]); err != nil || !killed {
			t.Fatalf("damage %d by %d: %v %v", k[1], k[0], killed, err)
		}
	}
	l.run(2*time.Second, func(int) Input { return Input{} })
	for i, s := range l.sessions {
		var kills [][2]int
		for _, e := range s.State(l.now).Events {
			if e.Kind == "kill" {
				kills = append(kills, [2]int{e.Killer, e.Other})
			}
		}
		if len(kills) != 2 || !slices.Contains(kills, [2]int{k1, v2}) || !slices.Contains(kills, [2]int{k2, v1}) {
			t.Errorf("player %d's feed: %v (killer, victim), want %d killing %d and %d killing %d", i, kills, k1, v2, k2, v1)
		}
	}
}
