package wire

import (
	"math/rand/v2"
	"testing"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
)

// squadState is a team game's declared state: a field for all, two for
// the owner's team, one for the owner.
type squadState struct {
	Stamina int16 `lagkit:"all"`
	Ammo    uint8 `lagkit:"team,max=40"`
	Mark    int16 `lagkit:"team,min=-1,max=255"`
	Cool    uint8 `lagkit:"owner"`
}

var squadSchema = game.MustDeclare[squadState]()

// heldAs returns entity state st as a receiver holds it: the fields
// sent to all, and to the team when mate.
func heldAs(st game.State, mate bool) game.State {
	l := squadSchema.Layout
	var out game.State
	for i, f := range l.Fields() {
		if f.Vis == game.VisAll || (mate && f.Vis == game.VisTeam) {
			l.SetUnits(&out, i, l.Units(&st, i))
		}
	}
	return out
}

// squadSnapshot returns a snapshot of tick with entities 3, 9 and 200,
// those of mates the receiver's team mates.
func squadSnapshot(tick uint32, ammo uint8, mates ...int) *Snapshot {
	s := &Snapshot{Tick: tick}
	s.SetGame(squadSchema.Layout)
	squadSchema.Set(&s.Self, squadState{Stamina: 5, Ammo: 12, Mark: 200, Cool: 3})
	for k, i := range []int{3, 9, 200} {
		s.SetPresent(i, true)
		s.Entities[i] = EntityFromState(game.PlayerState{Pos: game.SnapPos(geom.V(float64(i), 0, 0))})
		var e game.PlayerState
		squadSchema.Set(&e, squadState{Stamina: int16(k) * 10, Ammo: ammo + uint8(k), Mark: int16(k) - 1, Cool: 9})
		s.EntityGame[i] = e.Game
	}
	for _, i := range mates {
		s.SetMate(i, true)
	}
	return s
}

func decodeSquad(t *testing.T, b []byte, base *Snapshot) *Snapshot {
	t.Helper()
	got := &Snapshot{}
	got.SetGame(squadSchema.Layout)
	if err := DecodeSnapshot(b, got, baselineOf(base)); err != nil {
		t.Fatal(err)
	}
	return got
}

// checkSquad fails unless got holds of each entity of sent what its
// receiver is sent, and the sender's snapshot (sent, after encoding)
// holds the team fields the receiver does.
func checkSquad(t *testing.T, what string, got, sent *Snapshot, want map[int]game.State) {
	t.Helper()
	for i := range MaxEntities {
		if got.EntityGame[i] != want[i] {
			var g, w game.PlayerState
			g.Game, w.Game = got.EntityGame[i], want[i]
			t.Fatalf("%s: entity %d holds %+v, want %+v", what, i, squadSchema.Get(&g), squadSchema.Get(&w))
		}
		if heldAs(sent.EntityGame[i], true) != want[i] {
			t.Fatalf("%s: entity %d: the sender keeps other team fields than the receiver holds", what, i)
		}
	}
}

// TestGameStateTeam: fields sent to the team reach the owner in Self
// and the receiver's team mates' entries, and no other entity's: those
// hold them zero. An entity that stops being a mate is zeroed, one that
// becomes a mate is sent them, and unchanged ones cost no entry.
func TestGameStateTeam(t *testing.T) {
	full := squadSnapshot(10, 20, 3, 200)
	fullWant := map[int]game.State{
		3:   heldAs(full.EntityGame[3], true),
		9:   heldAs(full.EntityGame[9], false),
		200: heldAs(full.EntityGame[200], true),
	}
	got := decodeSquad(t, mustAppend(t, full, nil), nil)
	if g := squadSchema.Get(&got.Self); g != (squadState{Stamina: 5, Ammo: 12, Mark: 200, Cool: 3}) {
		t.Fatalf("self %+v: the owner gets its team fields", g)
	}
	checkSquad(t, "full", got, full, fullWant)
	if e := (game.PlayerState{Game: got.EntityGame[9]}); squadSchema.Of(&e).Ammo != 0 || squadSchema.Of(&e).Stamina != 10 {
		t.Fatalf("entity 9, no mate, holds %+v", squadSchema.Get(&e))
	}
	if e := (game.PlayerState{Game: got.EntityGame[200]}); squadSchema.Of(&e).Ammo != 22 || squadSchema.Of(&e).Mark != 1 || squadSchema.Of(&e).Cool != 0 {
		t.Fatalf("entity 200, a mate, holds %+v", squadSchema.Get(&e))
	}

	// The same states and mates again: no entries, as without team fields.
	same := squadSnapshot(11, 20, 3, 200)
	same.Baseline = 10
	// Against snapshots whose entities hold nothing of the game's, which
	// have no entries for sure: as many bytes.
	bare := func(s *Snapshot) *Snapshot {
		c := cloneSnapshot(s)
		clear(c.EntityGame)
		clear(c.Mates)
		return c
	}
	if n, m := len(mustAppend(t, cloneSnapshot(same), cloneSnapshot(full))), len(mustAppend(t, bare(same), bare(full))); n != m {
		t.Fatalf("unchanged team fields cost %d bytes, none cost %d", n, m)
	}
	held := decodeSquad(t, mustAppend(t, squadSnapshot(10, 20, 3, 200), nil), nil)
	got = decodeSquad(t, mustAppend(t, same, full), held)
	checkSquad(t, "same", got, same, fullWant)
	n := 0
	for i := range MaxEntities {
		if got.EntityGame[i] != held.EntityGame[i] {
			n++
		}
	}
	if n != 0 {
		t.Fatalf("%d entities changed on an unchanged snapshot", n)
	}

	// 3 leaves the team, 9 joins it, 200's ammunition changes.
	next := squadSnapshot(12, 30, 9, 200)
	next.Baseline = 10
	b := mustAppend(t, next, full)
	got = decodeSquad(t, b, held)
	checkSquad(t, "delta", got, next, map[int]game.State{
		3:   heldAs(next.EntityGame[3], false),
		9:   heldAs(next.EntityGame[9], true),
		200: heldAs(next.EntityGame[200], true),
	})
	// In free-for-all no one is a mate: every entity's team fields zero.
	ffa := squadSnapshot(13, 30)
	ffa.Baseline = 12
	got = decodeSquad(t, mustAppend(t, ffa, next), got)
	checkSquad(t, "ffa", got, ffa, map[int]game.State{
		3:   heldAs(ffa.EntityGame[3], false),
		9:   heldAs(ffa.EntityGame[9], false),
		200: heldAs(ffa.EntityGame[200], false),
	})
}

// TestGameStateTeamOnly: a declaration whose only field for others is
// sent to the team has entity entries for the mates alone.
func TestGameStateTeamOnly(t *testing.T) {
	type medic struct {
		Heals uint8 `lagkit:"team"`
		Cool  uint8 `lagkit:"owner"`
	}
	l := game.MustDeclare[medic]().Layout
	if l.SentToOthers() || !l.SentToTeam() {
		t.Fatal("medic: sent to the team, not to all")
	}
	s := &Snapshot{Tick: 4}
	s.SetGame(l)
	for _, i := range []int{1, 2} {
		s.SetPresent(i, true)
		s.EntityGame[i] = game.State{uint64(10 + i)} // Heals, the first byte
	}
	s.SetMate(2, true)
	got := &Snapshot{}
	got.SetGame(l)
	if err := DecodeSnapshot(mustAppend(t, s, nil), got, nil); err != nil {
		t.Fatal(err)
	}
	if got.EntityGame[1] != (game.State{}) || got.EntityGame[2] != (game.State{12}) {
		t.Fatalf("entities hold %x and %x, want 0 and c", got.EntityGame[1], got.EntityGame[2])
	}
}

// TestGameStateTeamLimit: under a byte limit, entries left out leave
// the sender's snapshot with what the receiver holds, team fields too;
// the next snapshot against it brings the rest.
func TestGameStateTeamLimit(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	s := &Snapshot{Tick: 5}
	s.SetGame(squadSchema.Layout)
	for i := range MaxEntities {
		s.SetPresent(i, true)
		var e game.PlayerState
		squadSchema.Set(&e, squadState{Stamina: int16(rng.IntN(1000)), Ammo: uint8(1 + rng.IntN(40)), Mark: int16(rng.IntN(256))})
		s.EntityGame[i] = e.Game
		s.SetMate(i, i%3 != 0)
	}
	want := make(map[int]game.State)
	for i := range MaxEntities {
		want[i] = heldAs(s.EntityGame[i], s.Mate(i))
	}
	b, err := AppendSnapshot(nil, s, nil, 500)
	if err != nil {
		t.Fatal(err)
	}
	got := decodeSquad(t, b, nil)
	sent := 0
	for i := range MaxEntities {
		if heldAs(s.EntityGame[i], true) != got.EntityGame[i] {
			t.Fatalf("entity %d: the sender's snapshot is not what the receiver decoded", i)
		}
		if got.EntityGame[i] == want[i] {
			sent++
		}
	}
	if sent == 0 || sent == MaxEntities {
		t.Fatalf("%d of %d entries sent under 500 bytes", sent, MaxEntities)
	}
	// The rest, against what was sent, under no tight limit.
	next := cloneSnapshot(s)
	next.Tick, next.Baseline = 6, 5
	for i := range MaxEntities {
		next.EntityGame[i] = want[i]
		e := game.PlayerState{Game: next.EntityGame[i]}
		squadSchema.Of(&e).Cool = 7 // the owner's: never sent
		next.EntityGame[i] = e.Game
	}
	got = decodeSquad(t, mustAppend(t, next, s), got)
	checkSquad(t, "rest", got, next, want)
}

// randSquad changes some of the present entities' states of s and
// whether they are the receiver's team mates, and Self's state.
func randSquad(rng *rand.Rand, s *Snapshot) {
	s.SetGame(squadSchema.Layout)
	squadSchema.Set(&s.Self, squadState{Stamina: int16(rng.IntN(2000) - 1000), Ammo: uint8(rng.IntN(41)), Mark: int16(rng.IntN(257) - 1), Cool: uint8(rng.Uint32())})
	for i := range MaxEntities {
		if !s.Has(i) {
			s.EntityGame[i] = game.State{}
			continue
		}
		if rng.IntN(3) == 0 {
			var e game.PlayerState
			squadSchema.Set(&e, squadState{Stamina: int16(rng.IntN(2000) - 1000), Ammo: uint8(rng.IntN(41)), Mark: int16(rng.IntN(257) - 1), Cool: uint8(rng.Uint32())})
			s.EntityGame[i] = e.Game
		}
		if rng.IntN(4) == 0 {
			s.SetMate(i, rng.IntN(2) == 0)
		}
	}
}

// FuzzSnapshotTeamRoundTrip: random snapshots with team fields and
// random team mates, full and delta, under random limits, decode to
// exactly what the encoder left in s: each entity's fields for all, and
// its team fields where it is a mate, zero where not (or, for an entry
// left out for room, what the receiver held).
func FuzzSnapshotTeamRoundTrip(f *testing.F) {
	for seed := range uint64(8) {
		f.Add(seed, uint16(MaxDatagram))
		f.Add(seed, uint16(80+seed*100))
	}
	f.Fuzz(func(t *testing.T, seed uint64, limit uint16) {
		rng := rand.New(rand.NewPCG(seed, 6))
		l := squadSchema.Layout
		lim := 1 + int(limit)%MaxDatagram
		base := randSnapshot(rng, 1+rng.Uint32N(1<<31))
		randSquad(rng, base)
		b, err := AppendSnapshot(nil, base, nil, lim)
		if err != nil {
			return // limit too small for the header and self
		}
		var held Snapshot
		held.SetGame(l)
		if err := DecodeSnapshot(b, &held, nil); err != nil {
			t.Fatal(err)
		}
		s := randNext(rng, base)
		s.SetGame(l)
		copy(s.EntityGame, base.EntityGame)
		copy(s.Mates, base.Mates)
		randSquad(rng, s)
		if b, err = AppendSnapshot(nil, s, base, lim); err != nil {
			return
		}
		var got Snapshot
		got.SetGame(l)
		if err := DecodeSnapshot(b, &got, baselineOf(&held)); err != nil {
			t.Fatal(err)
		}
		if got.Self.Game != s.Self.Game {
			t.Fatalf("seed %d limit %d: self %+v, want %+v", seed, lim, squadSchema.Get(&got.Self), squadSchema.Get(&s.Self))
		}
		for i := range MaxEntities {
			if want := heldAs(s.EntityGame[i], true); got.EntityGame[i] != want {
				t.Fatalf("seed %d limit %d: entity %d (mate %v) holds %x, want %x", seed, lim, i, s.Mate(i), got.EntityGame[i], want)
			}
			// A former mate's entry left out for room leaves what the
			// receiver held, until a later snapshot has room for it.
			if !s.Mate(i) && heldAs(got.EntityGame[i], true) != heldAs(got.EntityGame[i], false) && got.EntityGame[i] != held.EntityGame[i] {
				t.Fatalf("seed %d limit %d: entity %d, no mate, holds new team fields", seed, lim, i)
			}
		}
	})
}
