package game

import (
	"strings"
	"testing"
	"time"
)

type armedState struct {
	Arms
	Stamina int16 `lagkit:"max=100"`
}

type namedArms struct {
	Arms  Arms
	Charm bool
}

type lateArms struct {
	Stamina int16
	Arms    Arms
}

// TestArmsDeclared: lagkit's own declaration is Arms alone, hashing to
// 0 as no declaration does; a state with Arms as its first field,
// embedded or named, is armed, and PlayerState.Arms reaches it through
// its schema's bytes; Arms anywhere else is refused by name.
func TestArmsDeclared(t *testing.T) {
	if !ArmsLayout.Armed() || ArmsLayout.Hash() != 0 || OrArms(nil) != ArmsLayout {
		t.Fatalf("lagkit's own declaration: armed %v, hash %x", ArmsLayout.Armed(), ArmsLayout.Hash())
	}
	for _, f := range ArmsLayout.Fields() {
		if f.Vis != VisOwner {
			t.Errorf("Arms field %s goes to %s, want the owner alone", f.Name, f.Vis)
		}
	}
	armed := MustDeclare[armedState]()
	if !armed.Armed() || armed.Hash() == 0 || OrArms(armed.Layout) != armed.Layout {
		t.Fatalf("embedded Arms first: armed %v, hash %x", armed.Armed(), armed.Hash())
	}
	if !MustDeclare[namedArms]().Armed() {
		t.Error("a named Arms first field is not armed")
	}
	var st PlayerState
	armed.Of(&st).Stamina = 40
	st = st.WithArms(Arms{Weapon: 2, Ammo: 7, Heat: 3, Wait: 250 * time.Millisecond})
	if g := armed.Get(&st); g.Ammo != 7 || g.Weapon != 2 || g.Wait != 250*time.Millisecond || g.Stamina != 40 {
		t.Errorf("the schema reads %+v after WithArms", g)
	}
	armed.Of(&st).Heat = 9
	if st.Arms().Heat != 9 {
		t.Errorf("PlayerState.Arms reads heat %d, the schema wrote 9", st.Arms().Heat)
	}
	if _, err := Declare[lateArms](); err == nil || !strings.Contains(err.Error(), "game.Arms must be the declared state's first field") {
		t.Errorf("Arms after another field: %v", err)
	}
	if l := MustDeclare[struct{ Stamina int16 }](); l.Armed() {
		t.Error("a state without Arms is armed")
	}
}

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
