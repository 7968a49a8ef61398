package wire

import (
	"math/bits"

	"github.com/lagkit/lagkit/game"
)

// A game's own declared state (game.Declare; Snapshot.Game) follows the
// entity entries (lagkit's shooter declares weapon.Arms, its weapons'
// state, sent to the owner alone):
//
//	Self's fields | entry count 9 | entry...
//
// the entry count and entries only when some field is sent to all or
// to the team. Self carries every field sent to the owner, its team or all
// (game.VisOwner, game.VisTeam, game.VisAll), an entry the fields sent
// to all of a present entity whose fields differ from what the receiver
// holds (the baseline's, zero for an entity the baseline lacks): its
// slot (the first as 8 bits, each later one as its distance from the
// previous one, stepCode) and its fields. When the layout has fields
// sent to the team (game.Layout.SentToTeam) an entry ends with a bit,
// 1 when the entity's team fields follow, coded as the others: those of
// a team mate of the receiver's (Snapshot.Mates), or zeros where the
// receiver holds another value (an entity no longer a team mate). A
// receiver holds the team fields of the others zero (an entry left out
// for room leaves what it held until a later snapshot carries it, as
// for any field); a layout without team fields codes no such bit. A
// field is coded in its units against the baseline's, in the manner of Source's SendTables (each field with the bits its declared
// range needs): a bool as its bit; any other field as a changed bit,
// then when changed, for a field of 6 bits or fewer its value above the
// field's minimum in the field's width; for a wider one a size bit, 0
// for a difference from the baseline's within ±16 in 5 bits (a counter,
// a timer ticking down), 1 for the value above the minimum in the
// field's width. Unchanged fields cost a bit each in Self
// and nothing for an unchanged entity.

// smallBits is the width of a field's small change: a zigzag difference
// within ±16, a counter or a timer ticking down.
const smallBits = 5

// fieldBits is the most bits field f takes.
func fieldBits(f *game.Field) int {
	switch {
	case f.Kind == game.KindBool:
		return 1
	case f.Bits <= smallBits+1:
		return 1 + int(f.Bits)
	}
	return 2 + int(f.Bits) // changed bit, size bit, value
}

// gameReserve is the room the game state of s may need beyond its
// entries: Self's fields and the entry count.
func gameReserve(s *Snapshot) int {
	l := s.Game
	if s.reserveOf == l && s.reserveRing == len(s.Entities) {
		return s.reserve // a snapshot reused for one session
	}
	n := 0
	if entriesOf(l) {
		n = int(countBits(len(s.Entities)))
	}
	for i := range l.Fields() {
		if f := &l.Fields()[i]; f.Vis != game.VisNone {
			n += fieldBits(f)
		}
	}
	s.reserveOf, s.reserve, s.reserveRing = l, n, len(s.Entities)
	return n
}

// SetGame makes s carry game state of layout l (nil: none), sizing EntityGame (and Mates) once; a
// snapshot kept and reused allocates nothing after.
func (s *Snapshot) SetGame(l *game.Layout) {
	s.Game = l
	s.sized()
	if entriesOf(l) && len(s.EntityGame) != len(s.Entities) {
		s.EntityGame = make([]game.State, len(s.Entities))
	}
	if l.SentToTeam() && len(s.Mates) != len(s.Present) {
		s.Mates = make([]uint64, len(s.Present))
	}
}

// entriesOf reports whether layout l sends entities' fields: to all or
// to the team.
func entriesOf(l *game.Layout) bool { return l.SentToOthers() || l.SentToTeam() }

// SetMate marks entity slot i as a team mate of the receiver's, whose
// team fields (game.VisTeam) it is sent, or not. It does nothing when
// s has no Mates (SetGame sizes them for a layout with team fields) or
// for i outside them.
func (s *Snapshot) SetMate(i int, mate bool) {
	j := uint(i) / 64
	if j >= uint(len(s.Mates)) {
		return
	}
	if mate {
		s.Mates[j] |= 1 << (uint(i) % 64)
	} else {
		s.Mates[j] &^= 1 << (uint(i) % 64)
	}
}

// Mate reports whether entity slot i is marked a team mate (SetMate).
func (s *Snapshot) Mate(i int) bool {
	j := uint(i) / 64
	return j < uint(len(s.Mates)) && s.Mates[j]>>(uint(i)%64)&1 != 0
}

// entityGame returns entity i's game state in s, zero when s has none.
func entityGame(s *Snapshot, i int) *game.State {
	if i < len(s.EntityGame) {
		return &s.EntityGame[i]
	}
	return &zeroState
}

var zeroState game.State

// sameGame reports whether the fields of l visible to vis agree in a and b.
func sameGame(l *game.Layout, a, b *game.State, vis game.Vis) bool {
	for i := range l.Fields() {
		if l.Fields()[i].Vis <= vis && !l.Same(a, b, i) {
			return false
		}
	}
	return true
}

// sameVis reports whether the fields of l of visibility vis agree in a
// and b.
func sameVis(l *game.Layout, a, b *game.State, vis game.Vis) bool {
	for i := range l.Fields() {
		if l.Fields()[i].Vis == vis && !l.Same(a, b, i) {
			return false
		}
	}
	return true
}

// writeField writes field i of v against ref's.
func writeField(w *bitWriter, l *game.Layout, i int, v, ref *game.State) {
	f := &l.Fields()[i]
	u, r := l.Units(v, i), l.Units(ref, i)
	if f.Kind == game.KindBool {
		w.writeBits(uint64(u), 1)
		return
	}
	if u == r {
		w.writeBits(0, 1)
		return
	}
	w.writeBits(1, 1)
	off := uint64(u) - uint64(f.Min)
	if f.Bits > smallBits+1 {
		if zz := zigzag(int64(uint64(u) - uint64(r))); zz < 1<<smallBits {
			w.writeBits(zz<<1, 1+smallBits)
			return
		}
		w.writeBits(1, 1)
	}
	if f.Bits > 32 {
		w.writeBits(off&(1<<32-1), 32)
		w.writeBits(off>>32, f.Bits-32)
		return
	}
	w.writeBits(off, f.Bits)
}

// readField reads field i into s, which holds the baseline's value.
func readField(r *bitReader, l *game.Layout, i int, s *game.State, what string) {
	switch f := &l.Fields()[i]; {
	case f.Kind == game.KindBool:
		l.SetUnits(s, i, int64(r.readBits(1)))
	case r.readBool(): // changed
		readChange(r, l, i, s, what)
	}
}

// readChange reads the new value of field i, not a bool, after its
// changed bit into s, which holds the baseline's value.
func readChange(r *bitReader, l *game.Layout, i int, s *game.State, what string) {
	f := &l.Fields()[i]
	span := uint64(f.Max) - uint64(f.Min)
	var off uint64
	switch {
	case f.Bits > smallBits+1 && !r.readBool():
		off = uint64(l.Units(s, i)) - uint64(f.Min) + uint64(unzigzag(r.readBits(smallBits)))
	case f.Bits > 32:
		off = r.readBits(32)
		off |= r.readBits(f.Bits-32) << 32
	default:
		off = r.readBits(f.Bits)
	}
	if off > span {
		r.failf("%s: game field %s out of its declared range", what, f.Name)
		return
	}
	l.SetUnits(s, i, int64(off+uint64(f.Min)))
}

// writeGame writes the game state of s against ref, once s's presence is
// final. An entry that would take w past bit end is left out, and its
// entity's state in s set back to what the receiver holds. Absent slots'
// states are zeroed.
func writeGame(w *bitWriter, s, ref *Snapshot, end int) {
	l := s.Game
	// Self's state is most often the baseline's: its unchanged fields
	// are a run of zero bits, written at once.
	same, zeros := s.Self.Game == ref.Self.Game, uint(0)
	for i := range l.Fields() {
		switch f := &l.Fields()[i]; {
		case f.Vis == game.VisNone:
		case same && f.Kind != game.KindBool && zeros < 64:
			zeros++
		default:
			if zeros > 0 {
				w.writeBits(0, zeros)
				zeros = 0
			}
			writeField(w, l, i, &s.Self.Game, &ref.Self.Game)
		}
	}
	if zeros > 0 {
		w.writeBits(0, zeros)
	}
	if !entriesOf(l) {
		return // no entries: both ends know there can be none
	}
	ring := len(s.Entities)
	nbits, sb := countBits(ring), slotBits(ring)
	countAt := w.pos()
	w.writeBits(0, nbits)
	s.SetGame(l)
	fields, team := l.Fields(), l.SentToTeam()
	if team {
		hideTeam(s, l)
	}
	count, prev := 0, 0
	for j, word := range s.Present {
		for ; word != 0; word &= word - 1 {
			i := j*64 + bits.TrailingZeros64(word)
			from := &zeroState
			if ref.Has(i) {
				from = entityGame(ref, i)
			}
			v := &s.EntityGame[i]
			if sameGame(l, v, from, game.VisAll) && (!team || sameVis(l, v, from, game.VisTeam)) {
				continue
			}
			mark := w.pos()
			if count == 0 {
				w.writeBits(uint64(i), sb)
			} else {
				w.writeBits(stepCode(i-prev, sb))
			}
			for k := range fields {
				if fields[k].Vis == game.VisAll {
					writeField(w, l, k, v, from)
				}
			}
			if team {
				writeTeam(w, l, v, from)
			}
			if w.pos() > end {
				w.truncate(mark)
				*v = *from
				continue
			}
			count++
			prev = i
		}
	}
	w.patch(countAt, uint64(count), nbits)
	for j, word := range s.Present {
		for m := ^word; m != 0; m &= m - 1 {
			s.EntityGame[j*64+bits.TrailingZeros64(m)] = zeroState
		}
	}
}

// readGame reads the game state of a snapshot into s, decoded against
// base, whose entities' presence was basePresent (base may be s).
func readGame(r *bitReader, s, base *Snapshot, basePresent []uint64) {
	l := s.Game
	// readField for each field sent, written out: Self's fields are most
	// often unchanged, a bit each.
	fields := l.Fields()
	for i := range fields {
		switch f := &fields[i]; {
		case f.Vis == game.VisNone:
		case f.Kind == game.KindBool:
			l.SetUnits(&s.Self.Game, i, int64(r.readBits(1)))
		case r.readBool(): // changed
			readChange(r, l, i, &s.Self.Game, "self")
		}
	}
	if !entriesOf(l) {
		return // no entries: no field is sent to others
	}
	{
		s.SetGame(l)
		for j := range s.Present {
			word, was := s.Present[j], basePresent[j]
			for b := range 64 {
				i := j*64 + b
				switch {
				case word>>b&1 == 0 || was>>b&1 == 0:
					s.EntityGame[i] = zeroState
				case base != s:
					s.EntityGame[i] = *entityGame(base, i)
				}
			}
		}
	}
	ring := len(s.Entities)
	sb := slotBits(ring)
	count := int(r.readBits(countBits(ring)))
	switch {
	case count > s.slots:
		r.failf("%d game state entries exceed %d slots", count, s.slots)
		return
	}
	i := 0
	for e := 0; e < count && r.err == nil; e++ {
		if e == 0 {
			i = int(r.readBits(sb))
		} else {
			d := readStep(r, sb)
			if d == 0 || i+d >= ring {
				r.failf("game state entries out of slot order")
				break
			}
			i += d
		}
		if !s.Has(i) {
			r.failf("game state for entity %d, which is absent", i)
			break
		}
		for k := range l.Fields() {
			if l.Fields()[k].Vis == game.VisAll {
				readField(r, l, k, &s.EntityGame[i], "entity")
			}
		}
		if l.SentToTeam() && r.readBool() {
			for k := range l.Fields() {
				if l.Fields()[k].Vis == game.VisTeam {
					readField(r, l, k, &s.EntityGame[i], "entity")
				}
			}
		}
	}
}

// hideTeam zeroes the team fields of every present entity of s that is
// not a team mate of the receiver's, as the receiver holds them.
func hideTeam(s *Snapshot, l *game.Layout) {
	for j, word := range s.Present {
		for m := word &^ s.Mates[j]; m != 0; m &= m - 1 {
			l.Hide(&s.EntityGame[j*64+bits.TrailingZeros64(m)], game.VisTeam)
		}
	}
}

// writeTeam writes an entry's team bit and, unless v's team fields
// agree with ref's, v's team fields against ref's.
func writeTeam(w *bitWriter, l *game.Layout, v, ref *game.State) {
	if sameVis(l, v, ref, game.VisTeam) {
		w.writeBits(0, 1)
		return
	}
	w.writeBits(1, 1)
	for k := range l.Fields() {
		if l.Fields()[k].Vis == game.VisTeam {
			writeField(w, l, k, v, ref)
		}
	}
}
