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

// TestDigestRunsAreTheFields: AppendDigest's copy of adjacent fields'
// bytes gives the digest field by field, on a state with padding
// between fields, signed and unsigned integers, bools, floats, durations
// and arrays.
func TestDigestRunsAreTheFields(t *testing.T) {
	type mixed struct {
		A bool
		B int8
		C int32 // after two bytes of padding
		D [3]int16
		E float32       `lagkit:"q=0.5,max=100"`
		F time.Duration `lagkit:"max=1m"`
		G uint8
		H float64 `lagkit:"q=0.001,min=-5,max=5"`
	}
	l := MustDeclare[mixed]()
	if len(l.runs) < 3 {
		t.Fatalf("%d runs over a state with padding, want several", len(l.runs))
	}
	for i, v := range []mixed{
		{},
		{A: true, B: -3, C: -70000, D: [3]int16{-1, 2, -32768}, E: 12.5, F: -time.Second, G: 255, H: -4.25},
		{B: 127, C: 1 << 30, D: [3]int16{32767, 0, 9}, E: -0.5, F: time.Minute, H: 3.5},
	} {
		var st PlayerState
		l.Set(&st, v)
		if got, want := l.AppendDigest(nil, &st.Game), l.appendFields(nil, &st.Game); string(got) != string(want) {
			t.Errorf("state %d: digest %x, field by field %x", i, got, want)
		}
	}
}
