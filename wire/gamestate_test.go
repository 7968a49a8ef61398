package wire

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
)

// wireState is a game's declared state of every kind and visibility.
type wireState struct {
	Boost   bool
	Stamina int16         `lagkit:"all,lerp"`
	Ammo    uint8         `lagkit:"owner,max=40"`
	Cool    time.Duration `lagkit:"owner,q=1ms,max=90s"`
	Team    int8          `lagkit:"min=0,max=1"`
	Hidden  int32         `lagkit:"-"`
	Inv     [2]uint16     `lagkit:"owner"`
	Shield  float32       `lagkit:"q=0.25,min=0,max=200"`
	Score   int64
}

var wireSchema = game.MustDeclare[wireState]()

// shown returns st as a receiver holds it: only the fields of
// visibility vis or wider, the others zero.
func shown(st game.State, vis game.Vis) game.State {
	l := wireSchema.Layout
	var out game.State
	for i, f := range l.Fields() {
		if f.Vis <= vis {
			l.SetUnits(&out, i, l.Units(&st, i))
		}
	}
	return out
}

func randWireState(rng *rand.Rand, s *wireState) {
	if rng.IntN(2) == 0 {
		s.Boost = !s.Boost
	}
	if rng.IntN(2) == 0 {
		s.Stamina += int16(rng.IntN(33) - 16)
	}
	if rng.IntN(3) == 0 {
		s.Ammo = uint8(rng.IntN(41))
	}
	if rng.IntN(2) == 0 {
		s.Cool = time.Duration(rng.IntN(90001)) * time.Millisecond
	}
	s.Team = int8(rng.IntN(2))
	s.Hidden = rng.Int32()
	s.Inv[rng.IntN(2)] = uint16(rng.Uint32())
	if rng.IntN(2) == 0 {
		s.Shield = float32(rng.IntN(801)) / 4
	}
	if rng.IntN(4) == 0 {
		s.Score = int64(rng.Uint64())
	}
}

// gameSnapshot returns a snapshot of tick with entities 3, 9 and 200
// present, each with a game state, and Self's.
func gameSnapshot(tick uint32, stamina int16) *Snapshot {
	s := &Snapshot{Tick: tick}
	s.SetGame(wireSchema.Layout)
	s.Self = game.PlayerState{Pos: geom.V(1, 2, 0), Health: 100}
	wireSchema.Set(&s.Self, wireState{Stamina: stamina, Ammo: 30, Cool: 75 * time.Second, Hidden: 9, Inv: [2]uint16{4, 500}, Shield: 99.5})
	for k, i := range []int{3, 9, 200} {
		s.SetPresent(i, true)
		s.Entities[i] = EntityFromState(game.PlayerState{Pos: game.SnapPos(geom.V(float64(i), 0, 0))})
		var e game.PlayerState
		wireSchema.Set(&e, wireState{Stamina: int16(k) * 100, Team: 1, Ammo: 7, Score: -10})
		s.EntityGame[i] = e.Game
	}
	return s
}

func decodeGame(t *testing.T, b []byte, base *Snapshot) *Snapshot {
	t.Helper()
	got := &Snapshot{}
	got.SetGame(wireSchema.Layout)
	if err := DecodeSnapshot(b, got, baselineOf(base)); err != nil {
		t.Fatal(err)
	}
	return got
}

func mustAppend(t *testing.T, s, base *Snapshot) []byte {
	t.Helper()
	b, err := AppendSnapshot(nil, s, base, MaxDatagram)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestGameStateRoundTrip: a game's declared state reaches the receiver,
// full and as deltas: Self with its owner's and everyone's fields, the
// entities with everyone's alone; unchanged entities cost no entry.
func TestGameStateRoundTrip(t *testing.T) {
	full := gameSnapshot(10, 50)
	got := decodeGame(t, mustAppend(t, full, nil), nil)
	if want := shown(full.Self.Game, game.VisOwner); got.Self.Game != want {
		t.Fatalf("self %+v, want %+v", wireSchema.Get(&got.Self), want)
	}
	if g := wireSchema.Of(&got.Self); g.Hidden != 0 || g.Cool != 75*time.Second || g.Inv[1] != 500 || g.Shield != 99.5 {
		t.Fatalf("self %+v", *g)
	}
	for _, i := range []int{3, 9, 200} {
		if want := shown(full.EntityGame[i], game.VisAll); got.EntityGame[i] != want {
			t.Fatalf("entity %d: %x, want %x", i, got.EntityGame[i], want)
		}
	}
	if e := (game.PlayerState{Game: got.EntityGame[9]}); wireSchema.Of(&e).Ammo != 0 || wireSchema.Of(&e).Stamina != 100 {
		t.Fatalf("entity 9 got %+v: the owner's ammo must stay with the owner", wireSchema.Get(&e))
	}

	// The same state again: a bit a field for Self, no entries.
	same := gameSnapshot(11, 50)
	same.Baseline = 10
	withGame := mustAppend(t, same, full)
	plain, plainBase := *same, *full
	plain.Game, plain.EntityGame, plain.Self.Game = nil, nil, game.State{}
	plainBase.Game, plainBase.EntityGame, plainBase.Self.Game = nil, nil, game.State{}
	without := mustAppend(t, &plain, &plainBase)
	if d := len(withGame) - len(without); d > 3 {
		t.Errorf("unchanged game state costs %d bytes", d)
	}

	// Changed: stamina down, entity 9 removed, entity 40 added.
	next := gameSnapshot(12, 47)
	next.Baseline = 10
	next.SetPresent(9, false)
	next.Entities[9], next.EntityGame[9] = EntityState{}, game.State{}
	next.SetPresent(40, true)
	next.Entities[40] = EntityFromState(game.PlayerState{Pos: geom.V(4, 0, 0)})
	var e40 game.PlayerState
	wireSchema.Set(&e40, wireState{Boost: true, Stamina: 7, Shield: 0.25})
	next.EntityGame[40] = e40.Game
	b := mustAppend(t, next, full)
	held := decodeGame(t, mustAppend(t, full, nil), nil)
	got = decodeGame(t, b, held)
	if wireSchema.Of(&got.Self).Stamina != 47 {
		t.Fatalf("delta: self %+v", wireSchema.Get(&got.Self))
	}
	for i := range MaxEntities {
		if want := shown(next.EntityGame[i], game.VisAll); got.EntityGame[i] != want {
			t.Fatalf("delta: entity %d: %x, want %x", i, got.EntityGame[i], want)
		}
	}
	// Decoding in place, against itself as baseline.
	inPlace := decodeGame(t, mustAppend(t, full, nil), nil)
	if err := DecodeSnapshot(b, inPlace, func(uint32) *Snapshot { return inPlace }); err != nil {
		t.Fatal(err)
	}
	if d := diffSnapshot(inPlace, got); d != "" {
		t.Fatal("in place decoding differs:", d)
	}
}

// TestGameStateLimit: entries that do not fit are left out, and the
// sender's snapshot keeps what the receiver will hold.
func TestGameStateLimit(t *testing.T) {
	s := &Snapshot{Tick: 5}
	s.SetGame(wireSchema.Layout)
	for i := range MaxEntities {
		s.SetPresent(i, true)
		var e game.PlayerState
		wireSchema.Set(&e, wireState{Stamina: int16(i) * 100, Score: int64(i) << 40, Team: 1})
		s.EntityGame[i] = e.Game
	}
	b, err := AppendSnapshot(nil, s, nil, 600)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > 600 {
		t.Fatalf("%d bytes over the limit", len(b))
	}
	got := decodeGame(t, b, nil)
	sent := 0
	for i := range MaxEntities {
		if shown(s.EntityGame[i], game.VisAll) != got.EntityGame[i] {
			t.Fatalf("entity %d: the sender's snapshot is not what the receiver decoded", i)
		}
		if got.EntityGame[i] != (game.State{}) {
			sent++
		}
	}
	if sent == 0 || sent == MaxEntities {
		t.Fatalf("%d of %d entries sent under 600 bytes", sent, MaxEntities)
	}
}

// TestGameStateErrors: a receiver whose declaration differs gets an
// error naming the field, not a wrong state; one without a declaration
// fails on the trailing game state.
func TestGameStateErrors(t *testing.T) {
	b := mustAppend(t, gameSnapshot(3, 1), nil)
	if err := DecodeSnapshot(b, &Snapshot{}, nil); err == nil {
		t.Error("a snapshot with game state decoded as one without")
	}
	type narrower struct {
		Boost   bool
		Stamina int16         `lagkit:"all,lerp"`
		Ammo    uint8         `lagkit:"owner,max=20"`
		Cool    time.Duration `lagkit:"owner,q=1ms,max=90s"`
	}
	var got Snapshot
	got.SetGame(game.MustDeclare[narrower]().Layout)
	err := DecodeSnapshot(b, &got, nil)
	if err == nil || !strings.Contains(err.Error(), "game field Ammo out of its declared range") {
		t.Errorf("ammo 30 against max 20: %v", err)
	}
}

// FuzzSnapshotGameRoundTrip: random snapshots with a game's declared
// state, full and delta, under random limits, decode to exactly what the
// encoder left in s, as the receiver sees it.
func FuzzSnapshotGameRoundTrip(f *testing.F) {
	for seed := range uint64(8) {
		f.Add(seed, uint16(MaxDatagram))
		f.Add(seed, uint16(80+seed*100))
	}
	f.Fuzz(func(t *testing.T, seed uint64, limit uint16) {
		rng := rand.New(rand.NewPCG(seed, 5))
		l := wireSchema.Layout
		randGame := func(s *Snapshot) {
			s.SetGame(l)
			st := s.Self
			randWireState(rng, wireSchema.Of(&st))
			s.Self.Game = st.Game
			for i := range MaxEntities {
				e := game.PlayerState{Game: s.EntityGame[i]}
				if s.Has(i) {
					randWireState(rng, wireSchema.Of(&e))
				} else {
					e.Game = game.State{}
				}
				s.EntityGame[i] = e.Game
			}
		}
		base := randSnapshot(rng, 1+rng.Uint32N(1<<31))
		randGame(base)
		lim := 1 + int(limit)%MaxDatagram
		if _, err := AppendSnapshot(nil, base, nil, lim); err != nil {
			return // limit too small for the header and self
		}
		// What the receiver holds of the baseline.
		held := *cloneSnapshot(base)
		held.EntityGame = make([]game.State, MaxEntities)
		held.Self.Game = shown(base.Self.Game, game.VisOwner)
		for i := range MaxEntities {
			held.EntityGame[i] = shown(base.EntityGame[i], game.VisAll)
		}
		s := randNext(rng, base)
		s.EntityGame = append([]game.State(nil), base.EntityGame...)
		randGame(s)
		b, err := AppendSnapshot(nil, s, base, lim)
		if err != nil {
			return
		}
		if len(b) > lim {
			t.Fatalf("encoded %d bytes, limit %d", len(b), lim)
		}
		var got Snapshot
		got.SetGame(l)
		if err := DecodeSnapshot(b, &got, baselineOf(&held)); err != nil {
			t.Fatal(err)
		}
		want := *cloneSnapshot(s)
		want.EntityGame = make([]game.State, MaxEntities)
		want.Self.Game = shown(s.Self.Game, game.VisOwner)
		for i := range MaxEntities {
			want.EntityGame[i] = shown(s.EntityGame[i], game.VisAll)
		}
		if d := diffSnapshot(&got, &want); d != "" {
			t.Fatalf("seed %d limit %d: %s", seed, lim, d)
		}
	})
}

// FuzzDecodeGameSnapshot: any bytes decoded with a declared state give
// a snapshot or an error, never a panic; what decodes encodes again to
// the same.
func FuzzDecodeGameSnapshot(f *testing.F) {
	base := gameSnapshot(10, 50)
	held := decodeGame(&testing.T{}, mustAppendF(f, base, nil), nil)
	f.Add(mustAppendF(f, base, nil))
	next := gameSnapshot(12, 47)
	next.Baseline = 10
	f.Add(mustAppendF(f, next, base))
	f.Fuzz(func(t *testing.T, b []byte) {
		var s Snapshot
		s.SetGame(wireSchema.Layout)
		if err := DecodeSnapshot(b, &s, baselineOf(held)); err != nil {
			return
		}
		var ref *Snapshot
		if s.Baseline != 0 {
			ref = held
		}
		b2, err := AppendSnapshot(nil, &s, ref, MaxDatagram)
		if err != nil {
			t.Fatalf("decoded snapshot cannot be encoded: %v", err)
		}
		var s2 Snapshot
		s2.SetGame(wireSchema.Layout)
		if err := DecodeSnapshot(b2, &s2, baselineOf(held)); err != nil {
			t.Fatalf("re-encoded snapshot does not decode: %v", err)
		}
		if d := diffSnapshot(&s2, &s); d != "" {
			t.Fatalf("re-encoded snapshot differs: %s", d)
		}
	})
}

func mustAppendF(f *testing.F, s, base *Snapshot) []byte {
	b, err := AppendSnapshot(nil, s, base, MaxDatagram)
	if err != nil {
		f.Fatal(err)
	}
	return b
}
