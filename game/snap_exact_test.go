package game

import (
	"testing"
	"time"
)

// TestSnapLeavesExactFields: Snap's fast paths change nothing a full
// snap would not: integer fields of their type's whole range and
// durations on their grid stay, the rest are put on their grids.
func TestSnapLeavesExactFields(t *testing.T) {
	type s struct {
		A int8
		B uint16        `lagkit:"max=1000"`
		D time.Duration `lagkit:"q=1ms,max=10s"`
		E time.Duration
	}
	l := MustDeclare[s]()
	for _, v := range []s{
		{A: -128, B: 1000, D: 3 * time.Millisecond, E: time.Microsecond},
		{A: 127, B: 5000, D: 3*time.Millisecond + 1, E: 1500},
		{B: 7, D: 11 * time.Second, E: -time.Hour},
	} {
		var a, b PlayerState
		l.Set(&a, v)
		l.Set(&b, v)
		l.Snap(&a.Game)
		for i := range l.Fields() {
			l.SetUnits(&b.Game, i, l.Units(&b.Game, i))
		}
		if a.Game != b.Game {
			t.Errorf("%+v: Snap gives %+v, field by field %+v", v, l.Get(&a), l.Get(&b))
		}
	}
}
