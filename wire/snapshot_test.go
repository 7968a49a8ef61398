package wire

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/shooter/weapon"
)

// roundTrip encodes s against base with limit, decodes the result, and
// fails unless the decoded snapshot equals what the encoder left in s.
func roundTrip(t *testing.T, s, base *Snapshot, limit int) []byte {
	t.Helper()
	b, err := AppendSnapshot(nil, s, base, limit)
	if err != nil {
		t.Fatalf("AppendSnapshot: %v", err)
	}
	if len(b) > limit {
		t.Fatalf("encoded %d bytes, limit %d", len(b), limit)
	}
	got := Snapshot{HealthToAll: s.HealthToAll, Game: s.Game} // the session's
	got.SetSlots(s.Slots())
	if err := DecodeSnapshot(b, &got, baselineOf(base)); err != nil {
		t.Fatalf("DecodeSnapshot: %v", err)
	}
	if d := diffSnapshot(&got, s); d != "" {
		t.Fatalf("decoded snapshot differs: %s", d)
	}
	return b
}

func TestSnapshotRoundTripRandom(t *testing.T) {
	for seed := range uint64(300) {
		rng := rand.New(rand.NewPCG(seed, 1))
		base := randSnapshot(rng, 1+rng.Uint32N(1000))
		limit := MaxDatagram
		if seed%3 == 0 {
			limit = 100 + rng.IntN(MaxDatagram-100)
		}
		t.Run("", func(t *testing.T) {
			t.Logf("seed %d", seed)
			full := cloneSnapshot(base)
			full.Events = full.Events[:min(len(full.Events), 2)]
			roundTrip(t, full, nil, MaxDatagram)
			// full is now what a receiver holds: delta against it.
			s := randNext(rng, full)
			roundTrip(t, s, full, limit)
		})
	}
}

func TestSnapshotRoundTripEdges(t *testing.T) {
	edge := EntityState{X: MaxCoord, Y: -MaxCoord, Z: MaxCoord, Yaw: 65535, Pitch: -game.MaxPitch, Flags: 255, Teleport: 255}
	opposite := EntityState{X: -MaxCoord, Y: MaxCoord, Z: -MaxCoord, Pitch: game.MaxPitch}
	maxSelf := weapon.With(game.PlayerState{
		Pos:   geom.V(MaxCoord*game.PosQuantum, -MaxCoord*game.PosQuantum, 0.5),
		Vel:   geom.V(-MaxCoord*game.VelQuantum, 0, MaxCoord*game.VelQuantum),
		Yaw:   65535,
		Pitch: game.MaxPitch,
		Flags: 255, Teleport: 255,
		Health: math.MinInt16,
	}, weapon.Arms{Ammo: 255, Heat: 255, Wait: weapon.MaxWait, Weapon: 255})
	arms := weapon.Layout // lagkit's own game's declared state
	tests := []struct {
		name    string
		s, base *Snapshot
	}{
		{"empty full", &Snapshot{Tick: 1}, nil},
		{"tick wraps", &Snapshot{Tick: 3, Baseline: 1<<32 - 2}, &Snapshot{Tick: 1<<32 - 2}},
		{"baseline equals tick", &Snapshot{Tick: 9, Baseline: 9}, &Snapshot{Tick: 9}},
		{"max header", &Snapshot{Tick: 1<<32 - 1, LastCmd: 1<<32 - 1, EchoClientTime: MaxClock,
			EchoHold: MaxDelay, FirstEventSeq: 1<<32 - 1, Self: maxSelf, Game: arms}, nil},
		{"self swings across the range", &Snapshot{Tick: 2, Baseline: 1, Self: maxSelf, Game: arms},
			&Snapshot{Tick: 1, Game: arms, Self: weapon.With(game.PlayerState{Pos: maxSelf.Pos.Scale(-1), Vel: maxSelf.Vel.Scale(-1),
				Health: math.MaxInt16}, weapon.Arms{Wait: time.Microsecond})}},
		{"self weapon wait falls to zero", &Snapshot{Tick: 2, Baseline: 1, Self: game.PlayerState{Health: 100}, Game: arms},
			&Snapshot{Tick: 1, Game: arms, Self: weapon.With(game.PlayerState{Health: 100}, weapon.Arms{Ammo: 30, Heat: 9, Wait: weapon.MaxWait})}},
		{"largest deltas", func() *Snapshot {
			s := &Snapshot{Tick: 2, Baseline: 1}
			s.SetSlots(MaxEntities)
			s.Entities[0], s.Entities[255] = edge, opposite
			s.SetPresent(0, true)
			s.SetPresent(255, true)
			return s
		}(), func() *Snapshot {
			s := &Snapshot{Tick: 1}
			s.SetSlots(MaxEntities)
			s.Entities[0], s.Entities[255] = opposite, edge
			s.SetPresent(0, true)
			s.SetPresent(255, true)
			return s
		}()},
		{"events at their limits", &Snapshot{Tick: 5, FirstEventSeq: 1<<32 - 2, Events: []Event{
			{Seq: 1<<32 - 2, Kind: 65535, Data: make([]byte, MaxEventData)}, {Seq: 1<<32 - 1, Kind: 0},
			{Seq: MaxEventWindow - 3, Kind: 1, Data: []byte{1}}}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, start := range []int{0, 7, 200} {
				s, base := cloneSnapshot(tt.s), tt.base
				s.Tick += uint32(start) // moves the rotation start
				if base != nil {
					base = cloneSnapshot(base)
					base.Tick += uint32(start)
					s.Baseline = base.Tick
				}
				want := cloneSnapshot(s)
				roundTrip(t, s, base, MaxDatagram)
				if d := diffSnapshot(s, want); d != "" {
					t.Errorf("encoder changed s although everything fits: %s", d)
				}
			}
		})
	}
}

// TestSelfFieldCosts checks the cost of Self against a baseline: one bit
// for each unchanged field (11 in all), and a changed field's width more
// for a changed one.
func TestSelfFieldCosts(t *testing.T) {
	ref := game.PlayerState{Pos: geom.V(1, 2, 0), Yaw: 9, Flags: game.FlagOnGround, Health: 100}
	const unchanged = 11
	tests := []struct {
		name   string
		change func(p *game.PlayerState)
		extra  int
	}{
		{"nothing", func(*game.PlayerState) {}, 0},
		{"health", func(p *game.PlayerState) { p.Health -= 25 }, 16},
		{"dead", func(p *game.PlayerState) { p.Flags |= game.FlagDead }, 8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := ref
			tt.change(&p)
			w := bitWriter{}
			writeSelf(&w, &p, &ref)
			if w.pos() != unchanged+tt.extra {
				t.Errorf("%d bits, want %d", w.pos(), unchanged+tt.extra)
			}
			r := bitReader{b: w.buf}
			got := ref
			readSelf(&r, &got, "self")
			if err := r.finish(); err != nil || got != p {
				t.Errorf("decoded %+v, %v; want %+v", got, err, p)
			}
		})
	}
}

// TestSnapshotSizeWalking checks lagkit's bandwidth budget: 63 remote
// players walking at 4 m/s (about 0.4 m between baseline and current, 6
// ticks at 64 Hz) plus Self in well under 500 bytes.
func TestSnapshotSizeWalking(t *testing.T) {
	for _, turn := range []bool{false, true} {
		base := Walkers(1000, turn)
		full := roundTrip(t, cloneSnapshot(base), nil, MaxDatagram)
		s := Walkers(1006, turn)
		s.Baseline = base.Tick
		delta := roundTrip(t, s, base, MaxDatagram)
		t.Logf("turning %v: full %d bytes, delta %d bytes", turn, len(full), len(delta))
		if len(delta) >= 400 {
			t.Errorf("turning %v: delta of 63 walkers is %d bytes, want under 400", turn, len(delta))
		}
		if len(full) > MaxDatagram {
			t.Errorf("turning %v: full snapshot of 63 walkers is %d bytes", turn, len(full))
		}
	}
}

// TestSnapshotLimitLeavesOutEntities fills all 256 slots in a full
// snapshot limited to 1100 bytes: the entities from the tick's rotation
// start on are sent until the space runs out, the rest are left out of s,
// and the receiver decodes exactly s.
func TestSnapshotLimitLeavesOutEntities(t *testing.T) {
	const tick = 77
	s := &Snapshot{Tick: tick}
	s.SetSlots(MaxEntities)
	for i := range s.Entities {
		// The same cost for every entity: X and Y in the 16-bit bucket.
		s.Entities[i] = EntityState{X: 20000 + int32(i), Y: -20000, Yaw: 1, Pitch: 1, Flags: 1, Teleport: 1}
		s.SetPresent(i, true)
	}
	orig := cloneSnapshot(s)
	b := roundTrip(t, s, nil, MaxDatagram)

	first := tick * 159 % MaxEntities // rotationStep(MaxEntities)
	sent := 0
	for sent < MaxEntities && s.Has((first+sent)%MaxEntities) {
		sent++
	}
	for k := sent; k < MaxEntities; k++ {
		i := (first + k) % MaxEntities
		if s.Has(i) || s.Entities[i] != (EntityState{}) {
			t.Fatalf("slot %d (rotated %d) is in s after the first gap at %d", i, k, sent)
		}
	}
	for k := range sent {
		i := (first + k) % MaxEntities
		if s.Entities[i] != orig.Entities[i] {
			t.Fatalf("slot %d: sent entity changed", i)
		}
	}
	// Each entity costs 1+19+19+1+17+17+9+9 = 92 bits (the first one 99): no
	// room may be left for one more beside the declared state's reserve
	// (lagkit's own Arms, most of it unused when they do not change).
	const entityBits = 92
	if sent == 0 || (MaxDatagram-len(b))*8 >= entityBits+7+gameReserve(s) {
		t.Errorf("sent %d entities in %d bytes, room left for more", sent, len(b))
	}
	t.Logf("sent %d of 256 entities in %d bytes", sent, len(b))
}

// TestSnapshotLimitNoStarvation runs a server's loop with more changed
// entities than fit: every tick each entity moves, the snapshot is delta
// encoded against the previous one sent (acknowledged at once), and every
// entity must reach the receiver within a few ticks.
func TestSnapshotLimitNoStarvation(t *testing.T) {
	var base *Snapshot
	lastSent := [MaxEntities]int{}
	worst := 0
	for tick := uint32(1); tick <= 200; tick++ {
		s := &Snapshot{Tick: tick}
		s.SetSlots(MaxEntities)
		if base != nil {
			s.Baseline = base.Tick
		}
		for i := range s.Entities {
			s.Entities[i] = EntityState{X: int32(i*1000) + int32(tick)*7, Y: int32(tick), Yaw: uint16(tick)}
			s.SetPresent(i, true)
		}
		want := cloneSnapshot(s)
		roundTrip(t, s, base, 300)
		for i := range s.Entities {
			if s.Entities[i] == want.Entities[i] {
				worst = max(worst, int(tick)-lastSent[i]-1)
				lastSent[i] = int(tick)
			}
		}
		base = s
	}
	for i, last := range lastSent {
		worst = max(worst, 200-last)
		if last == 0 {
			t.Fatalf("entity %d never sent", i)
		}
	}
	t.Logf("longest run of ticks an entity was left out: %d", worst)
	if worst > 8 {
		t.Errorf("an entity was left out for %d ticks in a row", worst)
	}
}

func TestSnapshotEventsTruncated(t *testing.T) {
	s := &Snapshot{Tick: 4, FirstEventSeq: 10}
	s.SetSlots(MaxEntities)
	for i := range 40 {
		s.Events = append(s.Events, Event{Seq: 10 + uint32(i), Kind: uint16(i), Data: make([]byte, 100)})
	}
	s.Entities[3] = EntityState{X: 1}
	s.SetPresent(3, true)
	roundTrip(t, s, nil, 400)
	// 3 events of 102 bytes fit in 400 bytes with the header.
	if len(s.Events) != 3 || s.Events[2].Kind != 2 {
		t.Errorf("sent %d events, want the first 3", len(s.Events))
	}
	s = &Snapshot{Tick: 4, Events: make([]Event, 40)}
	for i := range s.Events {
		s.Events[i].Seq = uint32(i)
	}
	roundTrip(t, s, nil, MaxDatagram)
	if len(s.Events) != MaxEvents {
		t.Errorf("sent %d empty events, want MaxEvents", len(s.Events))
	}
}

func TestSnapshotRemovedAndAdded(t *testing.T) {
	base := &Snapshot{Tick: 10}
	base.SetSlots(MaxEntities)
	for _, i := range []int{1, 2, 3} {
		base.Entities[i] = EntityState{X: int32(i)}
		base.SetPresent(i, true)
	}
	s := &Snapshot{Tick: 12, Baseline: 10}
	s.SetSlots(MaxEntities)
	s.Entities[2] = base.Entities[2]
	s.SetPresent(2, true)
	s.Entities[4] = EntityState{X: 4, Yaw: 4}
	s.SetPresent(4, true)
	s.Entities[9] = EntityState{X: 99} // absent: zeroed
	roundTrip(t, s, base, MaxDatagram)
	for i, want := range []bool{false, false, true, false, true, false, false, false, false, false} {
		if s.Has(i) != want {
			t.Errorf("slot %d present %v, want %v", i, s.Has(i), want)
		}
	}
	if s.Entities[9] != (EntityState{}) {
		t.Errorf("absent slot 9 not zeroed: %+v", s.Entities[9])
	}
}

func TestAppendSnapshotErrors(t *testing.T) {
	offGrid := &Snapshot{Tick: 1}
	offGrid.Self.Pos.X = 0.001
	badEntity := &Snapshot{Tick: 1}
	badEntity.SetSlots(MaxEntities)
	badEntity.Entities[7].X = MaxCoord + 1
	badEntity.SetPresent(7, true)
	badPitch := &Snapshot{Tick: 1}
	badPitch.SetSlots(MaxEntities)
	badPitch.Entities[3].Pitch = game.MaxPitch + 1
	badPitch.SetPresent(3, true)
	tests := []struct {
		name    string
		s, base *Snapshot
		limit   int
		want    string
	}{
		{"limit above MaxDatagram", &Snapshot{Tick: 1}, nil, MaxDatagram + 1, "limit"},
		{"limit 0", &Snapshot{Tick: 1}, nil, 0, "limit"},
		{"limit too small for self", &Snapshot{Tick: 1, EchoHold: 1500, Game: weapon.Layout}, nil, 14, "no room after self"},
		{"baseline without base", &Snapshot{Tick: 2, Baseline: 1}, nil, MaxDatagram, "without a base"},
		{"baseline mismatch", &Snapshot{Tick: 3, Baseline: 1}, &Snapshot{Tick: 2}, MaxDatagram, "base is tick 2"},
		{"base tick 0", &Snapshot{Tick: 3}, &Snapshot{}, MaxDatagram, "base tick 0"},
		{"negative hold", &Snapshot{Tick: 1, EchoHold: -1}, nil, MaxDatagram, "echo hold"},
		{"clock too large", &Snapshot{Tick: 1, EchoClientTime: MaxClock + time.Microsecond}, nil, MaxDatagram, "echo client time"},
		{"self off grid", offGrid, nil, MaxDatagram, "self position off the PosQuantum grid"},
		{"base self off grid", &Snapshot{Tick: 2, Baseline: 1}, &Snapshot{Tick: 1, Self: offGrid.Self}, MaxDatagram,
			"base self position off the PosQuantum grid"},
		{"entity out of range", badEntity, nil, MaxDatagram, "entity 7: position out of range"},
		{"entity pitch", badPitch, nil, MaxDatagram, "entity 3: pitch out of range"},
		{"event too long", &Snapshot{Tick: 1, Events: []Event{{}, {Seq: 1, Data: make([]byte, 256)}}}, nil, MaxDatagram, "event 1: data of 256 bytes"},
		{"event out of order", &Snapshot{Tick: 1, FirstEventSeq: 4, Events: []Event{{Seq: 6}, {Seq: 5}}}, nil, MaxDatagram, "event 1: sequence number 5 not after"},
		{"event before the first", &Snapshot{Tick: 1, FirstEventSeq: 4, Events: []Event{{Seq: 3}}}, nil, MaxDatagram, "event 0: sequence number 3"},
		{"event beyond the window", &Snapshot{Tick: 1, FirstEventSeq: 4, Events: []Event{{Seq: 4 + MaxEventWindow}}}, nil, MaxDatagram, "event 0: sequence number 516"},
		{"base entity out of range", &Snapshot{Tick: 2, Baseline: 1}, badEntity, MaxDatagram, "base entity 7"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dst := []byte{0xAA}
			before := cloneSnapshot(tt.s)
			got, err := AppendSnapshot(dst, tt.s, tt.base, tt.limit)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "wire: snapshot: ") {
				t.Fatalf("error %v, want one containing %q", err, tt.want)
			}
			if len(got) != 1 || got[0] != 0xAA {
				t.Errorf("dst changed on error: %x", got)
			}
			if d := diffSnapshot(tt.s, before); d != "" {
				t.Errorf("s changed on error: %s", d)
			}
		})
	}
}

func TestDecodeSnapshotErrors(t *testing.T) {
	base := Walkers(100, true)
	s := Walkers(106, true)
	s.Baseline = base.Tick
	delta, err := AppendSnapshot(nil, s, base, MaxDatagram)
	if err != nil {
		t.Fatal(err)
	}
	full, err := AppendSnapshot(nil, cloneSnapshot(base), nil, MaxDatagram)
	if err != nil {
		t.Fatal(err)
	}
	var sn Snapshot
	if err := DecodeSnapshot(delta, &sn, nil); err == nil || err.Error() != "wire: snapshot: unknown baseline 100" {
		t.Errorf("nil baseline func: %v", err)
	}
	if err := DecodeSnapshot(delta, &sn, baselineOf(s)); err == nil || err.Error() != "wire: snapshot: unknown baseline 100" {
		t.Errorf("unknown baseline: %v", err)
	}
	stale := func(uint32) *Snapshot { return s }
	if err := DecodeSnapshot(delta, &sn, stale); err == nil || err.Error() != "wire: snapshot: baseline 100: got snapshot of tick 106" {
		t.Errorf("baseline of the wrong tick: %v", err)
	}
	badSelf := cloneSnapshot(base)
	badSelf.Self.Pitch = game.MaxPitch + 1
	if err := DecodeSnapshot(delta, &sn, baselineOf(badSelf)); err == nil ||
		err.Error() != "wire: snapshot: baseline self pitch out of range" {
		t.Errorf("baseline self out of range: %v", err)
	}
	for _, b := range [][]byte{delta, full} {
		for n := range len(b) - 1 {
			if err := DecodeSnapshot(b[:n], &sn, baselineOf(base)); err == nil {
				t.Fatalf("truncated to %d of %d bytes: no error", n, len(b))
			}
		}
		if err := DecodeSnapshot(append(b[:len(b):len(b)], 0), &sn, baselineOf(base)); err == nil ||
			!strings.Contains(err.Error(), "trailing") {
			t.Errorf("trailing byte: %v", err)
		}
	}
	// An entity moved out of range by a delta.
	far := cloneSnapshot(base)
	far.Entities[5].X = MaxCoord
	next := cloneSnapshot(far)
	next.Tick, next.Baseline = 101, 100
	next.Entities[5].X = -MaxCoord
	b, err := AppendSnapshot(nil, next, far, MaxDatagram)
	if err != nil {
		t.Fatal(err)
	}
	near := cloneSnapshot(far)
	near.Entities[5].X = -MaxCoord + 10 // the receiver's baseline disagrees
	if err := DecodeSnapshot(b, &sn, baselineOf(near)); err == nil || err.Error() != "wire: snapshot: entity 5: position out of range" {
		t.Errorf("delta out of range: %v", err)
	}
}

func TestDecodeSnapshotIntoBaseline(t *testing.T) {
	base := Walkers(50, true)
	s := Walkers(53, true)
	s.Baseline = base.Tick
	b, err := AppendSnapshot(nil, s, base, MaxDatagram)
	if err != nil {
		t.Fatal(err)
	}
	got := cloneSnapshot(base)
	if err := DecodeSnapshot(b, got, baselineOf(got)); err != nil {
		t.Fatal(err)
	}
	if d := diffSnapshot(got, s); d != "" {
		t.Errorf("decoding over the baseline itself: %s", d)
	}
}

func TestSnapshotAllocs(t *testing.T) {
	base := Walkers(1000, true)
	s := Walkers(1006, true)
	s.Baseline = base.Tick
	s.Events = []Event{{Seq: s.FirstEventSeq, Kind: 1, Data: []byte("hit")}}
	buf := make([]byte, 0, MaxDatagram)
	var out []byte
	if n := testing.AllocsPerRun(50, func() {
		out, _ = AppendSnapshot(buf[:0], s, base, MaxDatagram)
	}); n != 0 {
		t.Errorf("AppendSnapshot: %v allocations", n)
	}
	prio := make([]uint32, MaxEntities)
	c := cloneSnapshot(s)
	if n := testing.AllocsPerRun(50, func() {
		copy(c.Entities, s.Entities)
		copy(c.Present, s.Present)
		out, _ = AppendSnapshotBudget(buf[:0], c, base, MaxDatagram, 200, prio)
	}); n != 0 {
		t.Errorf("AppendSnapshotBudget: %v allocations", n)
	}
	out, _ = AppendSnapshot(buf[:0], s, base, MaxDatagram)
	sn := Snapshot{Events: make([]Event, 0, 4)}
	bl := baselineOf(base)
	if n := testing.AllocsPerRun(50, func() {
		if err := DecodeSnapshot(out, &sn, bl); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("DecodeSnapshot: %v allocations", n)
	}
}

func BenchmarkAppendSnapshot(b *testing.B) { benchAppend(b, Walkers(1000, true), Walkers(1006, true)) }

// BenchmarkAppendSnapshot12 encodes the snapshot of a 12-player match,
// the server's load for each client in the bots' matches.
func BenchmarkAppendSnapshot12(b *testing.B) { benchAppend(b, walkers12(1000), walkers12(1006)) }

// benchAppend measures encoding s against base.
func benchAppend(b *testing.B, base, s *Snapshot) {
	s.Baseline = base.Tick
	buf := make([]byte, 0, MaxDatagram)
	var out []byte
	b.ReportAllocs()
	for b.Loop() {
		out, _ = AppendSnapshot(buf[:0], s, base, MaxDatagram)
	}
	b.ReportMetric(float64(len(out)), "bytes/snapshot")
}

func BenchmarkDecodeSnapshot(b *testing.B) {
	base := Walkers(1000, true)
	s := Walkers(1006, true)
	s.Baseline = base.Tick
	data, err := AppendSnapshot(nil, s, base, MaxDatagram)
	if err != nil {
		b.Fatal(err)
	}
	var sn Snapshot
	sn.SetGame(base.Game) // the session's declaration, as a receiver sets it
	bl := baselineOf(base)
	b.ReportAllocs()
	for b.Loop() {
		if err := DecodeSnapshot(data, &sn, bl); err != nil {
			b.Fatal(err)
		}
	}
}

// TestSnapshotReusedKeepsAbsentZero checks that snapshots encoded from
// and decoded into the same storage over and over, as a server's and a
// client's rings are, still zero every slot that leaves: the encoder and
// decoder clear only the slots present when they last ran, and every
// decoded snapshot must equal the one sent, absent slots included.
func TestSnapshotReusedKeepsAbsentZero(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	var ring [4]Snapshot // the sender's, reused as a server reuses its ring
	var recv [4]Snapshot // the receiver's
	for tick := uint32(1); tick < 400; tick++ {
		s := &ring[tick%4]
		// As a server does: presence from scratch, present slots written.
		s.SetSlots(MaxEntities)
		s.Tick, s.Baseline, s.Events = tick, 0, nil
		clear(s.Present)
		for i := range MaxEntities {
			if rng.IntN(8) == 0 {
				s.Entities[i] = randEntity(rng)
				s.SetPresent(i, true)
			}
		}
		var base *Snapshot
		if tick > 2 && rng.IntN(3) != 0 {
			base = &ring[(tick-1)%4]
			s.Baseline = base.Tick
		}
		b, err := AppendSnapshot(nil, s, base, MaxDatagram)
		if err != nil {
			t.Fatal(err)
		}
		got := &recv[tick%4]
		if err := DecodeSnapshot(b, got, func(n uint32) *Snapshot {
			if r := &recv[n%4]; r.Tick == n {
				return r
			}
			return nil
		}); err != nil {
			t.Fatalf("tick %d: %v", tick, err)
		}
		if d := diffSnapshot(got, s); d != "" {
			t.Fatalf("tick %d: %s", tick, d)
		}
		for i := range MaxEntities {
			if !s.Has(i) && s.Entities[i] != (EntityState{}) {
				t.Fatalf("tick %d: absent slot %d holds %+v", tick, i, s.Entities[i])
			}
		}
	}
}
