package game

import "testing"

type viewState struct {
	Seen  int16 `lagkit:"all"`
	Mine  uint8 `lagkit:"owner"`
	Night bool  `lagkit:"-"`
}

// TestMatchView: a nil view shows nothing; a filled one shows its
// entities by slot and its match state, read typed with In; Public
// keeps only the fields sent to all.
func TestMatchView(t *testing.T) {
	var none *MatchView
	if _, ok := none.Entity(3); ok || none.Entities() != nil || none.Match() != (State{}) {
		t.Fatal("a nil view shows something")
	}
	decl := MustDeclare[viewState]()
	var v MatchView
	v.Add(70, PlayerState{Health: 7})
	v.Add(90, PlayerState{Health: 9})
	var m State
	decl.In(&m).Seen = 12
	v.SetMatch(m)
	if st, ok := v.Entity(90); !ok || st.Health != 9 {
		t.Fatalf("entity 90: %+v %v", st, ok)
	}
	if _, ok := v.Entity(80); ok {
		t.Fatal("an entity in slot 80")
	}
	got := v.Match()
	if decl.In(&got).Seen != 12 || len(v.Entities()) != 2 {
		t.Fatalf("match state %+v, entities %v", *decl.In(&got), v.Entities())
	}
	var w MatchView
	w.CopyFrom(&v)
	v.Reset()
	if len(v.Entities()) != 0 || len(w.Entities()) != 2 || w.Match() != m {
		t.Fatalf("after a copy and a reset: %v, copy %v", v.Entities(), w.Entities())
	}
	var st PlayerState
	decl.Set(&st, viewState{Seen: 5, Mine: 6, Night: true})
	decl.Layout.Public(&st.Game)
	if g := decl.Get(&st); g != (viewState{Seen: 5}) {
		t.Fatalf("public fields %+v, want only Seen", g)
	}
}
