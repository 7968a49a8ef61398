package client

import (
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/shooter/weapon"
	"github.com/lagkit/lagkit/wire"
)

// shooterConfig is a client of lagkit's shooter with the rifle alone,
// as shooter.ArmClient configures one.
func shooterConfig() Config {
	ws, err := weapon.Loadout(nil)
	if err != nil {
		panic(err)
	}
	return Config{Step: weapon.StepFunc(ws), Game: weapon.Layout, ShotRays: weapon.ShotRays(ws)}
}

// armed is the local player's state in the snapshots of these tests:
// standing, its rifle loaded, so that a command holding fire shoots.
var armed = weapon.With(game.PlayerState{Pos: geom.V(5, 0, 0), Health: 100, Flags: game.FlagOnGround}, weapon.Arms{Ammo: 30})

// snapshotWith encodes, into buf, a full snapshot of tick n carrying
// events (their sequence numbers set), the local player at self after
// the newest command of c.
func snapshotWith(t testing.TB, c *Client, buf []byte, n uint32, self game.PlayerState, events []wire.Event) []byte {
	t.Helper()
	var s wire.Snapshot
	s.SetGame(c.cfg.Game)
	s.Tick, s.Self, s.Events = n, self, events
	s.LastCmd = c.nextCmd - min(c.nextCmd, 1)
	if len(events) > 0 {
		s.FirstEventSeq = events[0].Seq
	}
	b, err := wire.AppendSnapshot(buf[:0], &s, nil, wire.MaxDatagram)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// everyKind returns three events of every kind a Ready hands over in a
// list of its own, interleaved and numbered from 1, each told apart by
// its i.
func everyKind(t *testing.T) []wire.Event {
	var evs []wire.Event
	for i := range 3 {
		u := uint32(i)
		evs = append(evs,
			event(t, wire.EventHit, &wire.HitEvent{Shooter: 1, ShotTick: 100 + u, Part: game.PartTorso, Damage: 10,
				ShooterEye: geom.V(14, 0, 1.640625), Appeal: 1 + u, Deadline: time.Hour}, wire.AppendHitEvent),
			event(t, wire.EventConfirm, &wire.ConfirmEvent{ShotTick: 200 + u, Victim: 2, Part: game.PartHead, Damage: 30}, wire.AppendConfirmEvent),
			event(t, wire.EventVerdict, &wire.VerdictEvent{Appeal: 1 + u, Outcome: wire.OutcomeConfirmed}, wire.AppendVerdictEvent),
			event(t, wire.EventReportAck, &wire.ReportAck{Report: wire.Report{Seen: true, Shooter: 1, ShotTick: 300 + u}, Kept: i != 1}, wire.AppendReportAck),
			event(t, wire.EventKill, &wire.KillEvent{Killer: uint8(10 + i), Victim: 3}, wire.AppendKillEvent),
			event(t, wire.EventRewind, &wire.RewindEvent{Shooter: 0, Victim: 1, ShotTick: 400 + u}, wire.AppendRewindEvent),
			event(t, wire.EventProjectile, &wire.ProjectileEvent{ID: 500 + u, Owner: 1, Tick: 9}, wire.AppendProjectileEvent),
			event(t, wire.EventExplosion, &wire.ExplosionEvent{ID: 500 + u, Tick: 12, Radius: 3}, wire.AppendExplosionEvent),
			event(t, wire.EventTracer, &wire.TracerEvent{Shooter: uint8(20 + i), From: geom.V(1, 0, 1), To: geom.V(9, 0, 1)}, wire.AppendTracerEvent),
			event(t, wire.EventPlace, &wire.PlaceEvent{Teleport: uint8(i), Yaw: uint16(600 + i)}, wire.AppendPlaceEvent),
			wire.Event{Kind: wire.EventGameMin + uint16(i), Data: []byte{byte(i), 7}},
		)
	}
	for i := range evs {
		evs[i].Seq = uint32(i + 1)
	}
	return evs
}

// TestReadyHandsOverEachEventOnce: every kind of event a Ready holds
// (hits with their appeals, sightings, confirmations, verdicts, report
// answers, kills, rewinds, projectiles, explosions, tracers,
// placements, game events, notes, shots, session changes, snapshots)
// is handed over once, in order, in exactly one Ready, however the
// snapshots carrying them are repeated and reordered and whenever the
// driver takes its Readys; and the span's counts add up to the
// client's counters.
func TestReadyHandsOverEachEventOnce(t *testing.T) {
	for seed := range uint64(20) {
		c := connected(t, shooterConfig())
		rng := rand.New(rand.NewPCG(seed, 1))
		evs := everyKind(t)
		var all Ready // every Ready's lists, concatenated
		var counts Stats
		appeals := map[uint32]bool{}
		take := func(r *Ready) {
			for _, d := range r.Messages {
				var a wire.Appeal
				if typ, _ := wire.PeekType(d.Data); typ == wire.MsgAppeal && wire.DecodeAppeal(d.Data, &a) == nil {
					appeals[a.ID] = true
				}
			}
			all.Session = append(all.Session, r.Session...)
			all.Snapshots = append(all.Snapshots, r.Snapshots...)
			all.Shots = append(all.Shots, r.Shots...)
			all.Hits = append(all.Hits, r.Hits...)
			all.Sightings = append(all.Sightings, r.Sightings...)
			all.Confirms = append(all.Confirms, r.Confirms...)
			all.Verdicts = append(all.Verdicts, r.Verdicts...)
			all.ReportAnswers = append(all.ReportAnswers, r.ReportAnswers...)
			all.Kills = append(all.Kills, r.Kills...)
			all.Rewinds = append(all.Rewinds, r.Rewinds...)
			all.Projectiles = append(all.Projectiles, r.Projectiles...)
			all.Explosions = append(all.Explosions, r.Explosions...)
			all.Tracers = append(all.Tracers, r.Tracers...)
			all.Placements = append(all.Placements, r.Placements...)
			for _, e := range r.GameEvents {
				all.GameEvents = append(all.GameEvents, wire.Event{Seq: e.Seq, Kind: e.Kind, Data: slices.Clone(e.Data)})
			}
			for _, e := range r.Notes {
				all.Notes = append(all.Notes, wire.Event{Seq: e.Seq, Kind: e.Kind, Data: slices.Clone(e.Data)})
			}
			all.PredictionErrors = append(all.PredictionErrors, r.PredictionErrors...)
			all.Predictions += r.Predictions
			counts = counts.add(&r.Counts)
		}
		// The snapshots carry runs of events from a little before the
		// next one the client lacks to a little after (held until the
		// one before arrives), until all came.
		var buf []byte
		n := uint32(10)
		for next := int(c.nextEvent); next <= len(evs); next = int(c.nextEvent) {
			if n > 1000 {
				t.Fatalf("seed %d: event %d never delivered", seed, next)
			}
			from := min(len(evs), max(1, next-2+rng.IntN(6)))
			to := min(len(evs), from+rng.IntN(8))
			buf = snapshotWith(t, c, buf, n, armed, evs[from-1:to])
			if err := c.Step(time.Duration(n)*tick, buf); err != nil {
				t.Fatal(err)
			}
			switch rng.IntN(3) {
			case 0:
				take(c.Ready())
			case 1:
				take(c.Tick(time.Duration(n)*tick, game.UserCmd{Buttons: game.BtnFire}))
			}
			n++
		}
		take(c.Tick(time.Duration(n)*tick, game.UserCmd{Buttons: game.BtnFire}))
		take(c.Ready())

		if len(all.Notes) != len(evs) {
			t.Fatalf("seed %d: %d notes, want %d", seed, len(all.Notes), len(evs))
		}
		for i, e := range all.Notes {
			if e.Seq != evs[i].Seq || e.Kind != evs[i].Kind || !slices.Equal(e.Data, evs[i].Data) {
				t.Fatalf("seed %d: note %d is %+v, want %+v", seed, i, e, evs[i])
			}
		}
		for i := range 3 {
			u := uint32(i)
			switch {
			case len(all.Hits) != 3 || all.Hits[i].ShotTick != 100+u || all.Hits[i].Appeal != 1+u:
				t.Fatalf("seed %d: hits %+v", seed, all.Hits)
			case len(all.Sightings) != 3 || all.Sightings[i] != (wire.Sighting{Shooter: 1, ShotTick: 100 + u, Part: game.PartTorso, SBC: all.Hits[i].SBC}):
				t.Fatalf("seed %d: sightings %+v", seed, all.Sightings)
			case len(all.Confirms) != 3 || all.Confirms[i].ShotTick != 200+u:
				t.Fatalf("seed %d: confirms %+v", seed, all.Confirms)
			case len(all.Verdicts) != 3 || all.Verdicts[i].Appeal != 1+u:
				t.Fatalf("seed %d: verdicts %+v", seed, all.Verdicts)
			case len(all.ReportAnswers) != 3 || all.ReportAnswers[i].Report.ShotTick != 300+u || all.ReportAnswers[i].Kept != (i != 1):
				t.Fatalf("seed %d: report answers %+v", seed, all.ReportAnswers)
			case len(all.Kills) != 3 || all.Kills[i].Killer != uint8(10+i):
				t.Fatalf("seed %d: kills %+v", seed, all.Kills)
			case len(all.Rewinds) != 3 || all.Rewinds[i].ShotTick != 400+u:
				t.Fatalf("seed %d: rewinds %+v", seed, all.Rewinds)
			case len(all.Projectiles) != 3 || all.Projectiles[i].ID != 500+u || len(all.Explosions) != 3 || all.Explosions[i].ID != 500+u:
				t.Fatalf("seed %d: projectiles %+v, explosions %+v", seed, all.Projectiles, all.Explosions)
			case len(all.Tracers) != 3 || all.Tracers[i].Shooter != uint8(20+i):
				t.Fatalf("seed %d: tracers %+v", seed, all.Tracers)
			case len(all.Placements) != 3 || all.Placements[i].Yaw != uint16(600+i):
				t.Fatalf("seed %d: placements %+v", seed, all.Placements)
			case len(all.GameEvents) != 3 || all.GameEvents[i].Kind != wire.EventGameMin+uint16(i) || !slices.Equal(all.GameEvents[i].Data, []byte{byte(i), 7}):
				t.Fatalf("seed %d: game events %+v", seed, all.GameEvents)
			}
		}
		if len(appeals) != 3 {
			t.Errorf("seed %d: appeals sent for %v, want the three provisional hits", seed, appeals)
		}
		if len(all.Session) != 1 || all.Session[0] != (SessionChange{Kind: SessionConnected}) {
			t.Errorf("seed %d: session changes %+v, want the acceptance once", seed, all.Session)
		}
		if len(all.Snapshots) != int(n-10) || !all.Snapshots[0].First || all.Snapshots[1].First {
			t.Errorf("seed %d: %d snapshots handed over of %d, first %+v", seed, len(all.Snapshots), n-10, all.Snapshots[0])
		}
		for i, s := range all.Snapshots {
			if s.Tick != uint32(10+i) {
				t.Fatalf("seed %d: snapshot %d of tick %d, want %d", seed, i, s.Tick, 10+i)
			}
		}
		st := c.Stats()
		if len(all.Shots) == 0 || len(all.Shots) != st.Shots {
			t.Errorf("seed %d: %d shots handed over, %d fired", seed, len(all.Shots), st.Shots)
		}
		for i := 1; i < len(all.Shots); i++ {
			if all.Shots[i].Cmd.Tick <= all.Shots[i-1].Cmd.Tick {
				t.Fatalf("seed %d: shot of command %d after %d", seed, all.Shots[i].Cmd.Tick, all.Shots[i-1].Cmd.Tick)
			}
		}
		if len(all.PredictionErrors) != all.Predictions {
			t.Errorf("seed %d: %d prediction errors of %d predictions", seed, len(all.PredictionErrors), all.Predictions)
		}
		if counts.SnapshotsReceived != st.SnapshotsReceived || counts.Shots != st.Shots || counts.Appeals != st.Appeals ||
			counts.ReportsKept != 2 || counts.ReportsRefused != 1 || counts.CommandsSent != st.CommandsSent {
			t.Errorf("seed %d: counts %+v, client's %+v", seed, counts, st)
		}
	}
}

// add returns the counters of s plus those of o (the inverse of sub).
func (s Stats) add(o *Stats) Stats {
	var zero Stats
	neg := zero.sub(o)
	return s.sub(&neg)
}

// TestReadySessionChanges: the acceptance, a refusal and an end are
// each handed over once, with what the driver needs of them.
func TestReadySessionChanges(t *testing.T) {
	c := connected(t, shooterConfig())
	if s := c.Ready().Session; len(s) != 1 || s[0].Kind != SessionConnected {
		t.Fatalf("acceptance: %+v", s)
	}
	c.Disconnect("done")
	r := c.Ready()
	if len(r.Session) != 1 || r.Session[0] != (SessionChange{Kind: SessionEnded, Reason: "done"}) || len(r.Messages) != 1 {
		t.Fatalf("the client's end: %+v, %d datagrams", r.Session, len(r.Messages))
	}
	if r := c.Tick(time.Second, game.UserCmd{}); len(r.Session) != 0 || len(r.Messages) != 0 {
		t.Fatalf("after the end: %+v", r)
	}

	other, err := New(Config{Map: c.cfg.Map})
	if err != nil {
		t.Fatal(err)
	}
	other.Connect(0)
	b, _ := wire.AppendAccept(nil, &wire.Accept{ClientID: 3, TickRate: 64, Map: "dust"})
	if err := other.Step(0, b); err != nil {
		t.Fatal(err)
	}
	r = other.Ready()
	if len(r.Session) != 1 || r.Session[0].Kind != SessionRefused || r.Session[0].ServerMap != "dust" || r.Session[0].Reason != other.Reason() {
		t.Fatalf("another map: %+v", r.Session)
	}
}

// TestStatsSubCoversEveryCounter: Ready's Counts are Stats for the span
// alone; sub, which makes them, subtracts every counter of Stats.
func TestStatsSubCoversEveryCounter(t *testing.T) {
	var a, b Stats
	va, vb := reflect.ValueOf(&a).Elem(), reflect.ValueOf(&b).Elem()
	for i := range va.NumField() {
		va.Field(i).SetInt(int64(10 + i))
		vb.Field(i).SetInt(int64(3))
	}
	d := reflect.ValueOf(a.sub(&b))
	for i := range d.NumField() {
		if got := d.Field(i).Int(); got != int64(7+i) {
			t.Errorf("%s: %d, want %d", d.Type().Field(i).Name, got, 7+i)
		}
	}
}

// heapAfter returns the live heap after a collection.
func heapAfter() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// play steps c through snapshots from tick *n on, one a tick, each
// carrying a hit, a kill, a tracer, a placement and a game event
// numbered from *seq, ticking with fire held after each; take gets
// every Ready (or nothing: the driver ignores them).
func play(t testing.TB, c *Client, ticks int, n, seq *uint32, buf []byte, evs []wire.Event, tickToo bool) []byte {
	for range ticks {
		for i := range evs {
			evs[i].Seq = *seq + uint32(i)
		}
		*seq += uint32(len(evs))
		buf = snapshotWith(t, c, buf, *n, armed, evs)
		if err := c.Step(time.Duration(*n)*tick, buf); err != nil {
			t.Fatal(err)
		}
		if tickToo {
			c.Tick(time.Duration(*n)*tick, game.UserCmd{Buttons: game.BtnFire})
		}
		*n++
	}
	return buf
}

// steady returns the events play sends each tick.
func steady(t testing.TB) []wire.Event {
	var evs []wire.Event
	add := func(kind uint16, b []byte, err error) {
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, wire.Event{Kind: kind, Data: b})
	}
	b, err := wire.AppendHitEvent(nil, &wire.HitEvent{Shooter: 1, ShotTick: 5, Part: game.PartTorso, Damage: 1, ShooterEye: geom.V(14, 0, 1.640625)})
	add(wire.EventHit, b, err)
	b, err = wire.AppendKillEvent(nil, &wire.KillEvent{Killer: 1, Victim: 2})
	add(wire.EventKill, b, err)
	b, err = wire.AppendTracerEvent(nil, &wire.TracerEvent{Shooter: 1, From: geom.V(1, 0, 1), To: geom.V(9, 0, 1)})
	add(wire.EventTracer, b, err)
	b, err = wire.AppendPlaceEvent(nil, &wire.PlaceEvent{Yaw: 90})
	add(wire.EventPlace, b, err)
	add(wire.EventGameMin, []byte("dash"), nil)
	return evs
}

// TestReadyUnreadKeepsNothing: a driver that ticks and never looks at
// what Tick hands over keeps nothing: the live heap after 12,000 ticks
// of snapshots full of events is what it was after 2,000, and the
// Readys' buffers hold one tick's worth.
func TestReadyUnreadKeepsNothing(t *testing.T) {
	c := connected(t, shooterConfig())
	c.Ready()
	n, seq := uint32(10), uint32(1)
	evs := steady(t)
	buf := play(t, c, 2000, &n, &seq, nil, evs, true)
	before := heapAfter()
	play(t, c, 10000, &n, &seq, buf, evs, true)
	after := heapAfter()
	t.Logf("live heap %d B after 2,000 ticks, %d B after 12,000", before, after)
	if after > before+64<<10 {
		t.Errorf("live heap grew from %d to %d bytes over 10,000 unread ticks", before, after)
	}
	for _, r := range []*Ready{c.ready.cur, c.ready.out} {
		if cap(r.Hits) > 16 || cap(r.Kills) > 16 || cap(r.Notes) > 16 || cap(r.GameEvents) > 16 || cap(r.Messages) > 16 || cap(r.data) > 1024 {
			t.Errorf("buffers grew: hits %d, kills %d, notes %d, game events %d, messages %d, data %d",
				cap(r.Hits), cap(r.Kills), cap(r.Notes), cap(r.GameEvents), cap(r.Messages), cap(r.data))
		}
	}
	if st := c.Stats(); st.Shots < 20 || st.SnapshotsReceived != 12000 {
		t.Fatalf("stats %+v: want shots and every snapshot taken", st)
	}
}

// TestReadyNeverTakenIsBounded: a driver that steps datagrams and never
// takes a Ready (no Tick, no Ready) keeps at most maxSpan datagrams'
// worth of events: the span is dropped, and the next Ready says so and
// still counts everything.
func TestReadyNeverTakenIsBounded(t *testing.T) {
	c := connected(t, shooterConfig())
	c.Ready()
	n, seq := uint32(10), uint32(1)
	evs := steady(t)
	buf := play(t, c, 3*maxSpan+10, &n, &seq, nil, evs, false)
	if h := len(c.ready.cur.Hits); h > maxSpan {
		t.Fatalf("%d hits held, want at most maxSpan", h)
	}
	r := c.Ready()
	if r.Discarded != 3 || len(r.Kills) != 10 || r.Counts.SnapshotsReceived != 3*maxSpan+10 {
		t.Fatalf("discarded %d, %d kills, %d snapshots counted; want 3, the last 10, all", r.Discarded, len(r.Kills), r.Counts.SnapshotsReceived)
	}
	play(t, c, 5, &n, &seq, buf, evs, false)
	if r := c.Ready(); r.Discarded != 0 || len(r.Kills) != 5 {
		t.Fatalf("after a handover: discarded %d, %d kills", r.Discarded, len(r.Kills))
	}
}

// BenchmarkReady is a client's steady state: one snapshot of five
// events stepped (encoded each time), one command predicted with fire
// held, and the handover read. It allocates nothing.
func BenchmarkReady(b *testing.B) {
	b.ReportAllocs()
	c := connected(b, shooterConfig())
	c.Ready()
	n, seq := uint32(10), uint32(1)
	evs := steady(b)
	buf := play(b, c, 100, &n, &seq, nil, evs, true)
	events := 0
	for b.Loop() {
		for i := range evs {
			evs[i].Seq = seq + uint32(i)
		}
		seq += uint32(len(evs))
		buf = snapshotWith(b, c, buf, n, armed, evs)
		if err := c.Step(time.Duration(n)*tick, buf); err != nil {
			b.Fatal(err)
		}
		r := c.Tick(time.Duration(n)*tick, game.UserCmd{Buttons: game.BtnFire})
		events += len(r.Notes)
		n++
	}
	if events == 0 {
		b.Fatal("no events handed over")
	}
}
