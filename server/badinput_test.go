package server

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/lagcomp"
	"github.com/lagkit/lagkit/shooter/mode"
	"github.com/lagkit/lagkit/shooter/weapon"
	"github.com/lagkit/lagkit/wire"
	"github.com/lagkit/lagkit/world/worldtest"
)

// Bad input: "A client that lies (view time far in the
// past, [...] flooding, [...] appeals for hits that were not behind cover,
// malformed or oversized packets) gets clamped, rate-limited or
// disconnected with a clear reason; no input can crash the server, stall a
// tick or grow memory without bound."

// duel is a server with a shooter (peer 1, slot 0) and its victim (peer 2,
// slot 1, the other team) 20 m apart on the open map, facing each other.
// Every peer acknowledges the snapshot of the tick before with a hold of
// one tick, so every round trip reads zero (low ping), unless ackLag
// makes it acknowledge an older one (a longer round trip), claim
// declares another hold, or silent stops its acknowledgements.
type duel struct {
	t       *testing.T
	s       *Server
	peers   []Peer // in the order they joined
	next    map[Peer]uint32
	cmd     map[Peer]game.UserCmd
	events  map[Peer]uint32 // next event sequence number not yet seen
	hits    map[Peer][]wire.HitEvent
	rewinds map[Peer][]wire.RewindEvent
	records []ShotRecord
	ackLag  map[Peer]uint32
	claim   map[Peer]time.Duration
	silent  map[Peer]bool
	snaps   map[Peer]*[snapRing]wire.Snapshot // received, as delta baselines
	// onSnap, if set, sees each snapshot a peer receives, before its
	// events are read.
	onSnap func(to Peer, sn *wire.Snapshot)
}

// newDuel sets up the duel; the silent peers never acknowledge.
func newDuel(t *testing.T, cfg Config, silent ...Peer) *duel {
	t.Helper()
	d := &duel{t: t, s: testServer(t, cfg), next: map[Peer]uint32{}, cmd: map[Peer]game.UserCmd{},
		events: map[Peer]uint32{}, hits: map[Peer][]wire.HitEvent{}, rewinds: map[Peer][]wire.RewindEvent{},
		ackLag: map[Peer]uint32{}, claim: map[Peer]time.Duration{}, silent: map[Peer]bool{}, snaps: map[Peer]*[snapRing]wire.Snapshot{}}
	for _, p := range silent {
		d.silent[p] = true
	}
	d.join(1)
	d.join(2)
	d.s.Place(0, geom.V(0, 0, 0), 0)
	d.s.Place(1, geom.V(20, 0, 0), math.Pi)
	// Aim at the victim's torso.
	d.cmd[1] = game.UserCmd{Pitch: game.PitchUnits(math.Atan2(1.13-1.65, 20))}
	d.cmd[2] = game.UserCmd{Yaw: game.YawUnits(math.Pi)}
	d.run(500 * time.Millisecond)
	return d
}

func (d *duel) join(peer Peer) int {
	id := join(d.t, d.s, d.s.Time(), peer)
	d.peers = append(d.peers, peer)
	d.next[peer], d.events[peer] = 1, 1
	return id
}

// tick sends every peer's command (view is the view time the shooter's
// claims, 0 for the honest one) and runs one tick.
func (d *duel) tick(view func(now time.Duration) time.Duration) {
	d.t.Helper()
	now := d.s.NextTick()
	for _, peer := range d.peers {
		cmd := d.cmd[peer]
		cmd.Tick, cmd.Duration = d.next[peer], d.s.TickDuration()
		cmd.ViewTime = max(0, now-100*time.Millisecond)
		if view != nil && peer == 1 {
			cmd.ViewTime = view(now)
		}
		d.next[peer]++
		m := wire.Commands{ClientTime: now + 1, Cmds: []game.UserCmd{cmd}}
		if tick := d.s.Tick(); !d.silent[peer] && tick > d.ackLag[peer] {
			m.AckTick, m.AckDelay = tick-d.ackLag[peer], d.s.TickDuration()
			if claim, ok := d.claim[peer]; ok {
				m.AckDelay = claim
			}
		}
		b, err := wire.AppendCommands(nil, &m)
		if err != nil {
			d.t.Fatal(err)
		}
		if err := d.s.Step(now, peer, b); err != nil {
			d.t.Fatal(err)
		}
	}
	r := d.s.Advance(now)
	for _, dg := range r.Messages {
		ring := d.snaps[dg.To]
		if ring == nil {
			ring = new([snapRing]wire.Snapshot)
			d.snaps[dg.To] = ring
		}
		var sn wire.Snapshot
		sn.SetGame(weapon.Layout)
		if wire.DecodeSnapshot(dg.Data, &sn, func(tick uint32) *wire.Snapshot {
			if b := &ring[tick%snapRing]; b.Tick == tick {
				return b
			}
			return nil
		}) != nil {
			continue // not a snapshot
		}
		if d.onSnap != nil {
			d.onSnap(dg.To, &sn)
		}
		ring[sn.Tick%snapRing] = sn
		ring[sn.Tick%snapRing].Events = nil
		for _, ev := range sn.Events {
			if ev.Seq < d.events[dg.To] {
				continue // a lossless link brings every event in order the first time
			}
			d.events[dg.To] = ev.Seq + 1
			var h wire.HitEvent
			if ev.Kind == wire.EventHit && wire.DecodeHitEvent(ev.Data, &h) == nil {
				d.hits[dg.To] = append(d.hits[dg.To], h)
			}
			var r wire.RewindEvent
			if ev.Kind == wire.EventRewind && wire.DecodeRewindEvent(ev.Data, &r) == nil {
				d.rewinds[dg.To] = append(d.rewinds[dg.To], r)
			}
		}
	}
	d.records = append(d.records, r.Shots...)
}

func (d *duel) run(dur time.Duration) {
	for end := d.s.Time() + dur; d.s.Time() < end; {
		d.tick(nil)
	}
}

// shoot makes the shooter fire once in the next tick, claiming view.
func (d *duel) shoot(view func(now time.Duration) time.Duration) {
	cmd := d.cmd[1]
	cmd.Buttons = game.BtnFire
	d.cmd[1] = cmd
	d.tick(view)
	cmd.Buttons = 0
	d.cmd[1] = cmd
}

// appeal sends an appeal from peer at server time now and returns the
// error Step gave.
func (d *duel) appeal(now time.Duration, peer Peer, id uint32, deny bool) error {
	d.t.Helper()
	slot, _ := d.s.ClientByPeer(peer)
	c, _ := d.s.Client(slot)
	b, err := wire.AppendAppeal(nil, &wire.Appeal{ID: id, Deny: deny, State: c.State})
	if err != nil {
		d.t.Fatal(err)
	}
	return d.s.Step(now, peer, b)
}

// TestLyingViewTimes checks that a view time the server cannot believe is
// replaced by its own estimate (here the 100 ms interpolation delay: the
// round trip reads zero) and never reaches further back than MaxUnlag.
func TestLyingViewTimes(t *testing.T) {
	cases := []struct {
		name     string
		maxUnlag time.Duration
		view     func(now time.Duration) time.Duration
		wantMS   float64
	}{
		{"honest", 0, func(now time.Duration) time.Duration { return now - 100*time.Millisecond }, 100},
		{"seconds in the past", 0, func(now time.Duration) time.Duration { return now - 2*time.Second }, 100},
		{"the beginning of time", 0, func(time.Duration) time.Duration { return time.Microsecond }, 100},
		{"zero", 0, func(time.Duration) time.Duration { return 0 }, 100},
		{"50 ms ahead of the server", 0, func(now time.Duration) time.Duration { return now + 50*time.Millisecond }, 100},
		{"a second ahead of the server", 0, func(now time.Duration) time.Duration { return now + time.Second }, 100},
		{"at the end of the clock", 0, func(time.Duration) time.Duration { return wire.MaxClock }, 100},
		{"honest, beyond a 50 ms max_unlag", 50 * time.Millisecond, func(now time.Duration) time.Duration { return now - 100*time.Millisecond }, 50},
		{"seconds in the past, beyond a 50 ms max_unlag", 50 * time.Millisecond, func(now time.Duration) time.Duration { return now - 2*time.Second }, 50},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := newDuel(t, Config{MaxUnlag: tc.maxUnlag})
			d.run(2 * time.Second)
			d.shoot(tc.view)
			if len(d.records) != 1 {
				t.Fatalf("%d shot records, want 1", len(d.records))
			}
			rec := d.records[0]
			if !rec.Rewound || rec.RewindMS != tc.wantMS || rec.Victim != 1 {
				t.Fatalf("shot rewound %v by %v ms, victim %d; want a hit rewound %v ms", rec.Rewound, rec.RewindMS, rec.Victim, tc.wantMS)
			}
		})
	}
	t.Run("negative", func(t *testing.T) {
		// The wire cannot carry a negative view time, so test the rule.
		d := newDuel(t, Config{})
		now := d.s.Time()
		if got, want := d.s.targetTime(d.s.clients[0], -time.Second, now), now-100*time.Millisecond; got != want {
			t.Fatalf("target time %v for a negative view time, want the estimate %v", got, want)
		}
		cmds := wire.Commands{Cmds: []game.UserCmd{{Tick: 1, ViewTime: -time.Second}}}
		if _, err := wire.AppendCommands(nil, &cmds); err == nil {
			t.Fatal("a negative view time was encoded")
		}
	})
}

// TestBogusAppealsAreIgnored checks that answers to provisional hits the
// sender never received, answers to another player's hit, repeated
// answers and late answers change nothing and are counted.
func TestBogusAppealsAreIgnored(t *testing.T) {
	d := newDuel(t, Config{Policy: lagcomp.Config{Name: "alc"}})
	d.join(3) // a bystander, slot 2
	d.cmd[3] = game.UserCmd{}
	d.s.Place(2, geom.V(0, 30, 0), 0)
	d.shoot(nil)
	if len(d.hits[2]) != 1 || d.hits[2][0].Appeal == 0 {
		t.Fatalf("victim received %+v, want one provisional hit", d.hits[2])
	}
	id := d.hits[2][0].Appeal
	now := d.s.Time()
	steps := []struct {
		peer Peer
		id   uint32
		deny bool
	}{
		{2, id + 1000, true}, // a hit it never received
		{2, 0, true},         // "not appealable"
		{3, id, true},        // somebody else's hit
		{2, id, false},       // the answer: confirmed
		{2, id, true},        // a second answer
		{2, id, false},       // and a third
	}
	for i, st := range steps {
		if err := d.appeal(now, st.peer, st.id, st.deny); err != nil {
			t.Fatalf("appeal %d: %v", i, err)
		}
	}
	d.run(200 * time.Millisecond)

	// A second hit, answered after its deadline.
	d.shoot(nil)
	if len(d.hits[2]) != 2 {
		t.Fatalf("victim received %d hits, want 2", len(d.hits[2]))
	}
	late := d.hits[2][1]
	d.s.Advance(late.Deadline)
	if err := d.appeal(late.Deadline+time.Microsecond, 2, late.Appeal, true); err != nil {
		t.Fatal(err)
	}
	d.run(200 * time.Millisecond)
	if err := d.appeal(d.s.Time(), 2, late.Appeal, true); err != nil {
		t.Fatal(err)
	}

	if len(d.records) != 2 || d.records[0].Outcome != wire.OutcomeConfirmed || d.records[1].Outcome != wire.OutcomeTimeout {
		t.Fatalf("records %+v, want the first hit confirmed and the second timed out", d.records)
	}
	victim, _ := d.s.Client(1)
	bystander, _ := d.s.Client(2)
	if victim.AppealsIgnored != 6 || bystander.AppealsIgnored != 1 || victim.Refuted != 0 {
		t.Fatalf("ignored: victim %d, bystander %d (refuted %d); want 6 and 1 (and 0)", victim.AppealsIgnored, bystander.AppealsIgnored, victim.Refuted)
	}
	if victim.State.Health != game.MaxHealth-50 {
		t.Fatalf("victim's health %d, want 50: both hits stand", victim.State.Health)
	}
}

// TestAppealFlood checks a victim that sends 1,000 appeals a second for
// 3 s while being hit ten times a second: the server keeps ticking and
// counting, an appeal costs no memory, and the appeal budget (AppealRate,
// a token bucket with a burst of as many) bounds how many hits on it are
// made provisional; the rest are registered at once.
func TestAppealFlood(t *testing.T) {
	w := weapon.Rifle()
	w.Damage = [game.NumParts]int16{}
	w.Magazine = 255
	w.Spread, w.SpreadGrowth, w.SpreadMax, w.Recoil, w.RecoilMax = 0, 0, 0, 0, 0
	// Limits.Appeals would disconnect the flooder; the budget must hold
	// without it.
	d := newDuel(t, armed(Config{Policy: lagcomp.Config{Name: "alc"}, AppealRate: 2, Limits: Limits{Appeals: 1 << 20}}, w))
	cmd := d.cmd[1]
	cmd.Buttons = game.BtnFire
	d.cmd[1] = cmd

	const seconds = 3
	start, sent := d.s.Time(), 0
	for d.s.Time() < start+seconds*time.Second {
		now := d.s.NextTick()
		for ; sent < int((now-start)/time.Millisecond); sent++ {
			if err := d.appeal(now, 2, 1<<31+uint32(sent), sent%2 == 0); err != nil {
				t.Fatal(err)
			}
		}
		d.tick(nil)
	}
	cmd.Buttons = 0
	d.cmd[1] = cmd
	d.run(200 * time.Millisecond) // let the last appeals time out

	victim, ok := d.s.Client(1)
	if !ok || victim.AppealsIgnored != sent || sent < 2990 {
		t.Fatalf("victim connected %v, %d of %d appeals ignored", ok, victim.AppealsIgnored, sent)
	}
	appealed := 0
	for _, r := range d.records {
		switch {
		case r.Appealed:
			appealed++
		case r.Outcome != wire.OutcomeRegistered || !r.Registered:
			t.Errorf("hit beyond the budget: %+v, want registered at once", r)
		}
	}
	// Two in the first burst, then two a second.
	if len(d.records) < 29 || appealed < 2+2*(seconds-1) || appealed > 2+2*seconds {
		t.Fatalf("%d of %d hits appealed, want %d to %d", appealed, len(d.records), 2+2*(seconds-1), 2+2*seconds)
	}
	b, _ := wire.AppendAppeal(nil, &wire.Appeal{ID: 1 << 30, State: victim.State})
	now := d.s.Time()
	if n := testing.AllocsPerRun(1000, func() { d.s.Step(now, 2, b) }); n != 0 {
		t.Fatalf("an appeal allocates %v times, want 0", n)
	}
}

// TestMalformedAppeals checks that a broken appeal datagram is rejected
// with an error, counted, and harmless.
func TestMalformedAppeals(t *testing.T) {
	d := newDuel(t, Config{Policy: lagcomp.Config{Name: "alc"}})
	victim, _ := d.s.Client(1)
	good, err := wire.AppendAppeal(nil, &wire.Appeal{ID: 7, Deny: true, State: victim.State})
	if err != nil {
		t.Fatal(err)
	}
	ones := make([]byte, len(good))
	for i := range ones {
		ones[i] = 0xff
	}
	ones[0] = good[0]
	cases := []struct {
		name string
		data []byte
	}{
		{"type alone", good[:1]},
		{"truncated", good[:len(good)-2]},
		{"trailing bytes", append(append([]byte(nil), good...), 0, 0)},
		{"every field at its maximum", ones},
		{"oversized", append(append([]byte(nil), good...), make([]byte, wire.MaxDatagram)...)},
	}
	now := d.s.Time()
	for i, tc := range cases {
		if err := d.s.Step(now, 2, tc.data); err == nil {
			t.Errorf("%s: accepted", tc.name)
		}
		if got := d.s.Stats().Malformed; got != i+1 {
			t.Errorf("%s: %d malformed datagrams counted, want %d", tc.name, got, i+1)
		}
	}
	if err := d.s.Step(now, 99, good); !errors.Is(err, ErrNoSession) {
		t.Errorf("appeal from an unknown peer: %v, want ErrNoSession", err)
	}
	if _, ok := d.s.Client(1); !ok {
		t.Fatal("victim dropped after malformed appeals")
	}
	d.shoot(nil)
	if len(d.records) != 0 || len(d.hits[2]) != 1 || d.hits[2][0].Appeal == 0 {
		t.Fatalf("after malformed appeals: records %+v, hits %+v; want one provisional hit", d.records, d.hits[2])
	}
}

// TestConfirmedHitStandsWhoeverFiredLast: an appeal is settled outside the
// tick that traced the shot, so whether the shooter may hurt the victim
// must be judged for that shot's shooter, not for whoever was traced last
// (here the victim's own team mate, which once voided confirmed hits).
func TestConfirmedHitStandsWhoeverFiredLast(t *testing.T) {
	d := newDuel(t, Config{Policy: lagcomp.Config{Name: "alc"}, Rules: modeRules(mode.Config{Mode: mode.TDM})})
	d.join(3) // slot 2: the shooter's team mate
	d.join(4) // slot 3: the victim's team mate
	if c, _ := d.s.Client(3); c.Team != 1 {
		t.Fatalf("slot 3 is on team %d, want the victim's team 1", c.Team)
	}
	d.s.Place(2, geom.V(0, 30, 0), 0)
	d.s.Place(3, geom.V(20, 6, 0), math.Pi)
	d.cmd[3] = game.UserCmd{}
	// The victim's team mate fires at the shooter in the same tick: its
	// shot is traced after the shooter's.
	d.cmd[4] = game.UserCmd{Yaw: game.YawUnits(math.Atan2(-6, -20)), Buttons: game.BtnFire}
	d.shoot(nil)
	d.cmd[4] = game.UserCmd{}
	if len(d.hits[2]) != 1 {
		t.Fatalf("victim received %+v, want one provisional hit", d.hits[2])
	}
	if len(d.hits[1]) != 1 {
		t.Fatalf("the shooter received %+v, want the team mate's provisional hit traced in the same tick", d.hits[1])
	}
	if err := d.appeal(d.s.Time(), 2, d.hits[2][0].Appeal, false); err != nil {
		t.Fatal(err)
	}
	d.run(100 * time.Millisecond)
	if v, _ := d.s.Client(1); v.State.Health != game.MaxHealth-25 {
		t.Fatalf("victim's health %d after a confirmed hit, want %d", v.State.Health, game.MaxHealth-25)
	}
}

// TestGameConfigErrors: a game's settings out of range are refused: a
// resolver that does not say which shots are hitscan (no Armoury) under
// time warp of hitscan shots only, which defers those alone. Time warp
// of whole commands takes any resolver.
func TestGameConfigErrors(t *testing.T) {
	for _, cfg := range []Config{
		{Map: worldtest.Open(t), Shots: aimShots{}, TimeWarp: 100 * time.Millisecond, TimeWarpHitscanOnly: true, Policy: lagcomp.Config{Name: "none"}},
	} {
		if _, err := New(armed(cfg)); err == nil || !strings.Contains(err.Error(), "needs a resolver that says which shots are hitscan") {
			t.Errorf("shots %T, time warp %v: %v", cfg.Shots, cfg.TimeWarp, err)
		}
	}
	for _, shots := range []Shots{nil, rifles{weapon.Defaults()}, aimShots{}} {
		cfg := Config{Map: worldtest.Open(t), Shots: shots, TimeWarp: 100 * time.Millisecond, Policy: lagcomp.Config{Name: "none"}}
		if _, err := New(armed(cfg)); err != nil {
			t.Fatalf("time warp with shots %T: %v", shots, err)
		}
	}
}

// aimShots is a game's shot resolution for tests: one ray from the
// shooter's eye along its aim, 100 m, for the damage of the body part
// it hits.
type aimShots struct{}

func (aimShots) Fire(w *ShotWorld) {
	f := &w.Shot
	yaw, pitch := game.AngleToRad(int32(f.State.Yaw)), game.AngleToRad(int32(f.State.Pitch))
	ray := geom.Ray{Origin: f.Eye, Dir: geom.V(math.Cos(yaw)*math.Cos(pitch), math.Sin(yaw)*math.Cos(pitch), math.Sin(pitch))}
	if h, ok := w.Trace(ray, 100); ok {
		w.Hit(int16(h.Damage))
	}
}
